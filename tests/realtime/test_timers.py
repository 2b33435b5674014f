"""Timers: the state frame's ``timers`` and system moves when they run out (the Panika turn
timer and auto-tap, shortened in-process: the server runs in the test's process)."""

from __future__ import annotations

import dataclasses

import pytest

from app.engine import get_game
from app.realtime import protocol as p
from tests.realtime.core_helpers import at, join, of_type, room
from tests.realtime.helpers import room_of, start_panika, wait_frame


def test_state_frames_carry_the_running_timers(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    states = start_panika(clients)
    for st in states:
        assert [(t["key"], t["label"], t["seats"]) for t in st["timers"]] == [
            ("turn:1", "Turn", [st["view"]["turn"]])]
        assert 29_000 < st["timers"][0]["remaining_ms"] <= 30_000
    # A move that starts the tapping replaces the turn timer by the 8 s tap timer.
    turn = states[0]["view"]["turn"]
    mine = clients[turn].latest_state()["view"]
    number = next((c for c in mine["hand"] if c["kind"] == "vegetable"
                   or (c["kind"] == "number" and c["value"] > 0)), None)
    if number is None:  # about 1 in 1,700 deals: four cards that owe no taps
        pytest.skip("no card that owes taps in the first hand")
    since = len(clients[0].frames)
    clients[turn].action({"type": "play", "cards": [number["id"]]})
    st = wait_frame(clients[0], lambda f: f["type"] == "state", since)
    assert [(t["label"], t["seats"]) for t in st["timers"]] == [("Tap", [turn])]
    assert 7_000 < st["timers"][0]["remaining_ms"] <= 8_000


@pytest.fixture
def short_timers(monkeypatch):
    """Every Panika timer lasts 0.3 s at most (the engine's timers, wrapped)."""
    game = get_game("panika")
    original = type(game).timers

    def timers(state):
        return [dataclasses.replace(t, seconds=min(t.seconds, 0.3))
                for t in original(game, state)]

    monkeypatch.setattr(game, "timers", timers)
    return game


def test_turn_and_tap_timers_play_for_an_absent_player(server, open_client, short_timers):
    code, clients = room_of(server, open_client, "panika", 2)
    states = start_panika(clients)
    assert states[0]["timers"][0]["remaining_ms"] <= 300
    turn = states[0]["view"]["turn"]
    # Nobody moves: the turn timer plays a card for the seat to play.
    st = wait_frame(clients[0], lambda f: f["type"] == "state" and f["version"] == 1, timeout=3)
    assert any(e["kind"] == "timeout" and e["seat"] == turn for e in st["events"])
    # Whatever that play owed is tapped by the tap timer, and play goes on by itself.
    auto = wait_frame(clients[0], lambda f: f["type"] == "state"
                      and any(e["kind"] in ("auto_tap", "timeout") for e in f["events"])
                      and f["version"] >= 2, timeout=3)
    assert auto["version"] >= 2
    match = server.registry.get(code).match
    assert match.log[0].seat is None and match.log[0].action == {"type": "timeout"}
    assert all(m.seat is None for m in match.log)
    assert {m.action["type"] for m in match.log} <= {"timeout", "auto_tap", "close_last_card"}


def test_a_kept_timer_shows_who_is_still_to_roll():
    """Panique's roll for the first turn: one timer for the round whose seats are the heirs
    still to roll (docs/games/panique.md, "Timers"); the room shows the engine's latest seats
    and keeps the round's deadline (app/realtime/timers.py)."""
    core = room("panique")
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    cy, _ = join(core, "Cy")
    started = of_type(core.frame(ann, p.Start(type="start"), at(1)), ann, "state")
    (timer,) = started[-1]["timers"]
    assert timer["seats"] == [0, 1, 2]
    first = next(c for c in (ann, bob, cy) if c.seat == 0)
    roll = p.Action(type="action", action={"type": "roll"})
    rolled = of_type(core.frame(first, roll, at(3)), ann, "state")
    (after,) = rolled[-1]["timers"]
    assert after["key"] == timer["key"] and after["seats"] == [1, 2]
    assert after["remaining_ms"] == timer["remaining_ms"] - 2000
