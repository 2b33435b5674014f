"""Details docs/games/panic-lab.md promises beyond the rulebook: the order of a claim's refusals
("Refusals"), each event's data ("Events"), the timers' labels ("Rounds and timers")."""

from __future__ import annotations

import pytest

from app.engine import IllegalAction, MalformedAction, Move, NotYourTurn
from app.games.panic_lab import GAME

from .rings import answer, claim, start, system, wrong_tiles


def _refusal(state, seat, tile, at_ms=3500):  # type: ignore[no-untyped-def]
    """The error class and message ``validate`` gives a claim (None: accepted)."""
    try:
        GAME.validate(state, Move(seat, GAME.parse_action({"type": "claim", "tile": tile}), at_ms))
    except (IllegalAction, MalformedAction, NotYourTurn) as error:
        return type(error), str(error)
    return None


def _lab_or_vent(state) -> int:  # type: ignore[no-untyped-def]
    return next(i for i, t in enumerate(state.ring) if t.type in ("lab", "vent"))


def test_the_refusals_come_in_the_documented_order():
    state, rng = start(3)
    outside = len(state.ring)
    # 1. Who, the check every game shares: the system, a seat outside the table.
    assert _refusal(state, None, 0, 100) == (IllegalAction, "only a player may send claim")
    assert _refusal(state, None, outside, 100) == (IllegalAction, "only a player may send claim")
    assert _refusal(state, 7, 0, 100) == (IllegalAction, "there is no seat 7")
    assert _refusal(state, 7, outside, 100) == (IllegalAction, "there is no seat 7")
    # 2. A tile outside the ring, in every phase (D4).
    assert _refusal(state, 0, outside, 100) == (MalformedAction, "tile: must be below 25")
    # 3. The phase.
    assert _refusal(state, 0, _lab_or_vent(state), 100) == (IllegalAction, "wait for the dice")
    system(state, rng, "reveal", 3000)
    # 4. A lab or a vent, 5. an earlier claim.
    wrong = wrong_tiles(state)[0]
    claim(state, rng, 0, wrong, at_ms=3200)
    assert _refusal(state, 0, _lab_or_vent(state)) == (
        IllegalAction, "a lab or a vent is never the answer")
    assert _refusal(state, 0, answer(state)) == (IllegalAction, "you have already claimed this round")
    assert _refusal(state, 0, outside)[0] is MalformedAction
    claim(state, rng, 1, answer(state), at_ms=3600)  # the round ends
    assert _refusal(state, 2, _lab_or_vent(state)) == (IllegalAction, "this round is decided")
    assert _refusal(state, 2, outside)[0] is MalformedAction


def test_a_claim_after_the_latency_fair_window_is_decided_even_from_a_seat_that_claimed():
    state, rng = start(3, latency_fair=True)
    system(state, rng, "reveal", 3000)
    claim(state, rng, 0, answer(state), at_ms=3500, rtt_ms=100)
    assert state.phase == "settling" and state.settle_deadline_ms is not None
    late = state.settle_deadline_ms
    assert _refusal(state, 1, answer(state), late) == (IllegalAction, "this round is decided")
    assert _refusal(state, 0, answer(state), late) == (
        IllegalAction, "you have already claimed this round")


@pytest.mark.parametrize("latency_fair", [False, True])
def test_each_event_carries_the_data_the_doc_lists(latency_fair):
    state, rng = start(3, latency_fair=latency_fair, target_tokens=2)
    (reveal,) = system(state, rng, "reveal", 3000)
    assert reveal.kind == "reveal" and set(reveal.data) == {"dice"}
    (wrong,) = claim(state, rng, 0, wrong_tiles(state)[0], at_ms=3200)
    assert wrong.kind == "wrong" and wrong.data == {"tokens": 0, "msg": "wrong"}
    events = claim(state, rng, 1, answer(state), at_ms=3600, rtt_ms=40)
    if latency_fair:
        assert [e.kind for e in events] == ["claim"] and events[0].data in (None, {})
        events = system(state, rng, "settle", state.settle_deadline_ms)
    (found,) = [e for e in events if e.kind == "found"]
    expected = {"answer": state.last_round["answer"], "tokens": 1,
                "msg": "found_timed" if latency_fair else "found"}
    if latency_fair:
        expected["ms"] = state.last_round["claims"][-1]["reaction_ms"]
    assert found.data == expected and found.seat == 1
    (round_event,) = system(state, rng, "next_round", 20000)
    assert round_event.kind == "round" and round_event.data == {"round": 2}
    system(state, rng, "reveal", 23000)
    (timeout,) = system(state, rng, "timeout", 83000)
    assert timeout.kind == "timeout" and set(timeout.data) == {"answer"}


def test_the_timers_labels():
    state, rng = start(3, latency_fair=True)
    labels = [t.label for t in GAME.timers(state)]
    system(state, rng, "reveal", 3000)
    labels += [t.label for t in GAME.timers(state)]
    claim(state, rng, 0, answer(state), at_ms=3500, rtt_ms=100)
    labels += [t.label for t in GAME.timers(state)]
    system(state, rng, "settle", state.settle_deadline_ms)
    labels += [t.label for t in GAME.timers(state)]
    assert labels == ["Dice in", "Time left", "Comparing reaction times", "Next roll in"]
