"""The games, found through their entry points (docs/decisions/0050).

Every game is a package that names one ``GamePackage`` (app/engine/package.py) in the entry-point
group ``panic_party.games``: the site's own games in this project's ``pyproject.toml``, any other
in the distribution that installs it. ``load_all`` reads the group once, checks each package
(``check_package``) and registers it with the engine's registry. A package that does not load or
fails a check is logged and left out: one broken game never takes the site down.
"""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint, entry_points

from app.engine import ENTRY_POINT_GROUP, GamePackage, registry
from app.engine.bots import DIFFICULTIES, Bot
from app.engine.interface import Game
from app.i18n import LANGUAGES
from app.i18n.packages import package_texts

log = logging.getLogger(__name__)

_loaded = False


class PackageError(Exception):
    """A game package the site cannot take, and why."""


def load_all() -> None:
    """Register the package of every entry point of the group, once per process."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        load_entry(entry)


def load_entry(entry: EntryPoint) -> GamePackage | None:
    """Load, check and register one entry point's package; ``None`` (logged) when it fails."""
    try:
        package = entry.load()
    except Exception:  # a plugin's import may fail in any way: it is left out, the site goes on
        log.exception("game %r (%s) left out: its package does not import", entry.name,
                      entry.value)
        return None
    try:
        check_package(package, entry.name)
        registry.register_package(package)
    except (PackageError, ValueError) as error:
        log.error("game %r (%s) left out: %s", entry.name, entry.value, error)
        return None
    return package


def check_package(package: object, name: str) -> None:
    """Raise ``PackageError`` unless ``package`` is a ``GamePackage`` whose game's id is
    ``name``, whose bots (if any) are a ``Bot`` class whose levels are among the engine's
    (``DIFFICULTIES``) and include normal (a dropped player's stand-in), and whose folder holds
    its page module, style and picture, its texts in every language of the site (each key under
    the game's own prefixes, a label for each of its replay's marks) and its rules page in every
    language."""
    if not isinstance(package, GamePackage):
        raise PackageError(f"the entry point names a {type(package).__name__}, not a GamePackage")
    if not isinstance(package.game, Game):
        raise PackageError("its game is not an app.engine.Game")
    if package.id != name:
        raise PackageError(f"its game's id is {package.id!r}, not the entry point's name")
    if package.bots is not None and not (isinstance(package.bots, type)
                                         and issubclass(package.bots, Bot)):
        raise PackageError("its bots are not a class of app.engine.bots.Bot")
    if package.bots is not None and ("normal" not in package.bots.levels
                                     or not set(package.bots.levels) <= set(DIFFICULTIES)):
        raise PackageError(f"its bots' levels {package.bots.levels!r} are not among "
                           f"{DIFFICULTIES!r} with normal")
    if package.folder is None or not package.folder.is_dir():
        raise PackageError(f"its folder {package.folder} is not there")
    needed = [package.page_folder / package.module, package.page_folder / package.style,
              package.page_folder / package.picture]
    needed += [package.rules_folder / f"{lang}.html" for lang in LANGUAGES]
    needed += [package.texts_folder / f"{lang}.json" for lang in LANGUAGES]
    missing = [str(path.relative_to(package.folder)) for path in needed if not path.is_file()]
    if missing:
        raise PackageError(f"missing {', '.join(missing)}")
    for lang in LANGUAGES:
        try:
            texts = package_texts(package, lang)
        except ValueError as error:
            raise PackageError(str(error)) from error
        stray = sorted(key for key in texts if not package.owns_key(key))
        if stray:
            raise PackageError(
                f"texts/{lang}.json has keys outside {', '.join(package.key_prefixes())}: "
                + ", ".join(stray[:5]))
        unnamed = [mark for mark in package.game.replay_marks
                   if f"game.{package.id}.replay.{mark}" not in texts]
        if unnamed:
            raise PackageError(f"texts/{lang}.json does not name its replay's marks: "
                               + ", ".join(f"game.{package.id}.replay.{m}" for m in unnamed))
