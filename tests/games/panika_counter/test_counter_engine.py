"""The stand-alone Panika counter (docs/games/panika-counter.md, Stand-alone counter)."""

import json

import pytest

from app.engine import IllegalAction, MalformedAction, Move, SeededRng
from app.engine.replay import replay
from app.games.panika_counter import GAME
from app.games.panika_counter.game import CounterState
from tests.endings import said
from tests.stats import uniform_p


def new(players=3, burst_at=25, seed=b"c"):
    rng = SeededRng(seed)
    state = GAME.setup(players, GAME.parse_options({}), rng)
    state.burst_at = burst_at
    return state, rng


def act(state, rng, seat, kind):
    return GAME.step(state, Move(seat, GAME.parse_action({"type": kind})), rng)


def test_counter_starts_at_zero_with_secret_in_21_to_30():
    state = GAME.setup(2, GAME.parse_options({}), SeededRng(b"x"))
    assert state.counter == 0 and state.phase == "counting" and state.round == 1
    assert 21 <= state.burst_at <= 30


def test_counter_tap_adds_one():
    state, rng = new()
    act(state, rng, 0, "tap")
    act(state, rng, 0, "tap")
    assert state.counter == 2


def test_counter_back_subtracts_one_not_below_zero():
    state, rng = new()
    act(state, rng, 0, "tap")
    act(state, rng, 1, "back")
    assert state.counter == 0
    act(state, rng, 1, "back")
    assert state.counter == 0


def test_counter_reset_goes_to_zero():
    state, rng = new()
    for _ in range(7):
        act(state, rng, 2, "tap")
    act(state, rng, 0, "reset")
    assert state.counter == 0 and state.phase == "counting"


def test_counter_bursts_at_the_secret_number():
    state, rng = new(burst_at=21)
    for _ in range(20):
        act(state, rng, 0, "tap")
    assert state.phase == "counting" and GAME.view(state, 0)["last_burst"] is None
    events = act(state, rng, 1, "tap")
    assert state.phase == "burst" and state.counter == 21
    assert events[0].kind == "burst" and "21" in events[0].text
    assert GAME.view(state, None)["last_burst"] == {"seat": 1, "number": 21, "round": 1}


def test_counter_burst_cannot_be_undone():
    state, rng = new(burst_at=21)
    for _ in range(21):
        act(state, rng, 0, "tap")
    for kind in ("back", "reset", "tap"):
        with pytest.raises(IllegalAction):
            act(state, rng, 0, kind)
    assert state.counter == 21 and state.phase == "burst"


def test_counter_new_round_by_timer_after_three_seconds():
    state, rng = new(burst_at=21)
    assert GAME.timers(state) == []
    for _ in range(21):
        act(state, rng, 0, "tap")
    [timer] = GAME.timers(state)
    assert timer.seconds == 3 and timer.action == {"type": "new_round"}
    act(state, rng, None, "new_round")
    assert state.phase == "counting" and state.counter == 0 and state.round == 2
    assert 21 <= state.burst_at <= 30
    assert GAME.view(state, None)["last_burst"]["number"] == 21  # the previous round's


def test_counter_any_player_may_start_the_new_round_early():
    state, rng = new(burst_at=21)
    for _ in range(21):
        act(state, rng, 0, "tap")
    act(state, rng, 2, "new_round")
    assert state.phase == "counting" and state.round == 2


def test_counter_new_round_only_after_a_burst():
    state, rng = new()
    with pytest.raises(IllegalAction):
        act(state, rng, 0, "new_round")
    with pytest.raises(IllegalAction):
        act(state, rng, None, "new_round")


def test_counter_new_round_draws_a_new_number_each_time():
    state, rng = new()
    numbers = []
    for _ in range(3000):
        state.phase = "burst"
        act(state, rng, None, "new_round")
        numbers.append(state.burst_at)
    counts = [numbers.count(n) for n in range(21, 31)]
    assert uniform_p(counts) > 0.001


