"""Turns: the roll for the first player, lost turns that stack, the shared-space rest,
elimination and the roller hand-over, the vampire's ending, each victory, solo play, timers and
defaults (rulebook, "Playing the game" and "Special Victory Condition"; docs/games/panique.md)."""

from __future__ import annotations

import json

import pytest

from app.engine import IllegalAction, Move, NotYourTurn
from app.games.panique import GAME
from app.games.panique.rules import ROLL_SECONDS
from tests.endings import said

from .panique_helpers import act, choose, entry_ids, in_play, new_game, pending, roll

# --- the first player ------------------------------------------------------------------------

def test_everyone_rolls_and_the_highest_goes_first() -> None:
    state = new_game(3)
    assert state.phase == "order" and GAME.active_seats(state) == [0, 1, 2]
    assert GAME.view(state, None)["order_rolls"] == [None, None, None]
    roll(state, 3, seat=1)
    assert GAME.active_seats(state) == [0, 2]
    assert GAME.view(state, None)["order_rolls"] == [None, 3, None]
    roll(state, 7, seat=2)
    roll(state, 5, seat=0)
    assert state.first == 2 and state.phase == "play"
    # The Circle of Life is rolled by the player on the first player's left.
    assert pending(state) == ("circle", [0], None)
    roll(state, 6)
    assert state.circle == 6 and pending(state) == ("move", [2], None)


def test_tied_highest_roll_again() -> None:
    state = new_game(3)
    roll(state, 8, seat=0)
    roll(state, 2, seat=1)
    roll(state, 8, seat=2)
    assert pending(state) == ("order", [0, 2], None)
    with pytest.raises(NotYourTurn):
        roll(state, 5, seat=1)
    roll(state, 4, seat=0)
    roll(state, 6, seat=2)
    assert state.first == 2


def test_the_system_rolls_for_everyone_who_has_not_rolled() -> None:
    state = new_game(3)
    roll(state, 2, seat=1)
    with pytest.raises(NotYourTurn):
        roll(state, 2, seat=1)  # once each
    act(state, None, {"type": "roll"}, 5, 1)
    assert state.order_rolls == {1: 2, 0: 5, 2: 1} and state.first == 0


# --- lost turns ------------------------------------------------------------------------------

def test_lost_turns_stack_and_are_lost_one_per_turn() -> None:
    state = in_play(2, circle=4, spaces=[15, 0])
    state.heirs[0].lost_turns = 1
    roll(state, 6)  # 15 + 2 = 17, the Grandfather Clock: a second lost turn
    assert state.heirs[0].lost_turns == 2
    assert pending(state) == ("move", [1], None)
    roll(state, 7)  # heir 1: 0 + 3 = the Library
    assert state.heirs[0].lost_turns == 1 and pending(state) == ("move", [1], None)
    events = roll(state, 6)  # heir 1: 3 + 2 = the Slime Pit; heir 0 loses its second turn
    assert [e.kind for e in events if e.kind == "skip"] == ["skip"]
    assert state.heirs[0].lost_turns == 0 and pending(state) == ("move", [1], None)
    roll(state, 6)  # heir 1: 5 + 2 = 7, blank: the encounter is rolled by seat 0
    assert pending(state) == ("encounter", [0], None)
    roll(state, 2)  # the Black Cat
    roll(state, 3)  # a secret passage: forward one
    assert pending(state) == ("move", [0], None)  # heir 0 plays again


# --- the shared-space rest -------------------------------------------------------------------

def test_heirs_sharing_a_space_may_rest_each_in_turn() -> None:
    state = in_play(2, circle=4, spaces=[15, 17], lives=[2, 1])
    roll(state, 6)  # to 17, the Grandfather Clock, where heir 1 stands
    assert state.heirs[0].lost_turns == 1
    assert pending(state) == ("rest", [0], None)
    choose(state, "rest")
    assert (state.heirs[0].life, state.heirs[0].lost_turns) == (3, 2)
    assert pending(state) == ("rest", [1], None)
    events = choose(state, "rest")
    assert state.heirs[1].life == 2
    # Heir 1 loses its turn (the rest), heir 0 loses one of its two, heir 1 plays.
    assert [e.seat for e in events if e.kind == "skip"] == [1, 0]
    assert pending(state) == ("move", [1], None)
    assert (state.heirs[0].lost_turns, state.heirs[1].lost_turns) == (1, 0)


