"""A finished match's sentence, built from its ending and the game's catalogs in the reader's
language (docs/decisions/0058-outcomes-name-their-ending.md).

An engine's ``Outcome`` names its ending (a member of the game's ``Ending``) and the numbers its
sentence needs (``details``); it writes no sentence. The wording is the catalog entry
``ending.<game>.<ending>`` for one winner, ``….shared`` for several and ``….nobody`` for none
(each variant optional: the base wording stands in for a missing one). Placeholders are filled
as an event's are (app/i18n/events.py): ``{seats:winners}`` names the winners as ``{seat:N}``
markers, ``{n}`` and the other details are the numbers, and a plural entry follows ``n``.
static/js/results.js builds the same sentence from the same catalog on the room's pages.
"""

from __future__ import annotations

from typing import Any

from . import LANGUAGES, catalog, plural_form
from .events import fill


def ending_key(game: str, ending: str, winners: int) -> str:
    """The catalog key of the wording for ``winners`` winners (its variant, when it has one)."""
    base = f"ending.{game}.{ending}"
    variant = {0: ".nobody", 1: ""}.get(winners, ".shared")
    if variant and _wording(f"{base}{variant}", "en") is not None:
        return base + variant
    return base


def _wording(key: str, lang: str) -> Any:
    return catalog(lang).get(key, catalog(LANGUAGES[0]).get(key))


def ending_text(lang: str, game: str, ending: str, winners: list[int],
                details: dict[str, Any] | None) -> str | None:
    """The sentence in ``lang`` with ``{seat:N}`` markers for the winners, or ``None`` when no
    catalog has the ending (a match stored before endings were named, or a game gone)."""
    wording = _wording(ending_key(game, ending, len(winners)), lang)
    if wording is None:
        return None
    params: dict[str, Any] = {**(details or {}), "winners": list(winners)}
    if isinstance(wording, dict):
        n = params.get("n", 0)
        wording = wording.get(plural_form(lang, float(n if n is not None else 0)), wording["other"])
    return fill(lang, game, str(wording), params)
