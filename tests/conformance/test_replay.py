"""A finished match replays exactly from its seed, options and action log (the one replay,
app/engine/replay.py): the same views for every seat, the same result; a log that the rules no
longer accept replays up to the move they refuse."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import Game, Move
from app.engine.replay import replay

from .games import GAMES, game_id, matches


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_a_match_replays_to_the_same_views_and_result(game: Game[Any, Any]) -> None:
    finished = 0
    for match in matches(game, seeds=1, first=0.9):
        for _ in match.steps(limit=3000):
            pass
        done = replay(game, match.players, match.options, match.seed, match.log)
        for seat in [None, *range(match.players)]:
            assert game.view(done.state, seat) == game.view(match.state, seat)
        assert game.outcome(done.state) == game.outcome(match.state)
        finished += game.outcome(match.state) is not None
        cut = replay(game, match.players, match.options, match.seed,
                     [*match.log, Move(None, {"type": "no_such_action"})], stop_at_refusal=True)
        assert cut.applied == len(match.log) and cut.refused is not None
    assert finished, f"{game.id}: no match reached its end to be replayed"
