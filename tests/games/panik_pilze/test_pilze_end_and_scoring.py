"""The end of the game and the scoring (rulebook "End of the Game and Scoring", "Scoring",
"Two-Player Game"; docs/games/panik-pilze.md, decisions 9 to 11)."""

import pytest

from app.engine import IllegalAction
from app.games.panik_pilze import GAME
from app.games.panik_pilze.scoring import score_type
from tests.endings import said

from .pilze_helpers import act, build, card, counts

DISPLAY = [("chef", "gifti"), ("panik", "chef"), ("chef", "knuddel"), ("gifti", "schlaubi")]


# --- the end ---------------------------------------------------------------------------------

def test_end_during_a_draw_action_the_player_still_collects() -> None:
    """docs/games/panik-pilze.md, decision 10: after a Draw action that empties the pile the
    player still collects."""
    state = build([["chef-draw2", "steal", "steal"], ["party"]], display=DISPLAY,
                  pile=[("gifti", "chef")])  # a short pile gives what it has: one card
    events = act(state, 0, {"type": "collect", "card": card("chef-draw2", state, 0)})
    assert counts(state, 0) == {"chef": 3}
    assert state.phase == "over" and state.end_cause == "draw"
    assert [e.kind for e in events][-2:] == ["end", "win"]
    assert len(state.hands[0]) == 2  # no refills after the end
    assert GAME.outcome(state) is not None
    with pytest.raises(IllegalAction, match="over"):
        act(state, 1, {"type": "party", "card": state.hands[1][0], "mushroom": "chef"})


def test_the_last_turn_a_match_may_have_ends_it_scored_as_any_end() -> None:
    """docs/games/panik-pilze.md, "The bound": swaps lay out no card, so a table that only swaps
    would never empty the pile; turn 300 ends the game after its refills, scored as at any end.
    The game's bound is that turn: one move is one turn."""
    from app.engine import SeededRng
    from app.games.panik_pilze.rules import MAX_TURNS
    from app.games.panik_pilze.scoring import score_baskets, totals

    assert MAX_TURNS == 300 and GAME.max_moves == MAX_TURNS
    rng = SeededRng(b"swaps for ever")
    state = GAME.setup(3, GAME.parse_options({}), rng)
    act(state, state.turn, GAME.legal_actions(state, state.turn)[0], rng=rng)  # collects
    for turn in range(2, MAX_TURNS + 1):
        assert state.phase == "play", turn
        events = act(state, state.turn, {"type": "swap", "cards": [state.hands[state.turn][0]]},
                     rng=rng)
    assert state.phase == "over" and state.end_cause == "limit" and state.turns_played == 300
    end = [e for e in events if e.kind == "end"]
    assert [(e.text, e.data) for e in end] == [(
        "The game reached its limit of 300 turns: the game ends",
        {"cause": "limit", "n": 300, "msg": "end_limit"})]
    assert [e.kind for e in events][-2:] == ["end", "win"]
    assert len(state.hands[(state.turn)]) == 3  # the last turn's refills were made
    outcome = GAME.outcome(state)
    scores = totals(score_baskets([state.basket_counts(s) for s in range(3)]), 3)
    assert outcome is not None and outcome.scores == scores
    assert outcome.ending == "turn_limit" and outcome.details["turns"] == 300
    assert said("panik_pilze", outcome).startswith("Turn 300 was the last: P")
    assert said("panik_pilze", outcome, "de").startswith("Zug 300 war der letzte: P")
    assert GAME.view(state, None)["end_cause"] == "limit" and GAME.timers(state) == []
    with pytest.raises(IllegalAction, match="over"):
        act(state, state.turn, {"type": "swap", "cards": [state.hands[state.turn][0]]}, rng=rng)


def test_end_during_the_refill_comes_at_once() -> None:
    """The last card laid out in the refill ends the game: the refill stops there and the next
    player does not play."""
    state = build([["chef-turn1", "steal", "steal"], ["party"]], display=DISPLAY,
                  pile=[("panik", "schlaubi")])
    act(state, 0, {"type": "collect", "card": card("chef-turn1", state, 0), "flip": [4]})
    # Flipped: gifti to schlaubi; two chef taken, two cards left; one on the pile to lay out.
    assert state.phase == "over" and state.end_cause == "refill"
    assert len(state.display) == 3  # only one card was left to lay out
    assert GAME.active_seats(state) == [] and GAME.legal_actions(state, 1) == []


