"""The registry of games by id. ``app.games`` registers every game package at import."""

from __future__ import annotations

from .interface import Game

_GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    if game.id in _GAMES:
        raise ValueError(f"game {game.id!r} registered twice")
    _GAMES[game.id] = game
    return game


def get_game(game_id: str) -> Game | None:
    return _GAMES.get(game_id)


def all_games() -> list[Game]:
    return list(_GAMES.values())