def test_rest_is_offered_at_three_life_points_keeps_three_and_loses_the_turn() -> None:
    """Decision 9: every heir on the shared space is asked, whatever their Life Points; resting
    at 3 forgoes the next turn and gains nothing (its own message, no `life` event); the default
    is still to keep going."""
    state = in_play(2, circle=4, spaces=[15, 17], lives=[3, 2])
    roll(state, 6)  # to 17, the Grandfather Clock (a turn to lose), where heir 1 stands
    assert pending(state) == ("rest", [0], None)
    options = GAME.view(state, 0)["pending"]["options"]
    assert options == [{"option": "rest",
                        "label": "Rest: forgo your next turn (already at 3 Life Points)"},
                       {"option": "stay", "label": "Keep going"}]
    events = choose(state, "rest")
    assert [(e.kind, e.data.get("msg")) for e in events] == [("rest", "rest_full"),
                                                             ("lost_turn", None)]
    assert events[0].text == "{seat:0} rests: forgoes the next turn (already at 3 Life Points)"
    assert (state.heirs[0].life, state.heirs[0].lost_turns) == (3, 2)
    assert pending(state) == ("rest", [1], None)
    assert GAME.view(state, 1)["pending"]["options"][0]["label"] == (
        "Rest: forgo your next turn, gain 1 Life Point")
    events = act(state, None, {"type": "timeout"})  # the default: keep going
    assert events[0].data["msg"] == "no_rest_late"
    assert (state.heirs[1].life, state.heirs[1].lost_turns) == (2, 0)
    assert pending(state) == ("move", [1], None)
    assert state.heirs[0].lost_turns == 2  # the Clock's and the rest's, lost when play reaches it
    # Both heirs at 3 Life Points: both are asked, and the default keeps going, no turn lost.
    state = in_play(2, circle=4, spaces=[0, 3], lives=[3, 3])
    roll(state, 7)  # forward 3 to the Library (already at 3), where heir 1 stands
    assert pending(state) == ("rest", [0], None)
    act(state, None, {"type": "timeout"})
    assert pending(state) == ("rest", [1], None)
    act(state, None, {"type": "timeout"})
    assert pending(state) == ("move", [1], None)
    assert [(h.life, h.lost_turns) for h in state.heirs] == [(3, 0), (3, 0)]


def test_no_rest_offer_on_a_space_of_ones_own() -> None:
    state = in_play(2, circle=4, spaces=[15, 16], lives=[1, 1])
    roll(state, 6)
    assert pending(state) == ("move", [1], None)


# --- elimination and the roller --------------------------------------------------------------

def test_elimination_and_the_first_eliminated_takes_over_the_encounter_rolls() -> None:
    state = in_play(3, circle=4, spaces=[3, 0, 0], lives=[1, 3, 3])
    events = roll(state, 6)  # to the Slime Pit with 1 Life Point
    assert state.heirs[0].status == "out" and state.heirs[0].life == 0
    assert [e.kind for e in events][-2:] == ["out", "roller"]
    assert state.phase == "play" and pending(state) == ("move", [1], None)
    roll(state, 5)  # heir 1 to space 1, blank: seat 0 (first out) rolls, not seat 2
    assert pending(state) == ("encounter", [0], None)
    assert GAME.view(state, None)["roller"] == 0
    roll(state, 7)  # the Plant
    roll(state, 8)  # severely wounded: lose 1, lose a turn
    assert pending(state) == ("move", [2], None)  # heir 0 is out: heir 2 plays
    roll(state, 6)  # heir 2 to space 2, blank
    assert pending(state) == ("encounter", [0], None)


def test_the_turn_passes_over_eliminated_heirs() -> None:
    state = in_play(3, turn=2, circle=4, spaces=[0, 0, 0])
    state.heirs[0].status = "out"
    state.out_order = [0]
    roll(state, 7)  # heir 2 to the Library
    assert pending(state) == ("move", [1], None)


# --- the endings -----------------------------------------------------------------------------

def test_escape_wins() -> None:
    state = in_play(3, circle=1, spaces=[24, 0, 0])
    events = roll(state, 6)
    assert state.phase == "over" and state.ending == "escape" and state.winners == [0]
    assert events[-1].kind == "win"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [0] and outcome.ranks[0] == 1
    assert outcome.ending == "escape"
    assert said("panique", outcome) == "P0 escapes the house and wins"
    assert GAME.active_seats(state) == [] and GAME.timers(state) == []
    with pytest.raises(IllegalAction):
        roll(state, 1, seat=1)


def test_last_heir_alive_wins() -> None:
    state = in_play(2, circle=4, spaces=[3, 20], lives=[1, 2])
    roll(state, 6)  # the Slime Pit
    assert state.phase == "over" and state.ending == "last_alive" and state.winners == [1]
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ranks == [2, 1] and outcome.scores == [5, 20]


