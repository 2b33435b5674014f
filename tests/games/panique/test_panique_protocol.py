"""What docs/games/panique.md promises a client over the protocol: the view's example is the
engine's own view, the keys of ``pending``, the refusals and their codes, the system's legal
actions, the timers' keys, and the order of a move's events; and rulebook rules not covered
elsewhere (Life Points capped at 3, elimination in the middle of an effect, play to the left)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.engine import IllegalAction, MalformedAction, Move, NotYourTurn
from app.games.panique import GAME

from .panique_helpers import act, in_play, new_game, pending, roll

DOC = Path(__file__).resolve().parents[3] / "docs" / "games" / "panique.md"


def doc_view_example() -> dict:
    text = DOC.read_text(encoding="utf-8")
    view_section = text[text.index("## View\n"):text.index("## Timers\n")]
    block = re.search(r"```json\n(.*?)\n```", view_section, re.S)
    assert block is not None
    return json.loads(block.group(1))


def test_the_doc_view_example_is_exactly_the_engine_view() -> None:
    state = new_game(3)
    roll(state, 6, seat=0)
    roll(state, 2, seat=1)
    roll(state, 5, seat=2)
    roll(state, 1)  # seat 1, on the first player's left, rolls the Circle of Life
    roll(state, 5)  # seat 0: four spaces, to blank space 4
    roll(state, 1)  # seat 1 rolls the encounter: the Ally
    roll(state, 5)  # the college girl: A, B or C
    view = GAME.view(state, 0)
    assert len(view["board"]) == 30
    view["board"] = view["board"][:2]
    assert view == doc_view_example()


# --- the view's keys ---------------------------------------------------------------------------

def test_pending_keys_that_do_not_apply_are_absent_not_null() -> None:
    state = new_game(2)
    view = GAME.view(state, None)
    assert view["pending"] == {"purpose": "order", "seats": [0, 1], "heir": None, "seconds": 10}
    assert (view["turn"], view["circle"], view["first"], view["roller"], view["card"],
            view["last_roll"], view["ending"], view["you"]) == (None,) * 8
    assert "legal" not in view
    state = in_play(2, circle=4, spaces=[6, 0])
    roll(state, 6)  # to the Portrait Gallery: the Ghost's table
    p = GAME.view(state, None)["pending"]
    assert p == {"purpose": "table", "seats": [1], "heir": 0, "table": "ghost",
                 "table_title": "The Ghost", "seconds": 10}


def test_butler_and_rest_choices_list_their_options_labels_and_default() -> None:
    state = in_play(2, circle=4, spaces=[11, 20])
    roll(state, 5)
    roll(state, 3)  # the Butler
    roll(state, 1)  # the offer
    p = GAME.view(state, None)["pending"]
    assert p["options"] == [{"option": "accept", "label": "Accept his offer (roll again)"},
                            {"option": "decline", "label": "Refuse his offer (lose a turn)"}]
    assert p["default"] == "decline" and "targets" not in p and p["seconds"] == 20
    state = in_play(2, circle=4, spaces=[15, 17], lives=[2, 1])
    roll(state, 6)
    p = GAME.view(state, None)["pending"]
    assert p["purpose"] == "rest" and p["default"] == "stay"
    assert [o["option"] for o in p["options"]] == ["rest", "stay"]


def test_the_match_over_view_has_no_pending_turn_or_roller() -> None:
    state = in_play(2, circle=1, spaces=[24, 0])
    roll(state, 6)
    view = GAME.view(state, 1)
    assert (view["phase"], view["pending"], view["turn"], view["roller"]) == ("over", None,
                                                                             None, None)
    assert view["legal"] == [] and view["winners"] == [0] and view["ending"] == "escape"


# --- actions and refusals ----------------------------------------------------------------------

def test_the_system_legal_actions_are_its_timer_action() -> None:
    """Engine interface: ``legal_actions(state, None)`` is the system's (its timers' actions)."""
    state = in_play(2, circle=4, spaces=[11, 20])
    assert GAME.legal_actions(state, None) == [{"type": "roll"}]
    roll(state, 5)
    roll(state, 3)
    roll(state, 1)  # the Butler's offer
    assert GAME.legal_actions(state, None) == [{"type": "timeout"}]
    for raw in GAME.legal_actions(state, None):
        GAME.validate(state, Move(None, GAME.parse_action(raw)))
    state = in_play(2, circle=1, spaces=[24, 0])
    roll(state, 6)
    assert GAME.legal_actions(state, None) == []


@pytest.mark.parametrize("target", [True, "1", 1.0, -1, 5])
def test_a_target_must_be_a_json_integer_from_0_to_4(target) -> None:
    with pytest.raises(MalformedAction):
        GAME.parse_action({"type": "choose", "option": "B", "target": target})


@pytest.mark.parametrize("raw", [
    {"type": "pass"}, {"type": "choose"}, {"type": "choose", "option": "D"},
    {"type": "roll", "target": 1}, {"type": "timeout", "seat": 0},
])
def test_malformed_actions(raw) -> None:
    with pytest.raises(MalformedAction):
        GAME.parse_action(raw)


def test_refusal_codes_follow_the_doc_table() -> None:
    state = in_play(2, circle=4, spaces=[11, 20])
    with pytest.raises(NotYourTurn):
        act(state, 1, {"type": "choose", "option": "A"})  # not waited on: before the kind
    with pytest.raises(IllegalAction) as err:
        act(state, 0, {"type": "choose", "option": "A"})  # a roll waits
    assert not isinstance(err.value, NotYourTurn)
    with pytest.raises(IllegalAction):
        act(state, None, {"type": "timeout"})  # a roll waits
    roll(state, 5)
    roll(state, 1)
    roll(state, 5)  # the Ally's choice, seat 0
    for seat, raw in [(0, {"type": "roll"}), (None, {"type": "roll"}),
                      (None, {"type": "choose", "option": "A"}),
                      (0, {"type": "timeout"}), (1, {"type": "timeout"}),
                      (0, {"type": "choose", "option": "rest"}),
                      (0, {"type": "choose", "option": "B", "target": 0}),
                      (0, {"type": "choose", "option": "C"}),
                      (0, {"type": "choose", "option": "A", "target": 1})]:
        with pytest.raises(IllegalAction) as err:
            GAME.validate(state, Move(seat, GAME.parse_action(raw)))
        assert not isinstance(err.value, NotYourTurn), raw
    with pytest.raises(NotYourTurn):
        GAME.validate(state, Move(1, GAME.parse_action({"type": "choose", "option": "A"})))


def test_the_roll_for_the_first_turn_keeps_one_timer_key_per_round() -> None:
    state = new_game(3)
    (first,) = GAME.timers(state)
    roll(state, 8, seat=0)
    (after,) = GAME.timers(state)
    assert after.key == first.key and after.seats == (1, 2)
    roll(state, 8, seat=1)
    roll(state, 2, seat=2)  # a tie: a new round, a new key
    (tie,) = GAME.timers(state)
    assert tie.key != first.key and tie.seats == (0, 1)
    assert GAME.view(state, None)["order_rolls"] == [None, None, None]


# --- the order of events -----------------------------------------------------------------------

def test_events_of_a_move_come_in_the_doc_order() -> None:
    state = in_play(3, circle=4, spaces=[11, 0, 0], lives=[1, 3, 3])
    state.heirs[1].lost_turns = 1
    events = roll(state, 5)
    assert [e.kind for e in events] == ["roll", "move"]
    assert events[0].seat == 0 and events[0].data["steps"] == 1
    assert [e.kind for e in roll(state, 6)] == ["roll", "encounter"]  # the Mad Killers
    assert [e.kind for e in roll(state, 1)] == ["roll", "encounter"]  # the man with hooks
    events = roll(state, 5)  # lose 1 with 1 left: out, the move forward dropped
    assert [e.kind for e in events] == ["roll", "encounter", "life", "out", "roller", "skip"]
    assert [e.seat for e in events] == [1, 0, 0, 0, 0, 1]
    assert state.heirs[0].space == 12 and pending(state) == ("move", [2], None)


# --- rulebook rules ----------------------------------------------------------------------------

def test_life_points_never_exceed_the_starting_three() -> None:
    """Rulebook, "The Lethal Encounter Tables": restored "to the starting maximum of 3"."""
    state = in_play(2, circle=4, spaces=[1, 0], lives=[3, 3])
    events = roll(state, 6)  # to the Library: gain 1
    heir = state.heirs[0]
    assert heir.space == 3 and heir.life == 3
    (life,) = [e for e in events if e.kind == "life"]
    assert life.data == {"life": 3, "change": 0, "msg": "life_full"}


def test_elimination_in_the_middle_of_an_effect_drops_the_rest() -> None:
    """Decision 12: "Lose 1 Life Point, but move one space forward" with 1 Life Point: out,
    no move (rulebook: at 0 Life Points the player is out of the game)."""
    state = in_play(2, circle=4, spaces=[11, 20], lives=[1, 3])
    roll(state, 5)
    roll(state, 5)  # the Mad Doctor
    roll(state, 7)  # his experiments
    roll(state, 5)
    assert state.heirs[0].status == "out" and state.heirs[0].space == 12
    assert state.ending == "last_alive" and state.winners == [1]


def test_play_goes_to_the_left_in_seat_order() -> None:
    """Rulebook, "Playing the game": "Play order goes to the left around the table"."""
    state = in_play(3, turn=1, circle=4, spaces=[0, 0, 0])
    seen = []
    for _ in range(4):
        seen.append(state.turn)
        roll(state, 7)  # three spaces each time: 3 (Library), 6 (blank) ...
        while state.pending is not None and state.pending.purpose != "move":
            if state.pending.purpose in ("butler", "ally", "rest"):
                act(state, None, {"type": "timeout"})
            else:
                roll(state, 4)  # the Ghost, then 1-4 of its table: lose 1
    assert seen == [1, 2, 0, 1]


def test_an_encounter_move_ending_on_the_slime_pit_loses_the_next_turn() -> None:
    """Decision 5 (docs/games/panique.md: "an heir sent there by any effect loses no LP but loses the next
    turn"): an encounter's move that ends on the Slime Pit costs the next turn, not a Life
    Point; the Slime Pit's own instruction does not act (decision 4)."""
    state = in_play(2, circle=4, spaces=[3, 20], lives=[2, 3])
    roll(state, 5)  # to space 4, blank
    roll(state, 2)  # the Black Cat
    events = roll(state, 3)  # a secret passage: forward one, onto the Slime Pit
    heir = state.heirs[0]
    assert (heir.space, heir.life, heir.lost_turns) == (5, 2, 1)
    lost = [e for e in events if e.kind == "lost_turn"]
    assert lost and lost[-1].data == {"lost_turns": 1, "space": 5, "msg": "slime_moved"}
    assert pending(state) == ("move", [1], None)


def test_a_named_space_table_roll_leaves_the_circle_alone() -> None:
    """Decision 2: the space picks the encounter, so its table roll is a detail roll."""
    state = in_play(2, circle=4, spaces=[6, 0])
    roll(state, 6)  # the Portrait Gallery
    events = roll(state, 7)  # the Ghost's 5-8
    assert state.circle == 4
    assert events[0].data["die"] == "detail" and events[0].data["purpose"] == "table"
    assert GAME.view(state, None)["last_roll"]["die"] == "detail"


def test_outcome_ranks_share_a_space_and_put_the_later_out_first() -> None:
    """Decision 13: winner, then heirs in the house by space (ties share), then the later out."""
    state = in_play(5, circle=1, spaces=[24, 9, 9, 2, 7])
    for seat in (4, 3):  # heir 4 out first, then heir 3
        state.heirs[seat].life = 0
        state.heirs[seat].status = "out"
        state.out_order.append(seat)
    roll(state, 6)  # heir 0 escapes
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.ranks == [1, 2, 2, 4, 5] and outcome.scores == [29, 9, 9, 2, 7]
    assert outcome.winners == [0]


def test_solo_death_ranks_the_only_heir_first_without_a_winner() -> None:
    state = new_game(1)
    roll(state, 4)
    state.heirs[0].space, state.heirs[0].life = 3, 1
    roll(state, 6)  # the Slime Pit by the movement roll
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ranks == [1] and outcome.winners == []
    assert state.ending == "solo_death"


def test_turn_and_roller_are_null_until_the_first_turn_begins() -> None:
    state = new_game(2)
    roll(state, 5, seat=0)
    roll(state, 3, seat=1)
    view = GAME.view(state, None)
    assert (view["phase"], view["first"], view["turn"], view["roller"], view["turns"]) == (
        "play", 0, None, None, 0)
    assert view["pending"] == {"purpose": "circle", "seats": [1], "heir": 0, "seconds": 10}
    roll(state, 2)
    view = GAME.view(state, None)
    assert (view["turn"], view["roller"], view["turns"]) == (0, 1, 1)
    solo = GAME.view(new_game(1), None)
    assert (solo["phase"], solo["first"], solo["turn"]) == ("play", 0, None)


def test_the_escape_and_the_sunrise_events_follow_the_move() -> None:
    state = in_play(3, circle=1, spaces=[26, 0, 0])
    state.heirs[0].vampire = True
    events = roll(state, 5)
    assert [e.kind for e in events] == ["roll", "move", "sunrise", "out", "roller"]
    state = in_play(2, circle=1, spaces=[26, 0])
    events = roll(state, 5)
    assert [e.kind for e in events] == ["roll", "move", "win"]
    assert events[-1].data == {"msg": "escape"}


def test_a_view_is_a_snapshot_that_later_moves_do_not_change() -> None:
    """The View: a view already given out is never changed by later moves (the encounter card
    grows in the state, the view holds a copy), so a frame the room keeps to patch from stays
    the frame it sent."""
    state = in_play(2, circle=4, spaces=[11, 0])
    roll(state, 5)  # to blank space 12: an encounter
    views = [GAME.view(state, None), GAME.views(state, [0])[0]]
    texts = [json.dumps(v, sort_keys=True) for v in views]
    roll(state, 4)  # the Ghost: a line on the card
    roll(state, 2)  # lose 1: the card is done, with its outcome
    assert [json.dumps(v, sort_keys=True) for v in views] == texts
    assert views[0]["card"]["lines"] == [] and views[0]["card"]["done"] is False
    after = GAME.view(state, None)["card"]
    assert len(after["lines"]) == 2 and after["done"] and after["outcome"]["life"] == -1


# --- details the doc states exactly (draws, event msgs, the card, timer keys) -----------------

def test_each_die_is_one_randint_draw_in_the_order_of_the_roll_events() -> None:
    """Decision 10: every die is one ``randint [1, 8]`` from the match's generator, one per
    ``roll`` event in event order (the system's roll for the first turn: seat order); nothing
    else is drawn, so a checker can replay the dice from the seed."""
    from app.engine.rng import RecordingRng

    for players in (1, 3, 5):
        rng = RecordingRng(f"panique-draws-{players}".encode())
        state = GAME.setup(players, GAME.parse_options({}), rng)
        rolled: list[int] = []
        for _ in range(400):
            if GAME.outcome(state) is not None:
                break
            # The system plays every timer: rolls for the rollers, defaults for the choices.
            action = GAME.legal_actions(state, None)[0]
            events = GAME.step(state, Move(None, GAME.parse_action(action)), rng)
            rolled += [e.data["value"] for e in events if e.kind == "roll"]
        assert rng.draws and all(d["op"] == "randint" and d["args"] == [1, 8] for d in rng.draws)
        assert [d["result"] for d in rng.draws] == rolled


def test_a_plain_lost_turn_event_has_no_msg_and_slime_moved_has_one() -> None:
    """Events: the plain ``lost_turn`` carries no ``msg`` (its message id is its kind)."""
    state = in_play(2, circle=4, spaces=[13, 0])
    events = roll(state, 8)  # 13 + 4: the Grandfather Clock
    lost = [e for e in events if e.kind == "lost_turn"]
    assert [e.data for e in lost] == [{"lost_turns": 1}]
    state = in_play(2, circle=4, spaces=[2, 0])
    roll(state, 8)  # to blank space 6
    roll(state, 2)  # the Black Cat
    events = roll(state, 5)  # back one, onto the Slime Pit
    lost = [e for e in events if e.kind == "lost_turn"]
    assert [e.data for e in lost] == [{"lost_turns": 1, "space": 5, "msg": "slime_moved"}]


def test_the_card_opens_when_the_encounter_is_awaited() -> None:
    """View, ``card``: a blank space opens an "Encounter Table" card with no lines before the
    roll; the roll names the encounter's table, which stays through its "Roll again" tables."""
    state = in_play(2, circle=4, spaces=[0, 0])
    roll(state, 6)  # two spaces, to blank space 2
    card = GAME.view(state, None)["card"]
    assert card == {"heir": 0, "table": "encounter", "title": "Encounter Table", "space": 2,
                    "lines": [], "done": False, "outcome": None}
    roll(state, 6)  # the Mad Killers
    assert GAME.view(state, None)["card"]["title"] == "The Mad Killers"
    assert GAME.view(state, None)["card"]["table"] == "mad_killers"
    roll(state, 1)  # the man with hooks: roll again
    assert GAME.view(state, None)["card"]["title"] == "The Mad Killers"
    state = in_play(2, circle=4, spaces=[6, 0])
    roll(state, 6)  # the Portrait Gallery: its table's card, before the roll
    assert GAME.view(state, None)["card"]["title"] == "The Ghost"
    assert GAME.view(state, None)["card"]["table"] == "ghost"
    assert GAME.view(state, None)["card"]["lines"] == []


def test_timer_keys_count_the_rolls_and_choices_awaited() -> None:
    """Timers: ``{n}`` counts the rolls and choices awaited, the current one included; one key
    for a whole round of the roll for the first turn."""
    state = new_game(3)
    assert [t.key for t in GAME.timers(state)] == ["roll:1"]
    roll(state, 3, seat=0)
    assert [t.key for t in GAME.timers(state)] == ["roll:1"]
    roll(state, 3, seat=1)
    roll(state, 3, seat=2)  # a three-way tie: a new round
    assert [t.key for t in GAME.timers(state)] == ["roll:2"]
    roll(state, 5, seat=0)
    roll(state, 4, seat=1)
    roll(state, 2, seat=2)  # seat 0 first; seat 1 rolls the Circle
    assert [t.key for t in GAME.timers(state)] == ["roll:3"]
    roll(state, 1)
    assert [t.key for t in GAME.timers(state)] == ["roll:4"]
    assert GAME.view(state, None)["last_roll"]["serial"] == 3
