"""Details docs/games/panika.md states exactly so that a model built from it matches the engine:
timer labels and order, the direction's two values, hand and legal-list order, the bot's Play
Two pair, event seats, the `last_card` mark, and the view once the match is over."""

import pytest

from app.engine import IllegalAction, MalformedAction, NotYourTurn, SeededRng
from app.games.panika import GAME

from .panika_helpers import act, build, play, tap


def test_timers_carry_the_labels_turn_tap_and_last_card_in_that_order():
    state, _ = build([["2", "0"], ["1"] * 4], [0, 5])
    assert [t.label for t in GAME.timers(state)] == ["Turn"]
    play(state, 0, state.hands[0][0])  # 2 taps, then one card left: a window opens
    assert [t.label for t in GAME.timers(state)] == ["Tap"]
    tap(state, 0, 2)
    timers = GAME.timers(state)
    assert [(t.label, t.key.split(":")[0], t.visible) for t in timers] == [
        ("Turn", "turn", True), ("Last card!", "lastcard", False)]
    assert GAME.legal_actions(state, None) == [
        {"type": "timeout"}, {"type": "close_last_card"}]


def test_direction_reads_counterclockwise_after_a_reverse():
    state, _ = build([["reverse", "1", "1", "1"], ["1"] * 4, ["1"] * 4], [5, 5, 5])
    assert GAME.view(state, None)["direction"] == "clockwise"
    play(state, 0, state.hands[0][0])
    assert GAME.view(state, None)["direction"] == "counterclockwise" and state.turn == 2


def test_reverse_with_two_players_gives_no_reverse_event():
    state, _ = build([["reverse", "1", "1", "1"], ["1"] * 4], [5, 5])
    events = play(state, 0, state.hands[0][0])
    assert [e.kind for e in events] == ["play"]
    assert GAME.view(state, None)["direction"] == "clockwise" and state.turn == 1


def test_hand_keeps_the_order_cards_came_in_and_legal_plays_follow_it():
    """The singles in hand order, then two identical vegetables in both orders (either is
    accepted: issue 25, item 3), by the hand position of the first card, then the second."""
    state, _ = build([["carrot", "1", "carrot", "tomato"], ["1"] * 4], [["2", "3"], 5])
    hand = list(state.hands[0])
    carrot_a, one, carrot_b, tomato = hand
    assert [c["id"] for c in GAME.view(state, 0)["hand"]] == hand
    assert [a["cards"] for a in GAME.legal_actions(state, 0)] == [
        [carrot_a], [one], [carrot_b], [tomato], [carrot_a, carrot_b], [carrot_b, carrot_a]]
    three = state.piles[0][-1]
    play(state, 0, one)  # then draws the pile's top (the 3) at the end of the hand
    tap(state, 0)
    assert state.hands[0] == [carrot_a, carrot_b, tomato, three]


def test_play_two_legal_pairs_go_by_the_hand_position_of_the_first_then_second_card():
    state, _ = build([["1", "2", "3"], ["1"] * 4], [0, 5], play_two=0)
    a, b, c = state.hands[0]
    assert [x["cards"] for x in GAME.legal_actions(state, 0) if x["type"] == "play"] == [
        [a, b], [a, c], [b, a], [b, c], [c, a], [c, b]]


def test_timeout_under_play_two_plays_the_pair_whose_play_taps_fewest():
    # Two identical vegetables (0 taps as a play) beat a 1 and a 2 (3 taps).
    state, _ = build([["1", "tomato", "2", "tomato"], ["1"] * 4], [5, 5], play_two=0)
    tomatoes = sorted(state.hands[0][1::2])
    act(state, None, {"type": "timeout"})
    assert state.last_play == {"seat": 0, "cards": tomatoes, "taps": 0}


def test_timeout_under_play_two_ties_go_to_the_lowest_first_then_second_id():
    state, _ = build([["reverse", "play2", "tap", "1"], ["1"] * 4], [5, 5], play_two=0)
    specials = sorted(state.hands[0][:3])
    act(state, None, {"type": "timeout"})
    assert state.last_play["cards"] == specials[:2]


