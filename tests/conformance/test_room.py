"""Every game in the room (its core driven directly, app/realtime/room/core.py): every state frame
carries exactly the engine's view of its recipient's seat, that seat's legal list, the seats
waited on and the visible timers; and a random action object from any seat or a spectator is
either a legal move, applied, or refused with one ``error`` to its sender alone, the match
unchanged (docs/protocol.md: bad input changes nothing and reaches nobody else)."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import Game
from app.realtime.room import protocol as p

from .games import GAMES, game_id
from .room import at, frames_to, join, match_of, new_room
from .test_interface import action_types

REFUSED = {"malformed_action", "illegal_action", "not_your_turn", "spectator"}


def _json(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value))


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_state_frames_carry_the_engines_view_legal_list_active_seats_and_timers(
        game: Game[Any, Any]) -> None:
    core = new_room(game)
    players = min(max(3, game.min_players), game.max_players)
    seen: list[Any] = []
    conns = [join(core, f"P{i}", seen=seen) for i in range(players)]
    table = join(core, "", watch=True, seen=seen)
    latest: dict[Any, dict[str, Any]] = {}
    checked = 0

    def absorb(effects: list[Any]) -> None:
        nonlocal checked
        for conn in [*conns, table]:
            for frame in frames_to(effects, conn):
                if frame["type"] == "state":
                    latest[conn] = frame
        match = match_of(core)
        if match is None or core.state.status != "playing":
            return
        timers = sorted((t.key, t.label, list(t.seats)) for t in game.timers(match.state)
                        if t.visible)
        for conn, frame in latest.items():
            if frame["version"] != match.version:
                continue
            seat = frame["seat"]
            assert frame["view"] == _json(game.view(match.state, seat)), (game.id, seat)
            assert frame.get("legal") == (None if seat is None else _json(
                game.legal_actions(match.state, seat)))
            assert frame["active"] == list(game.active_seats(match.state))
            assert sorted((t["key"], t["label"], t["seats"]) for t in frame["timers"]) == timers
            checked += 1

    picker = random.Random(game.id)
    clock = 1.0
    absorb(seen)
    if not game.open_table:
        absorb(core.frame(conns[0], p.Start(type="start"), at(clock)))
    for _ in range(300):
        clock += 0.25
        if core.state.status != "playing":
            absorb(core.frame(conns[0], p.Rematch(type="rematch"), at(clock)))
            continue
        movers = [c for c in conns if latest.get(c, {}).get("legal")]
        if movers:
            conn = picker.choice(movers)
            action = picker.choice(latest[conn]["legal"])
            absorb(core.frame(conn, p.Action(type="action", action=action), at(clock)))
        else:
            clock += 120  # nobody may act: the next timer fires
            absorb(core.timers_due(at(clock)))
    assert checked > 50, checked


def _actions(game: Game[Any, Any]) -> st.SearchStrategy[Any]:
    types = sorted(action_types(game)) + ["", "PLAY", "no_such_action"]
    keys = ["type", "cards", "card", "tile", "option", "target", "flip", "victim", "seat", "x"]
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 130), st.floats(-2, 200),
                        st.text(max_size=6), st.sampled_from(types))
    values = st.one_of(scalars, st.lists(scalars, max_size=4),
                       st.dictionaries(st.sampled_from(keys), scalars, max_size=3))
    return st.one_of(
        st.dictionaries(st.sampled_from(keys), values, max_size=4),
        st.fixed_dictionaries({"type": st.sampled_from(types)},
                              optional={k: values for k in keys[1:]}),
    )


@pytest.mark.parametrize("game", [g for g in GAMES if not g.open_table], ids=game_id)
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_random_action_is_applied_or_refused_to_its_sender_alone(
        game: Game[Any, Any], data: st.DataObject) -> None:
    core = new_room(game)
    players = [join(core, f"P{i}") for i in range(max(2, game.min_players))]
    core.frame(players[0], p.Start(type="start"), at(1))
    spectator = join(core, "Spec", 2)
    everyone = [*players, spectator]
    actions = _actions(game)
    for step in range(8):
        sender = data.draw(st.sampled_from(everyone))
        action = data.draw(actions)
        match = match_of(core)
        before = match.version if match else None
        effects = core.frame(sender, p.Action(type="action", action=action, ref=step),
                             at(3 + step))
        errors = [f for f in frames_to(effects, sender) if f["type"] == "error"]
        if errors:
            assert [(e["code"] in REFUSED, e.get("ref")) for e in errors] == [(True, step)]
            assert match_of(core) is not None and match_of(core).version == before
            for other in everyone:
                if other is not sender:
                    assert frames_to(effects, other) == []
        else:
            assert match_of(core).version == before + 1
