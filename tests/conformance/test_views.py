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


SPLITTING = [game for game in GAMES if type(game).view_parts is not Game.view_parts]
"""The games that split their views for the room (``Game.view_parts``)."""


@pytest.mark.parametrize("game", SPLITTING, ids=game_id)
def test_split_views_are_the_views_key_for_key_and_byte_for_byte(game: Game[Any, Any]) -> None:
    """``{**shared, **own[seat]}`` is each seat's view, its keys in the same order and none in
    both parts, and the bytes the room joins (``joined_view``) are the view's own encoding."""
    from app.realtime.room.frames import joined_view

    for match in matches(game, seeds=1):
        seats = [None, *range(match.players)]
        for step in match.steps(limit=300):
            parts = game.view_parts(step.state, seats)
            assert parts is not None
            shared, own = parts
            opened = orjson.dumps(shared)[:-1]
            for seat in seats:
                view = game.view(step.state, seat)
                assert not set(shared) & set(own[seat])
                merged = {**shared, **own[seat]}
                assert list(merged) == list(view) and merged == view, (game.id, seat)
                assert orjson.dumps(joined_view(opened, own[seat])) == orjson.dumps(view)


def test_a_view_joined_from_an_empty_part_is_the_other_part() -> None:
    """``joined_view``'s edges: no shared keys, no own keys, neither."""
    from app.realtime.room.frames import joined_view

    for shared, own in (({}, {"you": 1}), ({"a": [1]}, {}), ({}, {}), ({"a": 1}, {"b": "x"})):
        joined = orjson.dumps(joined_view(orjson.dumps(shared)[:-1], own))
        assert joined == orjson.dumps({**shared, **own})
