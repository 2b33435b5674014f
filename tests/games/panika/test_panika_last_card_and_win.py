""""Last card!" and the end of the game (rulebook "End of the Game"; docs/games/panika.md "Last
card", "Win check")."""

import pytest

from app.engine import IllegalAction, SeededRng
from app.games.panika import GAME
from app.games.panika.cards import CARDS
from tests.endings import said

from .panika_helpers import act, build, play, tap, total_cards


def last_card_state(**kw):
    """Seat 0 holds a 0 and a 2 with an empty pile; playing one leaves one card."""
    return build([["0", "2"], ["1"] * 4, ["1"] * 4], [0, 5, 5], **kw)


def test_last_card_forgotten_penalty_when_window_times_out():
    state, _ = last_card_state()
    play(state, 0, state.hands[0][0])
    assert state.window == 0 and state.turn == 1
    timer = [t for t in GAME.timers(state) if t.key.startswith("lastcard:")][0]
    assert timer.seconds == 3 and timer.action == {"type": "close_last_card"}
    events = act(state, None, timer.action)
    assert any(e.kind == "last_card_forgotten" for e in events)
    assert len(state.piles[0]) == 2 and len(state.hands[0]) == 1 and state.counter == 0
    assert state.window is None and state.turn == 1


def test_last_card_forgotten_counter_stays():
    state, _ = last_card_state(counter=14)
    play(state, 0, state.hands[0][0])
    act(state, None, {"type": "close_last_card"})
    assert state.counter == 14 and state.round == 1


def test_last_card_called_during_the_turn_no_penalty():
    state, _ = last_card_state()
    act(state, 0, {"type": "last_card"})
    play(state, 0, state.hands[0][0])
    assert state.window is None and state.last_card_called[0]
    assert not any(t.key.startswith("lastcard:") for t in GAME.timers(state))


def test_last_card_called_while_tapping_for_the_play_no_penalty():
    state, _ = last_card_state()
    play(state, 0, state.hands[0][1])  # the 2: two taps
    act(state, 0, {"type": "last_card"})
    tap(state, 0, 2)
    assert state.window is None and state.last_card_called[0] and len(state.piles[0]) == 0


def test_last_card_called_within_the_window_no_penalty():
    state, _ = last_card_state()
    play(state, 0, state.hands[0][0])
    events = act(state, 0, {"type": "last_card"})
    assert any(e.kind == "last_card" for e in events)
    assert state.window is None and state.last_card_called[0]
    play(state, 1, state.hands[1][0])
    assert len(state.piles[0]) == 0


def test_last_card_window_closes_when_next_player_acts_penalty_before_the_play():
    state, _ = last_card_state()
    play(state, 0, state.hands[0][0])
    events = play(state, 1, state.hands[1][0])
    kinds = [e.kind for e in events]
    assert kinds.index("last_card_forgotten") < kinds.index("play")
    assert len(state.piles[0]) == 2 and state.window is None
    # Seat 1 gave its top pile card before playing and drawing back up.
    assert len(state.piles[1]) == 5 - 1 and state.tap_queue == [[1, 1]]


def test_last_card_late_call_after_window_closed_is_refused():
    state, _ = last_card_state()
    play(state, 0, state.hands[0][0])
    act(state, None, {"type": "close_last_card"})
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": "last_card"})
    assert len(state.piles[0]) == 2


def test_last_card_false_call_is_refused_and_changes_nothing():
    """docs/games/panika.md, decision 10: a false call changes nothing and is refused (so it is
    never logged as a move)."""
    state, _ = build([["1"] * 4, ["1"] * 4], [5, 5])
    before = repr(state)
    with pytest.raises(IllegalAction):
        act(state, 1, {"type": "last_card"})  # not its turn
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": "last_card"})  # its turn cannot end with one card
    assert repr(state) == before


def test_last_card_second_call_in_the_turn_is_false():
    state, _ = last_card_state()
    act(state, 0, {"type": "last_card"})
    before = repr(state)
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": "last_card"})
    assert repr(state) == before


