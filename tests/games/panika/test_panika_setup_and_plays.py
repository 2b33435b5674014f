"""Setup, number and vegetable cards, drawing, turn order (rulebook "Setup", "How to Play")."""

from collections import Counter

import pytest

from app.engine import IllegalAction, MalformedAction, NotYourTurn, SeededRng
from app.games.panika import GAME
from app.games.panika.cards import CARDS

from .panika_helpers import act, build, play, tap, total_cards


def test_deck_has_120_cards_with_rulebook_counts():
    assert [c.id for c in CARDS] == list(range(120))
    counts = Counter((c.kind, c.value, c.vegetable, c.special) for c in CARDS)
    assert {v: counts[("number", v, None, None)] for v in range(5)} == {
        0: 8, 1: 18, 2: 20, 3: 10, 4: 10}
    for veg in ("tomato", "broccoli", "carrot"):
        assert counts[("vegetable", None, veg, None)] == 10
    assert counts[("special", None, None, "reverse")] == 6
    assert counts[("special", None, None, "play_two")] == 8
    assert counts[("special", None, None, "tap")] == 10


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_setup_deals_all_cards_equally_four_in_hand(players):
    state = GAME.setup(players, GAME.parse_options({}), SeededRng(b"deal"))
    assert total_cards(state) == 120 and not state.discard
    assert all(len(h) == 4 for h in state.hands)
    assert all(len(h) + len(p) == 120 // players for h, p in zip(state.hands, state.piles))
    assert sorted([c for h in state.hands for c in h] + [c for p in state.piles for c in p]) \
        == list(range(120))


@pytest.mark.parametrize("players", [1, 7])
def test_setup_rejects_player_counts_outside_two_to_six(players):
    with pytest.raises(ValueError):
        GAME.setup(players, GAME.parse_options({}), SeededRng(b"x"))


def test_start_player_is_a_seeded_random_choice():
    starts = {GAME.setup(4, GAME.parse_options({}), SeededRng(b"s%d" % i)).turn for i in range(40)}
    assert starts == {0, 1, 2, 3}
    a = GAME.setup(4, GAME.parse_options({}), SeededRng(b"same"))
    b = GAME.setup(4, GAME.parse_options({}), SeededRng(b"same"))
    assert (a.turn, a.hands, a.piles, a.burst_at) == (b.turn, b.hands, b.piles, b.burst_at)


def test_first_round_starts_clockwise_counter_zero_secret_in_range():
    state = GAME.setup(3, GAME.parse_options({}), SeededRng(b"r"))
    assert state.counter == 0 and state.direction == 1 and state.round == 1
    assert 21 <= state.burst_at <= 30


def test_number_card_taps_its_value():
    state, _ = build([["3", "1", "1", "1"], ["1"] * 4], [5, 5])
    three = state.hands[0][0]
    play(state, 0, three)
    assert state.phase == "tapping" and state.tap_queue == [[0, 3]]
    tap(state, 0, 3)
    assert state.counter == 3 and state.turn == 1 and state.phase == "play"
    assert state.discard[-1] == three


def test_zero_card_taps_nothing_and_passes_turn():
    state, _ = build([["0", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    assert state.counter == 0 and state.phase == "play" and state.turn == 1


def test_one_vegetable_taps_five():
    state, _ = build([["carrot", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    assert state.tap_queue == [[0, 5]]
    tap(state, 0, 5)
    assert state.counter == 5 and state.turn == 1


def test_two_identical_vegetables_together_tap_nothing():
    state, _ = build([["tomato", "tomato", "1", "1"], ["1"] * 4], [5, 5])
    a, b = state.hands[0][:2]
    play(state, 0, a, b)
    assert state.counter == 0 and state.phase == "play" and state.turn == 1
    assert state.discard[-2:] == [a, b]
    assert len(state.hands[0]) == 4 and len(state.piles[0]) == 3


def test_one_of_two_identical_vegetables_alone_taps_five():
    state, _ = build([["tomato", "tomato", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    assert state.tap_queue == [[0, 5]]
    assert sum(CARDS[c].vegetable == "tomato" for c in state.hands[0]) == 1


@pytest.mark.parametrize("pair", [["tomato", "carrot"], ["1", "2"], ["carrot", "3"],
                                  ["tap", "reverse"]])
def test_two_cards_only_identical_vegetables_without_play_two(pair):
    state, _ = build([pair + ["1", "1"], ["1"] * 4], [5, 5])
    with pytest.raises(IllegalAction):
        play(state, 0, *state.hands[0][:2])


def test_play_out_of_turn_is_rejected():
    state, _ = build([["1"] * 4, ["1"] * 4], [5, 5])
    with pytest.raises(NotYourTurn):
        play(state, 1, state.hands[1][0])


def test_play_of_a_card_not_in_hand_is_rejected():
    state, _ = build([["1"] * 4, ["2"] * 4], [5, 5])
    with pytest.raises(IllegalAction):
        play(state, 0, state.hands[1][0])


def test_play_during_tapping_is_rejected():
    state, _ = build([["3", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    with pytest.raises(IllegalAction):
        play(state, 1, state.hands[1][0])


@pytest.mark.parametrize("raw", [
    {"type": "play"}, {"type": "play", "cards": []}, {"type": "play", "cards": [1, 2, 3]},
    {"type": "play", "cards": [120]}, {"type": "tap", "extra": 1}, {"type": "dance"}, "tap", None,
])
def test_malformed_actions_are_rejected(raw):
    with pytest.raises(MalformedAction):
        GAME.parse_action(raw)


def test_the_same_card_twice_is_malformed():
    state, _ = build([["tomato", "1", "1", "1"], ["1"] * 4], [5, 5])
    with pytest.raises(MalformedAction):
        play(state, 0, state.hands[0][0], state.hands[0][0])


def test_draw_back_to_four_at_end_of_turn():
    state, _ = build([["3", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    assert len(state.hands[0]) == 3  # no draw while tapping for the play
    tap(state, 0, 3)
    assert len(state.hands[0]) == 4 and len(state.piles[0]) == 4


def test_draw_takes_the_top_of_the_pile():
    state, _ = build([["0", "1", "1", "1"], ["1"] * 4], [["2", "4"], 0])
    top = state.piles[0][-1]
    play(state, 0, state.hands[0][0])
    assert top in state.hands[0] and len(state.piles[0]) == 1


def test_empty_pile_plays_on_with_hand_only():
    state, _ = build([["0", "1", "1", "1"], ["1"] * 4], [0, 5])
    play(state, 0, state.hands[0][0])
    assert len(state.hands[0]) == 3 and state.phase == "play" and state.turn == 1


def test_turn_order_is_clockwise_by_increasing_seat():
    state, _ = build([["0"] * 2 + ["1"] * 2, ["0", "1", "1", "1"], ["0", "1", "1", "1"]],
                     [3, 3, 3], turn=2)
    play(state, 2, next(c for c in state.hands[2] if CARDS[c].value == 0))
    assert state.turn == 0
    play(state, 0, state.hands[0][0])
    assert state.turn == 1


def test_last_card_from_the_system_is_refused():
    state, _ = build([["1"] * 4, ["1"] * 4], [5, 5])
    with pytest.raises(IllegalAction):
        act(state, None, {"type": "last_card"})
