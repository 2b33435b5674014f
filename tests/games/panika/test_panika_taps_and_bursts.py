"""Tapping the counter, bursting, penalty cards, rounds (rulebook "The Panika App", "End of the
Round", "Penalty Cards"; docs/games/panika.md Tapping and Penalty)."""

import pytest

from app.engine import IllegalAction, NotYourTurn, SeededRng
from app.games.panika import GAME, rules

from .panika_helpers import act, build, play, tap, total_cards


def test_taps_beyond_what_is_owed_are_rejected():
    state, _ = build([["2", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    tap(state, 0, 2)
    with pytest.raises(IllegalAction):
        tap(state, 0)
    assert state.counter == 2


def test_tap_with_nothing_owed_is_rejected():
    state, _ = build([["2", "1", "1", "1"], ["1"] * 4], [5, 5])
    with pytest.raises(IllegalAction):
        tap(state, 0)


def test_tap_from_a_seat_that_owes_nothing_is_rejected():
    state, _ = build([["2", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    with pytest.raises(IllegalAction):
        tap(state, 1)


def test_each_tap_adds_one_and_is_one_action():
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    for owed in (3, 2, 1):
        tap(state, 0)
        assert state.counter == 4 - owed
        assert state.tap_queue == [[0, owed]]


def test_counter_bursts_on_the_tap_reaching_the_number_rest_void():
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4, ["1"] * 4], [5, 5, 5],
                     counter=19, burst_at=21)
    play(state, 0, state.hands[0][0])
    tap(state, 0)
    assert state.counter == 20 and state.last_burst is None
    events = tap(state, 0)
    assert state.last_burst == {"seat": 0, "number": 21, "round": 1}
    assert any(e.kind == "burst" and "21" in e.text for e in events)
    assert state.tap_queue == [] and state.phase == "play" and state.counter == 0
    with pytest.raises(IllegalAction):
        tap(state, 0)  # the remaining 2 taps are void


def test_burst_penalty_top_card_of_each_other_pile():
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4, ["1"] * 4], [5, 5, 5],
                     counter=20, burst_at=21)
    tops = [state.piles[1][-1], state.piles[2][-1]]
    play(state, 0, state.hands[0][0])
    tap(state, 0)
    assert [len(p) for p in state.piles] == [5 + 2 - 1, 4, 4]
    assert state.penalty_cards == [2, 0, 0]
    # The penalty cards went on top of the burster's pile, then it drew one back up to 4.
    assert tops[0] in state.piles[0] or tops[0] in state.hands[0]
    assert state.hands[0][-1] == tops[1]


def test_burst_penalty_from_hand_when_pile_empty():
    state, _ = build([["4", "1", "1", "1"], ["2", "3"], ["1"] * 4], [5, 0, 5],
                     counter=20, burst_at=21)
    hand1 = list(state.hands[1])
    play(state, 0, state.hands[0][0])
    tap(state, 0)
    assert len(state.hands[1]) == 1 and len(state.piles[1]) == 0
    given = (set(hand1) - set(state.hands[1])).pop()
    assert given in state.piles[0] or given in state.hands[0]
    assert total_cards(state) == 120


def test_burst_penalty_random_hand_card_comes_from_the_rng():
    given = set()
    for i in range(30):
        state, _ = build([["4", "1", "1", "1"], ["2", "3", "4", "0"]], [5, 0],
                         counter=20, burst_at=21)
        hand1 = list(state.hands[1])
        rng = SeededRng(b"hand%d" % i)
        play(state, 0, state.hands[0][0], rng=rng)
        tap(state, 0, rng=rng)
        given |= set(hand1) - set(state.hands[1])
    assert len(given) == 4


def test_penalty_giver_with_no_cards_gives_nothing():
    state, _ = build([["1"] * 4, [], ["1"] * 4], [5, 0, 5])
    rules.give_penalty(state, 0, SeededRng(b"x"))
    assert len(state.piles[0]) == 6 and state.penalty_cards[0] == 1


def test_burst_next_round_left_neighbour_clockwise_new_number():
    state, _ = build([["1"] * 4, ["1"] * 4, ["1"] * 4, ["1"] * 4], [5] * 4, counter=20,
                     burst_at=21, turn=3, direction=-1)
    play(state, 3, state.hands[3][0])
    tap(state, 3)
    assert state.round == 2 and state.counter == 0 and state.direction == 1
    assert state.turn == 0  # the left neighbour of seat 3, clockwise
    assert 21 <= state.burst_at <= 30


def test_burster_who_played_draws_after_the_penalty():
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4, ["1"] * 4], [0, 5, 5],
                     counter=20, burst_at=21)
    play(state, 0, state.hands[0][0])
    tap(state, 0)
    assert len(state.hands[0]) == 4 and len(state.piles[0]) == 1