def test_last_card_call_with_more_cards_left_is_dropped_at_end_of_turn():
    # Two carrots and a 1 with an empty pile: playing the carrots would leave one card, so the
    # call counts; playing the 1 leaves two, and the call is dropped at the end of the turn.
    state, _ = build([["carrot", "carrot", "1"], ["1"] * 4], [0, 5])
    act(state, 0, {"type": "last_card"})
    assert state.last_card_called[0]
    one = next(c for c in state.hands[0] if CARDS[c].kind == "number")
    play(state, 0, one)
    tap(state, 0)  # seat 0 taps for its own play, and its turn ends
    assert state.turn == 1
    assert not state.last_card_called[0] and state.window is None


def test_last_card_pressed_while_the_pile_held_the_last_card_counts():
    """Issue 7, item 15; docs/games/panika.md "Last card": "during the turn or within 3 s after it". One card
    in hand and one in the pile: the call is made before the play; the draw at the end of the
    turn takes the pile's card, leaving one card in hand and an empty pile: no window, no penalty.
    """
    state, _ = build([["0"], ["1"] * 4], [1, 5])
    assert len(state.piles[0]) == 1
    events = act(state, 0, {"type": "last_card"})
    assert [e.kind for e in events] == ["last_card"]
    play(state, 0, state.hands[0][0])
    assert len(state.hands[0]) == 1 and not state.piles[0]
    assert state.window is None and state.last_card_called[0]
    assert state.penalty_cards[0] == 0


def test_no_last_card_duty_while_the_pile_has_cards():
    state, _ = build([["0", "2"], ["1"] * 4], [1, 5])
    play(state, 0, state.hands[0][0])
    assert state.window is None and len(state.hands[0]) == 2


def test_last_card_window_opens_after_a_tap_card_and_closes_on_the_first_tap():
    state, _ = build([["tap", "2"], ["1"] * 4, ["1"] * 4], [0, 5, 5])
    play(state, 0, state.hands[0][0])
    assert state.window == 0
    tap(state, 1)
    assert state.window is None and len(state.piles[0]) == 2


def test_window_penalty_taking_the_card_to_be_played_voids_the_play():
    # Seat 1 has no pile, so its penalty card comes from its hand at random; if that was the
    # card it sent, the play is void and seat 1 chooses again.
    for i in range(40):
        state, _ = build([["0", "2"], ["3", "4"], ["1"] * 4], [0, 0, 5])
        rng = SeededRng(b"void%d" % i)
        play(state, 0, state.hands[0][0], rng=rng)
        turn_timer = [t.key for t in GAME.timers(state) if t.key.startswith("turn:")]
        chosen = state.hands[1][0]
        events = play(state, 1, chosen, rng=rng)
        if chosen not in state.hands[1] and state.last_play["seat"] == 0:
            assert [e.kind for e in events][-1] == "void"
            assert state.turn == 1 and state.phase == "play" and total_cards(state) == 120
            # The same turn goes on: its timer keeps its key, so it keeps running (not restarted).
            assert [t.key for t in GAME.timers(state) if t.key.startswith("turn:")] == turn_timer
            return
    pytest.fail("no seed gave the chosen card away")


def test_window_penalty_leaving_the_play_two_player_one_card_when_the_timer_closes_it():
    # Seat 0 plays Play Two and forgets "Last card!"; the window's timer closes it during seat
    # 1's turn and seat 1 (no pile) gives a hand card, keeping one: seat 1 cannot play two, so
    # takes the Play Two penalty and seat 0 plays next (rulebook, "Play Two", last bullet).
    state, _ = build([["play2", "1"], ["3", "4"]], [0, 0])
    play(state, 0, state.hands[0][0])
    assert state.window == 0 and state.turn == 1 and state.play_two == 1
    events = act(state, None, {"type": "close_last_card"})
    kinds = [e.kind for e in events]
    assert kinds[:2] == ["last_card_forgotten", "penalty"]
    assert any(e.data.get("msg") == "cannot_play_two" for e in events)
    assert state.turn == 0 and state.play_two is None and state.phase == "play"
    assert len(state.hands[1]) == 1 and total_cards(state) == 120
    assert GAME.timers(state)  # the match goes on: seat 0 has a turn timer


