"""What a game hands the site: one ``GamePackage`` object, named by an entry point.

A game is one folder (docs/adding-a-game.md): its rules, its computer players, its page, its
texts and its rules pages. The site finds it through the entry-point group ``panic_party.games``
(``pyproject.toml``: ``<id> = "<module>:PACKAGE"``), as pytest finds its plugins, so a game
installed as a distribution of its own appears on the site with no file of the site changed
(docs/decisions/0050). The package object says where the folder is and what is in it; the site
reads the rest from the folder by these names:

- ``page/``: the page module (``module``, ``page.js``), its style (``style``, ``style.css``),
  its lobby picture (``picture``, ``picture.svg``) and whatever else they load, served under
  ``/games/<id>/page/`` at versioned URLs;
- ``texts/<lang>.json``: every text of the game in each language the site speaks, each key
  under one of the game's own prefixes (``key_prefixes``);
- ``rules/<lang>.html``: the rules page in each language, a Jinja template that extends the
  site's rules frame (``rules/frame.html``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bots import Bot
from .interface import Game

ENTRY_POINT_GROUP = "panic_party.games"
"""The entry-point group every game registers in."""
KEY_FAMILIES = ("game", "event", "timer", "rules", "ending")
"""The catalog families a game's keys live in, each as ``<family>.<id>.``: its page's texts and
its options and moves (``game.<id>.``), its events (``event.<id>.``), its timers' labels
(``timer.<id>.``), its rules summary (``rules.<id>.``) and its endings' sentences
(``ending.<id>.``: app/i18n/endings.py)."""


@dataclass(frozen=True)
class GamePackage:
    """One game as the site takes it: the rules (``game``), the computer players' policy class
    (``bots``; ``None``: no computer players, as for an open table), the package's ``folder``
    (``None`` for a bare game a test registers: no page, texts or rules pages), and its place in the lobby (``position``: lower first, then the id, so the order does not
    depend on which distribution was installed first)."""

    game: Game[Any, Any]
    bots: type[Bot] | None
    folder: Path | None
    position: int = 1000
    quick_options: dict[str, Any] = field(default_factory=dict)
    """Options that keep a match short and let its timers fire soon (the golden playthrough
    and the browser tests play with them); empty: the defaults are short already."""
    module: str = "page.js"
    style: str = "style.css"
    picture: str = "picture.svg"

    @property
    def id(self) -> str:
        return self.game.id

    def _part(self, name: str) -> Path:
        if self.folder is None:
            raise ValueError(f"the bare game {self.id!r} has no {name}/ folder")
        return self.folder / name

    @property
    def page_folder(self) -> Path:
        """The files the pages load (``page/``)."""
        return self._part("page")

    @property
    def texts_folder(self) -> Path:
        """The texts, one ``<lang>.json`` per language (``texts/``)."""
        return self._part("texts")

    @property
    def rules_folder(self) -> Path:
        """The rules pages, one ``<lang>.html`` per language, and their partials (``rules/``)."""
        return self._part("rules")

    @property
    def page_prefix(self) -> str:
        """The URL path the page folder is served under."""
        return f"/games/{self.id}/page"

    def key_prefixes(self) -> tuple[str, ...]:
        """The prefixes every key of this game's texts starts with one of."""
        return tuple(f"{family}.{self.id}." for family in KEY_FAMILIES)

    def owns_key(self, key: str) -> bool:
        return key.startswith(self.key_prefixes())
