"""The rulebook's two worked examples, step by step. Seats: Nicole 0, Brendon 1, Ryan 2."""

from app.games.panika import GAME
from app.games.panika.cards import CARDS

from .panika_helpers import build, play, tap, total_cards

NICOLE, BRENDON, RYAN = 0, 1, 2


def sizes(state):
    return [len(h) for h in state.hands], [len(p) for p in state.piles]


def test_rulebook_example_number_vegetable_play_two():
    # 3 players, 40 cards each: 4 in hand, 36 in the pile.
    state, _ = build([["3", "3", "4", "1"], ["carrot", "1", "1", "1"], ["play2", "1", "1", "1"]],
                     [36, 36, 36], turn=NICOLE, burst_at=30)
    assert total_cards(state) == 120 and not state.discard

    # Nicole plays a 3 and taps 3 times; she draws a card.
    three = state.hands[NICOLE][0]
    play(state, NICOLE, three)
    tap(state, NICOLE, 3)
    assert state.counter == 3 and state.discard == [three]
    assert sizes(state) == ([4, 4, 4], [35, 36, 36]) and state.turn == BRENDON

    # Brendon plays a single carrot and taps 5 times: 8. He draws a card.
    carrot = state.hands[BRENDON][0]
    play(state, BRENDON, carrot)
    tap(state, BRENDON, 5)
    assert state.counter == 8 and state.discard[-1] == carrot
    assert sizes(state) == ([4, 4, 4], [35, 35, 36]) and state.turn == RYAN

    # Ryan plays Play Two, does not tap, and draws a card.
    play_two = state.hands[RYAN][0]
    play(state, RYAN, play_two)
    assert state.counter == 8 and state.phase == "play" and state.discard[-1] == play_two
    assert sizes(state) == ([4, 4, 4], [35, 35, 35])
    assert state.turn == NICOLE and state.play_two == NICOLE
    assert GAME.view(state, NICOLE)["legal"]["cards"] == 2

    # Nicole plays a 3 and a 4, taps 7 times: 15. She draws two cards.
    pair = [c for c in state.hands[NICOLE] if CARDS[c].value in (3, 4)][:2]
    assert sorted(CARDS[c].value for c in pair) == [3, 4]
    play(state, NICOLE, *pair)
    assert state.tap_queue == [[NICOLE, 7]]
    tap(state, NICOLE, 7)
    assert state.counter == 15 and state.discard[-2:] == pair
    assert sizes(state) == ([4, 4, 4], [33, 35, 35]) and state.turn == BRENDON
    assert state.play_two is None and total_cards(state) == 120


def test_rulebook_example_tap_card_burst():
    state, _ = build([["tap", "1", "1", "1"], ["1"] * 4, ["1"] * 4], [10, 10, 10],
                     turn=NICOLE, counter=21, burst_at=23)
    nicole_top, brendon_top = state.piles[NICOLE][-2], state.piles[BRENDON][-1]

    # Nicole plays Tap!: she does not tap, and draws a card.
    play(state, NICOLE, state.hands[NICOLE][0])
    assert state.counter == 21 and sizes(state) == ([4, 4, 4], [9, 10, 10])
    assert state.tap_queue == [[BRENDON, 1], [RYAN, 1]]

    # Brendon taps: 22, no burst; he played no card, so he draws none.
    tap(state, BRENDON)
    assert state.counter == 22 and sizes(state) == ([4, 4, 4], [9, 10, 10])

    # Ryan taps: it bursts. Nicole and Brendon each give him their pile's top card.
    events = tap(state, RYAN)
    assert any(e.text == "{seat:2} bursts the counter at 23!" for e in events)
    assert sizes(state) == ([4, 4, 4], [8, 9, 12])
    assert set(state.piles[RYAN][-2:]) == {nicole_top, brendon_top}
    assert state.penalty_cards == [0, 0, 2]

    # The counter resets to 0 and Nicole begins the next round.
    assert state.counter == 0 and state.round == 2 and state.turn == NICOLE
    assert state.direction == 1 and state.phase == "play"
    assert GAME.view(state, None)["last_burst"] == {"seat": RYAN, "number": 23, "round": 1}