def test_the_vampire_dies_at_the_door_and_the_game_goes_on() -> None:
    state = in_play(3, circle=1, spaces=[26, 0, 0])
    state.heirs[0].vampire = True
    events = roll(state, 4)  # 26 + 3 = Leave the House
    kinds = [e.kind for e in events]
    assert "sunrise" in kinds and "win" not in kinds
    heir = state.heirs[0]
    assert (heir.status, heir.life, heir.space) == ("out", 0, 29)
    assert state.phase == "play" and state.winners == []
    assert state.first_out == 0 and pending(state) == ("move", [1], None)


def test_a_vampire_at_the_door_with_one_rival_hands_the_rival_the_win() -> None:
    state = in_play(2, circle=1, spaces=[26, 0])
    state.heirs[0].vampire = True
    roll(state, 4)
    assert state.winners == [1] and state.ending == "last_alive"


def test_a_vampire_can_win_as_the_last_heir_alive() -> None:
    state = in_play(2, turn=1, circle=4, spaces=[20, 3], lives=[3, 1])
    state.heirs[0].vampire = True
    roll(state, 6)
    assert state.winners == [0] and state.ending == "last_alive"


def test_bested_by_the_vampire_then_sent_out_by_the_sunrise_via_an_encounter_move() -> None:
    state = in_play(2, circle=4, spaces=[23, 0])
    roll(state, 6)  # the Crypt
    roll(state, 5)  # bested
    assert state.heirs[0].vampire and state.heirs[0].lost_turns == 1
    state.heirs[0].space = 28
    state.heirs[0].lost_turns = 0
    state.circle = 4
    roll(state, 6)  # heir 1 to space 2, blank: seat 0 rolls
    roll(state, 1)
    roll(state, 3)  # the Ally's portly man: heir 1 forward one
    roll(state, 5)  # heir 0 from 28 forward: the sun
    assert state.heirs[0].status == "out" and state.winners == [1]


# --- solo play -------------------------------------------------------------------------------

def test_solo_the_heir_rolls_everything_and_escape_wins() -> None:
    state = new_game(1)
    assert state.phase == "play" and pending(state) == ("circle", [0], None)
    roll(state, 3)
    assert pending(state) == ("move", [0], None)
    roll(state, 7)  # 4 steps, blank
    assert pending(state) == ("encounter", [0], None)  # the player on your left is you
    roll(state, 1)
    roll(state, 5)  # the Ally's options: alone, only A
    assert GAME.legal_actions(state, 0) == [{"type": "choose", "option": "A"}]
    choose(state, "A")
    assert state.heirs[0].space == 6
    state.heirs[0].space = 27
    roll(state, 3)  # 2 steps from the Circle's 1
    assert state.ending == "solo_escape" and state.winners == [0]
    assert said("panique", GAME.outcome(state)) == "P0 escapes the house and wins"


def test_solo_death_loses() -> None:
    state = new_game(1)
    roll(state, 4)
    state.heirs[0].space = 3
    state.heirs[0].life = 1
    roll(state, 6)  # the Slime Pit
    assert state.ending == "solo_death" and state.winners == []
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == []
    assert outcome.ending == "solo_death"
    assert said("panique", outcome) == "P0 did not survive the night"
    assert said("panique", outcome, "de") == "P0 hat die Nacht nicht überlebt"


# --- timers, defaults, validation, views -----------------------------------------------------

def test_a_roll_has_a_ten_second_timer_that_rolls_for_the_roller() -> None:
    state = in_play(2, circle=4, spaces=[11, 0])
    roll(state, 5)
    (timer,) = GAME.timers(state)
    assert timer.seconds == ROLL_SECONDS == 10 and timer.action == {"type": "roll"}
    assert timer.seats == (1,) and timer.label == "Roll"
    act(state, None, timer.action, 3)  # the system rolls: the Butler
    (again,) = GAME.timers(state)
    assert again.key != timer.key


@pytest.mark.parametrize("path, purpose, check", [
    ((3, 1), "butler", lambda s: s.heirs[0].lost_turns == 1),       # decline
    ((1, 5), "ally", lambda s: s.heirs[0].space == 14),             # A
])
def test_a_choice_has_a_visible_timer_and_a_default(path, purpose, check) -> None:
    state = in_play(2, circle=4, spaces=[11, 20])
    roll(state, 5)
    for value in path:
        roll(state, value)
    assert pending(state) == (purpose, [0], None)
    (timer,) = GAME.timers(state)
    assert timer.seconds == 20 and timer.action == {"type": "timeout"} and timer.seats == (0,)
    assert timer.visible
    view = GAME.view(state, 0)
    assert view["pending"]["default"] and view["pending"]["seconds"] == 20
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": "timeout"})
    act(state, None, {"type": "timeout"})
    assert check(state)