def test_counter_taps_from_several_seats_all_count():
    state, rng = new(players=10, burst_at=30)
    for seat in range(10):
        act(state, rng, seat, "tap")
        act(state, rng, seat, "tap")
    assert state.counter == 20 and state.taps == [2] * 10
    assert GAME.view(state, 4)["taps"] == [2] * 10


def test_counter_only_players_tap():
    state, rng = new()
    with pytest.raises(IllegalAction):
        act(state, rng, None, "tap")
    with pytest.raises(IllegalAction):
        act(state, rng, 3, "tap")


def test_counter_view_never_shows_the_secret():
    state, rng = new(burst_at=27)
    for seat in (None, 0, 1):
        view = GAME.view(state, seat)
        json.dumps(view)
        assert set(view) == {"counter", "phase", "round", "last_burst", "taps", "you"}
        assert view["last_burst"] is None


def test_counter_match_never_ends_and_everyone_is_active():
    state, rng = new(players=4)
    assert GAME.outcome(state) is None and GAME.active_seats(state) == [0, 1, 2, 3]
    assert GAME.min_players == 1 and GAME.max_players == 10


def test_counter_rejects_unknown_actions():
    for raw in ({"type": "tap", "n": 2}, {"type": "burst"}, {}):
        with pytest.raises(MalformedAction):
            GAME.parse_action(raw)


def test_counter_replay_is_identical():
    rng = SeededRng(b"rp")
    state = GAME.setup(2, GAME.parse_options({}), rng)
    log = []
    for i in range(80):
        kind = "new_round" if state.phase == "burst" else ("back" if i % 7 == 6 else "tap")
        seat = None if kind == "new_round" else i % 2
        GAME.step(state, Move(seat, GAME.parse_action({"type": kind})), rng)
        log.append(Move(seat, {"type": kind}))
    again = replay(GAME, 2, {}, b"rp", log).state
    assert isinstance(again, CounterState)
    assert GAME.view(again, None) == GAME.view(state, None) and again.burst_at == state.burst_at


def test_counter_legal_actions_list_every_action_a_seat_may_send():
    # Every action the engine accepts is listed in the frame's `legal`, and nothing else: a
    # player may start the next round early after a burst (docs/games/panika-counter.md).
    state, rng = new(burst_at=21)
    assert GAME.legal_actions(state, 0) == [
        {"type": "tap"}, {"type": "back"}, {"type": "reset"}, {"type": "new_counter"}]
    assert GAME.legal_actions(state, None) == []
    for _ in range(21):
        act(state, rng, 0, "tap")
    assert state.phase == "burst"
    assert GAME.legal_actions(state, 1) == [{"type": "new_round"}, {"type": "new_counter"}]
    assert GAME.legal_actions(state, None) == [{"type": "new_round"}]
    for seat in (None, 0, 1, 2):
        for raw in GAME.legal_actions(state, seat):
            GAME.validate(state, Move(seat, GAME.parse_action(raw)))
    act(state, rng, 1, "new_round")
    assert state.phase == "counting" and state.round == 2


def test_counter_refuses_a_seat_outside_the_table():
    state, rng = new(players=2)
    for kind in ("tap", "new_round", "new_counter"):
        with pytest.raises(IllegalAction):
            act(state, rng, 5, kind)
    assert not state.ended


def test_counter_outcome_without_a_burst_says_none_and_ranks_everyone_first():
    # A counter has no winner (docs/games/panika-counter.md, "Seed reveal").
    state, rng = new(players=10)
    act(state, rng, 3, "tap")
    act(state, rng, 3, "new_counter")
    outcome = GAME.outcome(state)
    assert outcome.ending == "new_counter"
    assert outcome.details == {"n": 1, "bursts": "–", "limit": 10_000}
    assert said("panika_counter", outcome) == "Counter of 1 round; bursts at: –"
    assert said("panika_counter", outcome, "de") == "Zähler mit 1 Runde; geplatzt bei: –"
    assert outcome.winners == [] and outcome.ranks == [1] * 10
    assert outcome.scores == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert GAME.view(state, None)["you"] is None and len(GAME.view(state, 0)["taps"]) == 10
