"""Reverse, Play Two and Tap! (rulebook "Special Cards"; docs/games/panika.md)."""

import pytest

from app.engine import IllegalAction, NotYourTurn

from .panika_helpers import build, play, tap, total_cards


def four_players(hand0, **kw):
    return build([hand0, ["1"] * 4, ["1"] * 4, ["1"] * 4], [5, 5, 5, 5], **kw)


# --- Reverse ---------------------------------------------------------------------------------

def test_reverse_previous_player_plays_next():
    state, _ = build([["1"] * 4, ["reverse", "1", "1", "1"], ["1"] * 4, ["1"] * 4],
                     [5, 5, 5, 5], turn=1)
    play(state, 1, state.hands[1][0])
    assert state.counter == 0 and state.direction == -1 and state.turn == 0


def test_reverse_direction_persists_for_following_turns():
    state, _ = build([["0", "1", "1", "1"], ["reverse", "1", "1", "1"], ["0", "1", "1", "1"],
                      ["0", "1", "1", "1"]],
                     [5, 5, 5, 5], turn=1)
    play(state, 1, state.hands[1][0])
    play(state, 0, state.hands[0][0])
    assert state.turn == 3
    play(state, 3, state.hands[3][0])
    assert state.turn == 2


def test_reverse_two_reverses_restore_clockwise():
    state, _ = build([["reverse"] + ["0"] * 3, ["reverse", "1", "1", "1"], ["0"] * 4],
                     [5, 5, 5], turn=1)
    play(state, 1, state.hands[1][0])
    assert state.turn == 0
    play(state, 0, state.hands[0][0])
    assert state.direction == 1 and state.turn == 1