def test_special_events_carry_the_seat_of_the_player_whose_card_acted():
    state, _ = build([["reverse", "1", "1", "1"], ["tap"] * 1 + ["1"] * 3, ["1"] * 4],
                     [5, 5, 5], turn=1)
    events = play(state, 1, state.hands[1][0])
    assert [(e.kind, e.seat, e.data) for e in events if e.kind == "tap_card"] == [
        ("tap_card", 1, {})]
    state, _ = build([["reverse", "1", "1", "1"], ["1"] * 4, ["1"] * 4], [5, 5, 5])
    events = play(state, 0, state.hands[0][0])
    assert [(e.kind, e.seat, e.data) for e in events if e.kind == "reverse"] == [
        ("reverse", 0, {})]


def test_last_card_mark_is_cleared_when_the_caller_takes_penalty_cards():
    # Seat 1 called and kept one card; then bursts on a Tap! tap: the penalty clears the mark.
    state, _ = build([["tap", "1", "1", "1"], ["2"], ["1"] * 4], [5, 0, 5],
                     counter=20, burst_at=21)
    state.last_card_called[1] = True
    play(state, 0, state.hands[0][0])
    tap(state, 1)
    assert state.last_burst["seat"] == 1
    assert [p["last_card"] for p in GAME.view(state, None)["players"]] == [False] * 3


def test_view_once_over_clears_turn_tapping_and_play_two_but_keeps_the_counter():
    state, _ = build([["play2"], ["1"] * 4], [0, 5], counter=7)
    play(state, 0, state.hands[0][0])
    view = GAME.view(state, 1)
    assert view["phase"] == "over" and view["winners"] == [0]
    assert (view["turn"], view["tapping"], view["play_two"], view["tap_queue"]) == (
        None, None, None, [])
    assert view["counter"] == 7 and view["legal"] == {
        "play": False, "cards": 0, "taps": 0, "last_card_due": False}


def test_penalty_takes_the_hand_card_at_the_rng_position():
    state, _ = build([["1", "2", "3", "4"], ["0"]], [0, 0], turn=1)
    state.window = 1
    hand = list(state.hands[0])
    rng = SeededRng(b"pos")
    index = SeededRng(b"pos").randbelow(4)
    act(state, None, {"type": "close_last_card"}, rng)
    assert state.piles[1] == [hand[index]]
    assert state.hands[0] == hand[:index] + hand[index + 1:]


def test_error_precedence_the_same_card_twice_from_the_wrong_seat_is_not_your_turn():
    state, _ = build([["1", "1", "1", "1"], ["1"] * 4], [5, 5])
    theirs, mine = state.hands[0][0], state.hands[1][0]
    with pytest.raises(NotYourTurn):
        play(state, 1, mine, mine)
    with pytest.raises(MalformedAction):
        play(state, 0, 119, 119)  # the same card twice is checked before "not in your hand"
    with pytest.raises(IllegalAction):
        play(state, 0, theirs, mine)
    play(state, 0, theirs)  # now taps are owed: a play is IllegalAction whoever sends it
    with pytest.raises(IllegalAction):
        play(state, 1, mine, mine)


def test_two_tomatoes_are_tomatoes_in_the_event_and_in_the_english_catalog():
    """Issue 25, item 13: the plural was written "Tomatos" (engine text and the English texts)."""
    import json
    from pathlib import Path

    state, _ = build([["tomato", "tomato", "1", "1"], ["1"] * 4], [5, 5])
    events = play(state, 0, state.hands[0][0], state.hands[0][1])
    assert events[0].text == "{seat:0} plays two Tomatoes"
    texts = Path(__file__).resolve().parents[3] / "app/games/panika/texts/en.json"
    catalog = json.loads(texts.read_text())
    assert catalog["event.panika.plural.tomato"] == "Tomatoes"
    assert "Tomatos" not in json.dumps(catalog)
