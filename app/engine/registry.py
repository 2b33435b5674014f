"""The registry of games by id: each game's package (``GamePackage``) and its rules.

``app.games.load_all`` registers the package of every entry point of ``panic_party.games``; a
test may register a bare game of its own (``register``). ``all_games`` and ``all_packages`` are in
the lobby's order: each package's ``position``, then its id (a bare game comes last).
"""

from __future__ import annotations

from typing import Any

from .interface import Game
from .package import GamePackage

AnyGame = Game[Any, Any]

_PACKAGES: dict[str, GamePackage] = {}
_ordered: list[GamePackage] = []
_generation = 0


def register_package(package: GamePackage) -> GamePackage:
    """Add a game's package; a second package with the same id is refused (``ValueError``)."""
    global _generation
    if package.id in _PACKAGES:
        raise ValueError(f"game {package.id!r} registered twice")
    _PACKAGES[package.id] = package
    _ordered[:] = sorted(_PACKAGES.values(), key=lambda p: (p.position, p.id))
    _generation += 1
    return package


def register(game: AnyGame) -> AnyGame:
    """Add a bare game (no folder: no page, texts or bots), as a test does for a game it makes."""
    register_package(GamePackage(game, None, None, position=1_000_000))
    return game


def unregister(game_id: str) -> None:
    """Forget a game (one a test registered for a while)."""
    global _generation
    if _PACKAGES.pop(game_id, None) is not None:
        _ordered[:] = [p for p in _ordered if p.id != game_id]
        _generation += 1


def generation() -> int:
    """A number that changes whenever a game comes or goes (what is built from the packages,
    such as the merged catalogs, is built again)."""
    return _generation


def get_package(game_id: str) -> GamePackage | None:
    return _PACKAGES.get(game_id)


def all_packages() -> list[GamePackage]:
    return list(_ordered)


def get_game(game_id: str) -> AnyGame | None:
    package = _PACKAGES.get(game_id)
    return package.game if package is not None else None


def all_games() -> list[AnyGame]:
    return [p.game for p in _ordered]