def test_a_refill_that_does_not_empty_the_pile_goes_on() -> None:
    state = build([["chef-turn1", "steal", "steal"], ["party"]], display=DISPLAY,
                  pile=[("panik", "schlaubi"), ("gifti", "knuddel"), ("chef", "panik")])
    act(state, 0, {"type": "collect", "card": card("chef-turn1", state, 0), "flip": [4]})
    assert state.phase == "play" and len(state.display) == 4 and len(state.pile) == 1


# --- scoring, 3 to 5 players ---------------------------------------------------------------

def test_most_second_third_score_three_two_one() -> None:
    assert score_type([5, 3, 2, 1], "chef") == [3, 2, 1, 0]


def test_two_tied_first_places_score_three_each_and_the_next_scores_one() -> None:
    assert score_type([4, 4, 2, 1], "gifti") == [3, 3, 1, 0]


def test_a_three_way_tie_for_first_scores_three_each_and_nobody_else_scores() -> None:
    assert score_type([2, 2, 2, 1, 1], "knuddel") == [3, 3, 3, 0, 0]


def test_a_tie_for_second_place_shares_the_two_points() -> None:
    assert score_type([5, 2, 2, 1], "schlaubi") == [3, 2, 2, 0]


def test_zero_cards_of_a_type_score_nothing_even_in_a_top_three_place() -> None:
    assert score_type([3, 1, 0], "chef") == [3, 2, 0]
    assert score_type([0, 0, 0], "chef") == [0, 0, 0]


def test_panik_first_place_scores_four_and_a_tie_for_it_scores_four_each() -> None:
    assert score_type([3, 2, 1], "panik") == [4, 2, 1]
    assert score_type([3, 3, 1], "panik") == [4, 4, 1]


# --- scoring, 2 players --------------------------------------------------------------------

def test_two_players_only_the_most_scores_one_point() -> None:
    assert score_type([3, 1], "chef") == [1, 0]


def test_two_players_panik_most_scores_two() -> None:
    assert score_type([1, 4], "panik") == [0, 2]


def test_two_players_a_tie_scores_both_and_zero_scores_nothing() -> None:
    assert score_type([2, 2], "gifti") == [1, 1]
    assert score_type([2, 2], "panik") == [2, 2]
    assert score_type([0, 0], "chef") == [0, 0]
    assert score_type([1, 0], "chef") == [1, 0]


# --- outcome -----------------------------------------------------------------------------------

def _finished(baskets: list[dict[str, int]]):
    hands = [["steal"], ["steal"], ["steal"], ["party"], ["party"]][: len(baskets)]
    state = build(hands, display=DISPLAY, pile=0, baskets=baskets)
    state.phase = "over"
    return state


def test_outcome_totals_the_pad_and_the_best_total_wins() -> None:
    state = _finished([{"chef": 3, "panik": 1}, {"chef": 1, "panik": 2}, {"gifti": 1}])
    outcome = GAME.outcome(state)
    # chef 3/2/0, panik 2/4/0, gifti 0/0/3.
    assert outcome.scores == [5, 6, 3]
    assert outcome.winners == [1] and outcome.ranks == [2, 1, 3]
    assert outcome.ending == "pile_empty" and outcome.details == {"n": 6}
    assert said("panik_pilze", outcome) == "The pile is empty: P1 wins with 6 points"
    assert said("panik_pilze", outcome, "de") == (
        "Der Stapel ist leer: P1 gewinnt mit 6 Punkten")
    view = GAME.view(state, None)
    assert view["score"]["totals"] == [5, 6, 3]
    assert view["score"]["by_type"]["panik"] == [2, 4, 0]
    assert view["winners"] == [1]


def test_equal_totals_share_the_victory() -> None:
    state = _finished([{"chef": 2}, {"gifti": 2}, {"knuddel": 1}])
    outcome = GAME.outcome(state)
    assert outcome.scores == [3, 3, 3] and outcome.winners == [0, 1, 2]
    assert outcome.ranks == [1, 1, 1]
    # Three or more names read as a list ("A, B and C"), as the event catalog's {seats:...}
    # writes them, so the ending's sentence and the win event's wording agree.
    assert said("panik_pilze", outcome) == "The pile is empty: P0, P1 and P2 win with 3 points"
    from app.i18n.events import event_text

    assert event_text("en", "panik_pilze", "win", None,
                      {"winners": [0, 1, 2], "n": 3, "msg": "win_shared"}, "") == (
        "{seat:0}, {seat:1} and {seat:2} win with 3 points")


def test_two_player_outcome() -> None:
    state = _finished([{"panik": 2, "chef": 1}, {"panik": 2, "chef": 3, "gifti": 1}])
    outcome = GAME.outcome(state)
    assert outcome.scores == [2, 4] and outcome.winners == [1]