def test_reverse_two_players_has_no_effect():
    state, _ = build([["reverse", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    assert state.direction == 1 and state.turn == 1 and state.counter == 0


def test_new_round_resets_direction_to_clockwise():
    state, _ = build([["1"] * 4, ["reverse", "1", "1", "1"], ["4"] * 4], [5, 5, 5], turn=1,
                     counter=20, burst_at=21)
    play(state, 1, state.hands[1][0])
    assert state.direction == -1 and state.turn == 0
    play(state, 0, state.hands[0][0])
    tap(state, 0)  # bursts at 21
    assert state.direction == 1 and state.round == 2 and state.turn == 1


# --- Play Two --------------------------------------------------------------------------------

def play_two_state(hand1, **kw):
    """Seat 0 has a Play Two; seat 1 holds ``hand1``; seat 2 holds four 1s."""
    return build([["play2", "1", "1", "1"], hand1, ["1"] * 4], [5, 5, 5], **kw)


def test_play_two_next_player_must_play_two():
    state, _ = play_two_state(["1", "2", "1", "1"])
    play(state, 0, state.hands[0][0])
    assert state.play_two == 1 and state.turn == 1 and state.counter == 0
    with pytest.raises(IllegalAction):
        play(state, 1, state.hands[1][0])


def test_play_two_two_numbers_tap_their_sum():
    state, _ = play_two_state(["3", "4", "1", "1"])
    play(state, 0, state.hands[0][0])
    play(state, 1, *state.hands[1][:2])
    assert state.tap_queue == [[1, 7]]
    tap(state, 1, 7)
    assert state.counter == 7 and state.turn == 2 and state.play_two is None


def test_play_two_number_and_vegetable_add_five():
    state, _ = play_two_state(["2", "carrot", "1", "1"])
    play(state, 0, state.hands[0][0])
    play(state, 1, *state.hands[1][:2])
    assert state.tap_queue == [[1, 7]]


def test_play_two_two_identical_vegetables_tap_zero():
    state, _ = play_two_state(["carrot", "carrot", "1", "1"])
    play(state, 0, state.hands[0][0])
    play(state, 1, *state.hands[1][:2])
    assert state.counter == 0 and state.phase == "play" and state.turn == 2


def test_play_two_two_different_vegetables_tap_ten():
    state, _ = play_two_state(["carrot", "tomato", "1", "1"])
    play(state, 0, state.hands[0][0])
    play(state, 1, *state.hands[1][:2])
    assert state.tap_queue == [[1, 10]]


def test_play_two_draws_two():
    state, _ = play_two_state(["1", "2", "1", "1"])
    play(state, 0, state.hands[0][0])
    play(state, 1, *state.hands[1][:2])
    tap(state, 1, 3)
    assert len(state.hands[1]) == 4 and len(state.piles[1]) == 3


def test_play_two_number_and_special_taps_then_special_acts():
    state, _ = play_two_state(["3", "reverse", "1", "1"])
    play(state, 0, state.hands[0][0])
    play(state, 1, *state.hands[1][:2])
    assert state.tap_queue == [[1, 3]] and state.direction == 1
    tap(state, 1, 3)
    assert state.counter == 3 and state.direction == -1 and state.turn == 0


def test_play_two_special_first_in_order_still_taps_first():
    state, _ = play_two_state(["play2", "4", "1", "1"])
    play(state, 0, state.hands[0][0])
    play(state, 1, *state.hands[1][:2])
    assert state.tap_queue == [[1, 4]] and state.play_two is None
    tap(state, 1, 4)
    assert state.play_two == 2 and state.turn == 2


def test_play_two_special_not_triggered_when_counter_bursts():
    state, _ = play_two_state(["4", "play2", "1", "1"], counter=18, burst_at=21)
    play(state, 0, state.hands[0][0])
    play(state, 1, *state.hands[1][:2])
    tap(state, 1, 3)
    assert state.last_burst == {"seat": 1, "number": 21, "round": 1}
    assert state.play_two is None and state.turn == 2 and state.phase == "play"
    assert state.tap_queue == [] and state.counter == 0


def test_play_two_with_tap_card_taps_then_others_tap():
    state, _ = play_two_state(["2", "tap", "1", "1"])
    play(state, 0, state.hands[0][0])
    play(state, 1, *state.hands[1][:2])
    tap(state, 1, 2)
    assert len(state.hands[1]) == 4  # drew two before the others tap
    assert state.tap_queue == [[2, 1], [0, 1]]
    tap(state, 2)
    tap(state, 0)
    assert state.counter == 4 and state.turn == 1 and state.play_two is None


def test_play_two_two_specials_only_the_second_acts():
    state, deck = play_two_state(["reverse", "play2", "1", "1"])
    play(state, 0, state.hands[0][0])
    reverse, play2 = state.hands[1][:2]
    play(state, 1, reverse, play2)
    assert state.direction == 1 and state.play_two == 2 and state.turn == 2


def test_play_two_two_specials_player_chooses_the_order():
    state, deck = play_two_state(["reverse", "play2", "1", "1"])
    play(state, 0, state.hands[0][0])
    reverse, play2 = state.hands[1][:2]
    play(state, 1, play2, reverse)
    assert state.direction == -1 and state.play_two is None and state.turn == 0


def test_play_two_with_one_card_takes_penalty_counter_stays_next_plays_normally():
    state, _ = build([["play2", "1", "1", "1"], ["3"], ["1"] * 4], [5, 0, 5], counter=9)
    play(state, 0, state.hands[0][0])
    # Seat 1 cannot play: the others give it a card each; the counter stays; seat 2 plays.
    assert state.counter == 9 and state.turn == 2 and state.play_two is None
    assert len(state.hands[1]) == 1 and len(state.piles[1]) == 2
    assert len(state.piles[0]) == 3 and len(state.piles[2]) == 4  # 0 drew one, then gave one
    assert state.penalty_cards[1] == 2
    play(state, 2, state.hands[2][0])  # a single card: no Play Two pending for seat 2
    assert state.tap_queue == [[2, 1]]
    assert total_cards(state) == 120


# --- Tap! ------------------------------------------------------------------------------------

def test_tap_card_others_tap_once_in_direction_then_tapper_again():
    state, _ = four_players(["tap", "1", "1", "1"], turn=0)
    play(state, 0, state.hands[0][0])
    assert state.phase == "tapping" and state.tap_queue == [[1, 1], [2, 1], [3, 1]]
    with pytest.raises(NotYourTurn):
        tap(state, 2)  # one at a time, from the next player
    tap(state, 1)
    tap(state, 2)
    tap(state, 3)
    assert state.counter == 3 and state.phase == "play" and state.turn == 0
    assert [len(h) for h in state.hands] == [4, 4, 4, 4]  # tappers do not draw
    assert [len(p) for p in state.piles] == [4, 5, 5, 5]


def test_tap_card_player_draws_right_after_playing():
    state, _ = four_players(["tap", "1", "1", "1"])
    play(state, 0, state.hands[0][0])
    assert len(state.hands[0]) == 4 and len(state.piles[0]) == 4 and state.counter == 0


def test_tap_card_taps_follow_the_reversed_direction():
    state, _ = four_players(["tap", "1", "1", "1"], turn=0, direction=-1)
    play(state, 0, state.hands[0][0])
    assert state.tap_queue == [[3, 1], [2, 1], [1, 1]]


def test_tap_card_two_players_other_taps_once():
    state, _ = build([["tap", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    assert state.tap_queue == [[1, 1]]
    tap(state, 1)
    assert state.turn == 0 and state.phase == "play"


def test_tap_card_burst_during_taps_ends_round():
    state, _ = four_players(["tap", "1", "1", "1"], counter=20, burst_at=22)
    play(state, 0, state.hands[0][0])
    tap(state, 1)
    tap(state, 2)
    assert state.last_burst["seat"] == 2 and state.round == 2 and state.turn == 3
    assert state.tap_queue == [] and state.counter == 0
