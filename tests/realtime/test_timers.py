"""Timers: the state frame's ``timers`` and system moves when they run out (the Panika turn
timer and auto-tap, shortened in-process: the server runs in the test's process)."""

from __future__ import annotations

import pytest

from app.realtime.room import protocol as p
from tests.realtime.core_helpers import at, join, of_type, room
from tests.realtime.helpers import room_of, shorten_timers, start_panika, wait_frame


def test_state_frames_carry_the_running_timers():
    """The turn timer's 30 s in the state frames; a play that owes taps replaces it by the 8 s
    tap timer (the room's core with the time named: the values are exact)."""
    core = room("panika")
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    effects = core.frame(ann, p.Start(type="start"), at(1))
    conns = {c.seat: c for c in (ann, bob)}
    t = 1.0
    for _ in range(20):  # turns until the player to move holds a card that owes taps
        states = {s: of_type(effects, c, "state")[-1] for s, c in conns.items()}
        turn = states[0]["view"]["turn"]
        for st in states.values():
            (timer,) = st["timers"]
            assert timer["key"].startswith("turn:")
            assert (timer["label"], timer["seats"], timer["remaining_ms"]) == (
                "Turn", [turn], 30_000)
        number = next((c for c in states[turn]["view"]["hand"] if c["kind"] == "vegetable"
                       or (c["kind"] == "number" and c["value"] > 0)), None)
        t += 2.5
        if number is not None:
            break
        # About 1 deal in 1,700 gives four cards that owe no taps: that turn plays one.
        play = next(a for a in states[turn]["legal"] if a["type"] == "play")
        effects = core.frame(conns[turn], p.Action(type="action", action=play), at(t))
    else:
        raise AssertionError("no hand held a card that owes taps")
    effects = core.frame(conns[turn], p.Action(type="action", action={
        "type": "play", "cards": [number["id"]]}), at(t))
    st = of_type(effects, ann, "state")[-1]
    assert [(x["label"], x["seats"], x["remaining_ms"]) for x in st["timers"]] == [
        ("Tap", [turn], 8_000)]


@pytest.fixture
def short_timers(monkeypatch):
    """Every Panika timer lasts 0.3 s at most (the engine's timers, wrapped)."""
    shorten_timers(monkeypatch, "panika", 0.3)


def test_turn_and_tap_timers_play_for_an_absent_player(server, open_client, short_timers):
    code, clients = room_of(server, open_client, "panika", 2)
    states = start_panika(clients)
    assert states[0]["timers"][0]["remaining_ms"] <= 300
    turn = states[0]["view"]["turn"]
    # Nobody moves: the turn timer plays a card for the seat to play.
    st = wait_frame(clients[0], lambda f: f["type"] == "state" and f["version"] == 1, timeout=10)
    assert any(e["kind"] == "timeout" and e["seat"] == turn for e in st["events"])
    # Whatever that play owed is tapped by the tap timer, and play goes on by itself.
    auto = wait_frame(clients[0], lambda f: f["type"] == "state"
                      and any(e["kind"] in ("auto_tap", "timeout") for e in f["events"])
                      and f["version"] >= 2, timeout=10)
    assert auto["version"] >= 2
    match = server.registry.get(code).state.match
    assert match.log[0].seat is None and match.log[0].action == {"type": "timeout"}
    assert all(m.seat is None for m in match.log)
    assert {m.action["type"] for m in match.log} <= {"timeout", "auto_tap", "close_last_card"}


def test_a_kept_timer_shows_who_is_still_to_roll():
    """Panique's roll for the first turn: one timer for the round whose seats are the heirs
    still to roll (docs/games/panique.md, "Timers"); the room shows the engine's latest seats
    and keeps the round's deadline (app/realtime/room/timers.py)."""
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
