"""The registry of games by id. ``app.games`` registers every game package at import."""

from __future__ import annotations

from typing import Any

from .interface import Game

AnyGame = Game[Any, Any]

_GAMES: dict[str, AnyGame] = {}


def register(game: AnyGame) -> AnyGame:
    if game.id in _GAMES:
        raise ValueError(f"game {game.id!r} registered twice")
    _GAMES[game.id] = game
    return game


def unregister(game_id: str) -> None:
    """Forget a game (a game registered for a while: the conformance suite's example)."""
    _GAMES.pop(game_id, None)


def get_game(game_id: str) -> AnyGame | None:
    return _GAMES.get(game_id)


def all_games() -> list[AnyGame]:
    return list(_GAMES.values())
