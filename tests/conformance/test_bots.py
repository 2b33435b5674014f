"""Every game with computer players (``app.bots.has_bots``): normal bots in every seat finish a
match of every player count, choosing only from the legal lists they are sent (the arena plays
them as the room would: app/bots/arena.py)."""

from __future__ import annotations

from typing import Any

import pytest

from app.bots import has_bots, make_bot
from app.bots.arena import play_match
from app.engine import Game

from .games import GAMES, game_id, player_counts


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_bots_finish_a_match_of_every_player_count(game: Game[Any, Any]) -> None:
    if not has_bots(game.id):
        assert game.open_table, f"{game.id} has no computer players"
        return
    for players in player_counts(game):
        bots = [make_bot(game.id, seat, "normal", f"bots-{game.id}-{seat}")
                for seat in range(players)]
        result = play_match(game, bots, f"bots-{game.id}-{players}".encode(), max_moves=20_000)
        assert result.outcome is not None, (game.id, players, result.moves)
        assert result.rejected == [], result.rejected[:3]