def test_tapper_who_bursts_on_a_tap_card_does_not_draw():
    state, _ = build([["tap", "1", "1", "1"], ["1", "1", "1"], ["1"] * 4], [5, 0, 5],
                     counter=20, burst_at=21)
    play(state, 0, state.hands[0][0])
    tap(state, 1)
    assert len(state.hands[1]) == 3 and len(state.piles[1]) == 2


def test_auto_tap_completes_all_remaining_taps_of_the_tapper():
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    tap(state, 0)
    [timer] = GAME.timers(state)
    assert timer.seconds == 8 and timer.action == {"type": "auto_tap"} and timer.seats == (0,)
    act(state, None, timer.action)
    assert state.counter == 4 and state.turn == 1 and state.phase == "play"


def test_auto_tap_stops_at_the_burst():
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4], [5, 5], counter=18, burst_at=20)
    play(state, 0, state.hands[0][0])
    act(state, None, {"type": "auto_tap"})
    assert state.last_burst == {"seat": 0, "number": 20, "round": 1}
    assert state.counter == 0 and state.round == 2


def test_auto_tap_covers_only_the_current_tapper_of_a_tap_card():
    state, _ = build([["tap", "1", "1", "1"], ["1"] * 4, ["1"] * 4], [5, 5, 5])
    play(state, 0, state.hands[0][0])
    act(state, None, {"type": "auto_tap"})
    assert state.counter == 1 and state.tap_queue == [[2, 1]]


def test_auto_tap_timer_key_changes_on_every_tap():
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    keys = [GAME.timers(state)[0].key]
    for _ in range(3):
        tap(state, 0)
        keys.append(GAME.timers(state)[0].key)
    assert len(set(keys)) == 4 and all(k.startswith("autotap:") for k in keys)


@pytest.mark.parametrize("action", ["auto_tap", "close_last_card", "timeout"])
def test_system_only_actions_are_rejected_from_players(action):
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4], [5, 5])
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": action})


@pytest.mark.parametrize("action", [{"type": "tap"}, {"type": "play", "cards": [0]}])
def test_player_actions_are_rejected_from_the_system(action):
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    with pytest.raises(IllegalAction):
        act(state, None, action)


def test_tap_while_not_yet_your_turn_to_tap_is_not_your_turn():
    state, _ = build([["tap", "1", "1", "1"], ["1"] * 4, ["1"] * 4], [5, 5, 5])
    play(state, 0, state.hands[0][0])
    with pytest.raises(NotYourTurn):
        tap(state, 2)


def test_validate_never_mutates():
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4], [5, 5])
    from app.engine import Move
    before = repr(state)
    for raw, seat in [({"type": "tap"}, 0), ({"type": "play", "cards": [state.hands[1][0]]}, 1),
                      ({"type": "close_last_card"}, None), ({"type": "auto_tap"}, None)]:
        with pytest.raises(IllegalAction):
            GAME.validate(state, Move(seat, GAME.parse_action(raw)))
    assert repr(state) == before


def test_event_order_of_a_burst_burst_penalty_round():
    # Rulebook, "End of the Round": the burster takes penalty cards, then the next round begins
    # with the burster's left neighbour (docs/games/panika.md, decision 13: the order).
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4, ["1"] * 4], [5, 5, 5],
                     counter=19, burst_at=20)
    play(state, 0, state.hands[0][0])
    events = act(state, None, {"type": "auto_tap"})
    assert [e.kind for e in events] == ["auto_tap", "burst", "penalty", "round"]
    assert events[1].data == {"number": 20} and events[2].data["n"] == 2
    assert events[3].seat == 1 and events[3].data == {"round": 2}


def test_auto_tap_gives_one_tap_event_with_the_final_counter():
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    events = act(state, None, {"type": "auto_tap"})
    taps = [e for e in events if e.kind == "tap"]
    assert [e.kind for e in events][:2] == ["auto_tap", "tap"]
    assert len(taps) == 1 and taps[0].data == {"counter": 4} and taps[0].transient


def test_event_order_play_two_special_after_the_last_tap():
    # Rulebook, "Play Two": tap first, then the special acts; its event follows the last tap.
    state, _ = build([["1", "play2", "1", "1"], ["1"] * 4, ["1"] * 4], [5, 5, 5], play_two=0)
    one, p2 = state.hands[0][0], state.hands[0][1]
    assert [e.kind for e in act(state, 0, {"type": "play", "cards": [one, p2]})] == ["play"]
    assert [e.kind for e in tap(state, 0)] == ["tap", "play_two"]
    assert state.play_two == 1 and state.turn == 1
