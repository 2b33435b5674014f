"""The games on offer, with their player counts and the JSON schema of their options."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException

from app.engine import Game, all_games, get_game

router = APIRouter(prefix="/api/games", tags=["games"])


def describe(game: Game) -> dict[str, Any]:
    return {
        "id": game.id,
        "title": game.title,
        "pitch": game.pitch,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "open_table": game.open_table,
        "options": game.Options.model_json_schema(),
    }


@router.get("", summary="The games that can be played")
def list_games() -> list[dict[str, Any]]:
    return [describe(g) for g in all_games()]


@router.get("/{game_id}", summary="One game")
def one_game(game_id: str) -> dict[str, Any]:
    game = get_game(game_id)
    if game is None:
        raise HTTPException(404, f"no game {game_id!r}")
    return describe(game)