def test_win_when_the_last_card_is_played():
    state, _ = build([["2"], ["1"] * 4, ["1"] * 4], [0, 5, 5])
    play(state, 0, state.hands[0][0])
    assert state.phase == "tapping"  # not won until the play resolves
    tap(state, 0, 2)
    assert state.phase == "over" and state.winners == [0]
    outcome = GAME.outcome(state)
    assert outcome.winners == [0] and outcome.ranks[0] == 1


def test_win_when_two_vegetables_are_the_last_cards():
    state, _ = build([["carrot", "carrot"], ["1"] * 4], [0, 5])
    play(state, 0, *state.hands[0])
    assert state.winners == [0]


def test_win_after_a_last_tap_card_resolves():
    state, _ = build([["tap"], ["1"] * 4, ["1"] * 4], [0, 5, 5])
    play(state, 0, state.hands[0][0])
    assert state.phase == "tapping"
    tap(state, 1)
    tap(state, 2)
    assert state.winners == [0]


def test_burst_on_the_last_card_takes_penalty_and_game_continues():
    state, _ = build([["3"], ["1"] * 4, ["1"] * 4], [0, 5, 5], counter=18, burst_at=20)
    play(state, 0, state.hands[0][0])
    tap(state, 0, 2)
    assert state.phase == "play" and state.winners == []
    assert len(state.hands[0]) == 2 and len(state.piles[0]) == 0  # two penalty cards, drawn
    assert state.turn == 1 and state.round == 2


def test_penalty_taking_last_hand_card_wins():
    state, _ = build([["4", "1", "1", "1"], ["2"], ["1"] * 4], [5, 0, 5],
                     counter=20, burst_at=21)
    play(state, 0, state.hands[0][0])
    tap(state, 0)
    assert state.phase == "over" and state.winners == [1]


def test_penalty_from_a_forgotten_last_card_can_make_the_giver_win():
    state, _ = build([["0", "2"], ["1"], ["1"] * 4], [0, 0, 5], turn=0)
    play(state, 0, state.hands[0][0])
    act(state, None, {"type": "close_last_card"})
    assert state.winners == [1]


def test_everyone_without_cards_wins_together():
    state, _ = build([["4", "1", "1", "1"], ["2"], ["3"], ["1"] * 4], [5, 0, 0, 5],
                     counter=20, burst_at=21)
    play(state, 0, state.hands[0][0])
    tap(state, 0)
    assert state.winners == [1, 2]
    outcome = GAME.outcome(state)
    assert outcome.ranks[1] == outcome.ranks[2] == 1 and outcome.winners == [1, 2]
    assert outcome.ending == "cards_gone" and outcome.details == {}
    assert said("panika", outcome) == "P1 and P2 win: no cards left"
    assert said("panika", outcome, "de") == "P1 und P2 gewinnen: keine Karten mehr"


def test_outcome_ranks_others_by_fewest_cards_left_score_minus_cards():
    state, _ = build([["2"], ["1"] * 4, ["1"] * 4, ["1"] * 3], [0, 5, 2, 0])
    play(state, 0, state.hands[0][0])
    assert GAME.outcome(state) is None
    tap(state, 0, 2)
    outcome = GAME.outcome(state)
    assert outcome.scores == [0, -9, -6, -3]
    assert outcome.ranks == [1, 4, 3, 2]


def test_nothing_is_accepted_after_the_match_is_over():
    from app.engine import IllegalAction
    state, _ = build([["0"], ["1"] * 4], [0, 5])
    play(state, 0, state.hands[0][0])
    assert state.phase == "over" and GAME.timers(state) == [] and GAME.active_seats(state) == []
    for seat, raw in [(1, {"type": "play", "cards": [state.hands[1][0]]}),
                      (1, {"type": "last_card"}), (None, {"type": "timeout"})]:
        with pytest.raises(IllegalAction):
            act(state, seat, raw)


def test_last_card_call_by_another_seat_does_not_close_the_window():
    state, _ = last_card_state()
    play(state, 0, state.hands[0][0])
    with pytest.raises(IllegalAction):
        act(state, 2, {"type": "last_card"})
    assert state.window == 0 and len(state.piles[0]) == 0