def test_choice_seconds_is_an_option() -> None:
    state = new_game(2, choice_seconds=5)
    assert state.choice_seconds == 5
    with pytest.raises(Exception):
        GAME.parse_options({"choice_seconds": 2})


def test_moves_of_the_wrong_kind_are_refused_and_change_nothing() -> None:
    state = in_play(2, circle=4, spaces=[11, 20])
    before = json.dumps(GAME.view(state, None))
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": "choose", "option": "A"})
    with pytest.raises(IllegalAction):
        act(state, None, {"type": "timeout"})
    with pytest.raises(NotYourTurn):
        act(state, 1, {"type": "roll"})
    with pytest.raises(IllegalAction):
        GAME.validate(state, Move(7, GAME.parse_action({"type": "roll"})))
    assert json.dumps(GAME.view(state, None)) == before


def test_every_listed_legal_action_validates() -> None:
    state = in_play(3, circle=4, spaces=[11, 12, 12])
    roll(state, 5)
    roll(state, 1)
    roll(state, 6)
    for seat in range(3):
        for raw in GAME.legal_actions(state, seat):
            GAME.validate(state, Move(seat, GAME.parse_action(raw)))
    assert len(GAME.legal_actions(state, 0)) == 1 + 2 + 2
    assert GAME.legal_actions(state, 1) == GAME.legal_actions(state, 2) == []


def test_views_are_public_and_the_same_for_everyone_but_you_and_legal() -> None:
    state = in_play(3, circle=4, spaces=[11, 0, 0])
    roll(state, 5)
    views = GAME.views(state, [None, 0, 1, 2])
    strip = [{k: v for k, v in view.items() if k not in ("you", "legal")}
             for view in views.values()]
    assert all(s == strip[0] for s in strip)
    assert views[1]["legal"] == [{"type": "roll"}] and views[0]["legal"] == []
    assert "legal" not in views[None]
    assert views[None]["pending"]["purpose"] == "encounter"
    assert views[None]["last_roll"]["value"] == 5
    json.dumps(views[None])


def test_the_card_tells_the_encounter_for_the_table_screen() -> None:
    state = in_play(2, circle=4, spaces=[11, 0])
    roll(state, 5)
    assert entry_ids(roll(state, 4)) == ["encounter.4"]
    card = GAME.view(state, None)["card"]
    assert card["title"] == "The Ghost" and card["heir"] == 0 and not card["done"]
    roll(state, 2)
    card = GAME.view(state, None)["card"]
    assert card["done"] and [line["roller"] for line in card["lines"]] == [1, 1]


# --- the bound (docs/games/panique.md, "The bound") --------------------------------------------

def test_the_matchs_last_move_ends_the_night_at_dawn_and_nobody_wins() -> None:
    """The dice promise no end: the 2,000th move ends the match at dawn. Nobody escaped, so
    nobody wins; the heirs rank by how far they got, as at any end."""
    from app.games.panique.rules import MAX_MOVES

    assert MAX_MOVES == 2000 and GAME.max_moves == MAX_MOVES
    state = in_play(3, turn=0, circle=4, spaces=[6, 2, 11])
    state.moves = MAX_MOVES - 2  # as after 1,998 moves: the next one is not the last
    roll(state, 7)  # heir 0 moves 3, from 6 to the blank space 9: an encounter is rolled next
    assert state.phase == "play" and pending(state) == ("encounter", [1], None)
    events = roll(state, 5)  # the 2,000th move
    assert (events[-1].kind, events[-1].seat, events[-1].data) == ("dawn", None, {"n": 2000})
    assert events[-1].text == "Dawn breaks after 2000 moves: nobody escaped the house"
    assert state.phase == "over" and state.ending == "dawn" and state.pending is None
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == []
    assert outcome.ending == "dawn" and outcome.details == {"n": 2000}
    assert said("panique", outcome) == "Dawn breaks after 2000 moves: nobody escaped the house"
    assert said("panique", outcome, "de") == (
        "Der Morgen graut nach 2000 Zügen: niemand ist dem Haus entkommen")
    spaces = [h.space for h in state.heirs]
    assert outcome.scores == spaces
    assert outcome.ranks == [1 + sum(o > s for o in spaces) for s in spaces]
    assert GAME.view(state, None)["ending"] == "dawn" and GAME.timers(state) == []
    assert GAME.legal_actions(state, None) == [] and GAME.active_seats(state) == []
