"""Every game's views are JSON, and snapshots: a view (the revealed view of a finished match's
replay too) and a legal-action list returned after one move are never changed by the moves after
it (the room keeps frames and bots keep what they
were handed; a view sharing a list with the state would change under them)."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from app.engine import Game

from .games import GAMES, game_id, matches


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_views_are_json_and_not_changed_by_later_moves(game: Game[Any, Any]) -> None:
    for match in matches(game, seeds=1):
        seats = [None, *range(match.players)]
        held: list[tuple[Any, Any, Any]] = []
        kept: list[tuple[Any, Any, Any]] = []
        for step in match.steps(limit=300):
            for who, view, legal in held:
                then = next(k for k in kept if k[0] == who)
                assert view == then[1], f"{game.id}: seat {who}'s view changed at {step.number}"
                assert legal == then[2], f"{game.id}: seat {who}'s legal list changed"
            views = game.views(step.state, seats)
            assert views == {seat: game.view(step.state, seat) for seat in seats}
            held = [(seat, views[seat], game.legal_actions(step.state, seat)) for seat in seats]
            held.append(("revealed", game.revealed_view(step.state), []))
            for _, view, _ in held:
                assert orjson.loads(orjson.dumps(view)) == view
            kept = copy.deepcopy(held)
