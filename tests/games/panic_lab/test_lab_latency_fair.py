"""Latency-fair arbitration: reaction = at_ms - reveal_at_ms - min(rtt_ms, 300)."""

from __future__ import annotations

import pytest

from app.engine import IllegalAction
from app.games.panic_lab import GAME
from app.games.panic_lab.game import settle_window_ms

from .rings import answer, claim, start, system, wrong_tiles

REVEAL = 10_000


def revealed(players: int = 3, **options):
    state, rng = start(players, latency_fair=True, **options)
    system(state, rng, "reveal", REVEAL)
    return state, rng


def settle_timer(state):
    (timer,) = GAME.timers(state)
    assert timer.action == {"type": "settle"}
    return timer


def test_later_arriving_claim_with_smaller_reaction_wins():
    state, rng = revealed()
    # A arrives first: 450 ms after the reveal on a 20 ms line -> reaction 430.
    claim(state, rng, 0, answer(state), at_ms=REVEAL + 450, rtt_ms=20)
    assert state.phase == "settling" and state.tokens == [0, 0, 0]
    # B arrives 100 ms later on a 250 ms line -> reaction 300: quicker.
    claim(state, rng, 1, answer(state), at_ms=REVEAL + 550, rtt_ms=250)
    assert state.phase == "settling"
    events = system(state, rng, "settle", REVEAL + 730)
    assert state.tokens == [0, 1, 0]
    assert events[0].text == "{seat:1} found it in 300 ms!"
    claims = state.last_round["claims"]
    assert claims == [
        {"seat": 0, "tile": answer(state), "correct": True, "reaction_ms": 430},
        {"seat": 1, "tile": answer(state), "correct": True, "reaction_ms": 300},
    ]
    assert state.last_round["winner"] == 1


def test_first_claim_keeps_the_token_when_nobody_beats_it():
    state, rng = revealed()
    claim(state, rng, 0, answer(state), at_ms=REVEAL + 450, rtt_ms=20)
    claim(state, rng, 1, answer(state), at_ms=REVEAL + 700, rtt_ms=250)  # reaction 450
    system(state, rng, "settle", REVEAL + 730)
    assert state.tokens == [1, 0, 0]


@pytest.mark.parametrize("rtt,window", [(0, 300), (20, 280), (150, 150), (299, 1), (-5, 300)])
def test_settle_timer_length_equals_the_bound(rtt, window):
    state, rng = revealed()
    claim(state, rng, 0, answer(state), at_ms=REVEAL + 500, rtt_ms=rtt)
    assert settle_window_ms(rtt) == window
    assert settle_timer(state).seconds == pytest.approx(window / 1000)
    assert state.settle_deadline_ms == REVEAL + 500 + window


@pytest.mark.parametrize("rtt", [300, 450, 2000])
def test_no_window_when_the_first_rtt_reaches_the_cap(rtt):
    # Nobody can beat a claim whose rtt is credited in full: it wins at once.
    state, rng = revealed()
    claim(state, rng, 2, answer(state), at_ms=REVEAL + 800, rtt_ms=rtt)
    assert state.phase == "result" and state.tokens == [0, 0, 1]


def test_the_bound_is_exact_at_both_edges():
    # A: at 500, rtt 100 -> reaction 400, window 200, deadline 700.
    # B with the largest credit (300 ms): at 699 its reaction is 399 and it wins.
    state, rng = revealed()
    claim(state, rng, 0, answer(state), at_ms=REVEAL + 500, rtt_ms=100)
    claim(state, rng, 1, answer(state), at_ms=REVEAL + 699, rtt_ms=300)
    system(state, rng, "settle", REVEAL + 700)
    assert state.last_round["winner"] == 1
    # At 700 it could at best tie (400), and ties go to arrival order: the window is closed.
    state, rng = revealed()
    claim(state, rng, 0, answer(state), at_ms=REVEAL + 500, rtt_ms=100)
    with pytest.raises(IllegalAction, match="decided"):
        claim(state, rng, 1, answer(state), at_ms=REVEAL + 700, rtt_ms=300)


def test_claims_after_the_window_are_rejected_even_wrong_ones():
    state, rng = revealed()
    state.tokens[2] = 3
    claim(state, rng, 0, answer(state), at_ms=REVEAL + 500, rtt_ms=100)
    with pytest.raises(IllegalAction, match="decided"):
        claim(state, rng, 2, wrong_tiles(state)[0], at_ms=REVEAL + 900, rtt_ms=100)
    assert state.tokens[2] == 3 and 2 not in state.claimed
    system(state, rng, "settle", REVEAL + 700)
    with pytest.raises(IllegalAction, match="decided"):
        claim(state, rng, 2, answer(state), at_ms=REVEAL + 701)


def test_wrong_claim_in_the_window_still_costs_a_token_and_locks_out():
    state, rng = revealed()
    state.tokens[2] = 2
    claim(state, rng, 0, answer(state), at_ms=REVEAL + 500, rtt_ms=100)
    events = claim(state, rng, 2, wrong_tiles(state)[0], at_ms=REVEAL + 600, rtt_ms=100)
    assert events[0].kind == "wrong" and state.tokens[2] == 1 and 2 in state.locked
    assert state.phase == "settling"
    system(state, rng, "settle", REVEAL + 700)
    assert state.tokens == [1, 0, 1]


def test_ties_go_to_arrival_order():
    state, rng = revealed()
    claim(state, rng, 1, answer(state), at_ms=REVEAL + 500, rtt_ms=100)  # reaction 400
    claim(state, rng, 0, answer(state), at_ms=REVEAL + 600, rtt_ms=200)  # reaction 400
    system(state, rng, "settle", REVEAL + 700)
    assert state.last_round["winner"] == 1


def test_window_closes_early_when_everyone_has_claimed():
    state, rng = revealed(players=2)
    claim(state, rng, 0, answer(state), at_ms=REVEAL + 500, rtt_ms=50)
    claim(state, rng, 1, wrong_tiles(state)[0], at_ms=REVEAL + 520, rtt_ms=50)
    assert state.phase == "result" and state.tokens == [1, 0]


def test_wrong_claims_before_any_correct_one_and_all_wrong():
    state, rng = revealed(players=2)
    w = wrong_tiles(state)
    claim(state, rng, 0, w[0], at_ms=REVEAL + 500, rtt_ms=50)
    assert state.phase == "search"
    claim(state, rng, 1, w[1], at_ms=REVEAL + 600, rtt_ms=50)
    assert state.phase == "result" and state.last_round["winner"] is None
    assert [c["reaction_ms"] for c in state.last_round["claims"]] == [450, 550]


def test_search_timer_is_replaced_by_the_settle_timer():
    state, rng = revealed()
    claim(state, rng, 0, answer(state), at_ms=REVEAL + 500, rtt_ms=100)
    keys = [t.key for t in GAME.timers(state)]
    assert keys == ["settle:1"]
    with pytest.raises(IllegalAction):
        system(state, rng, "timeout", REVEAL + 60_000)


def test_normal_mode_results_carry_no_reaction_times():
    state, rng = start(2)
    system(state, rng, "reveal", REVEAL)
    claim(state, rng, 0, answer(state), at_ms=REVEAL + 500, rtt_ms=100)
    assert "reaction_ms" not in state.last_round["claims"][0]
