"""A match never gets stuck: while it runs, somebody or a timer can act."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import Game

from .games import GAMES, game_id, matches


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_a_running_match_always_has_someone_who_can_act(game: Game[Any, Any]) -> None:
    ended = 0
    for match in matches(game, seeds=2, first=0.9):
        for step in match.steps(limit=3000):
            if game.outcome(step.state) is None:
                seats = [None, *range(match.players)]
                assert any(game.legal_actions(step.state, s) for s in seats), step.number
                assert {t.key for t in game.timers(step.state)} or any(
                    game.legal_actions(step.state, s) for s in range(match.players))
        ended += game.outcome(match.state) is not None
    assert ended, f"{game.id}: no random match reached its end"
