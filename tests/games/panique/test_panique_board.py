"""Every space of the board, movement by the difference with the Circle of Life, the tie
("Panique!"), the Slime Pit's two rules, and moves that trigger nothing (docs/games/panique.md;
docs/games/panique.md, decisions 1 to 5)."""

from __future__ import annotations

import pytest

from app.games.panique.board import BOARD_JSON, LEAVE, SLIME_PIT, SPACES

from .panique_helpers import entry_ids, in_play, pending, roll

NAMED = {0: "Enter", 3: "Library", 5: "Slime Pit", 8: "Portrait Gallery", 10: "Secret Passage",
         13: "Chapel", 15: "Trap Door", 17: "Grandfather Clock", 19: "Laboratory",
         21: "Conservatory", 23: "Kitchen", 25: "Crypt", 27: "Collapsed Staircase",
         29: "Leave the House"}


def test_the_board_has_30_spaces_with_the_decided_names() -> None:
    assert len(SPACES) == len(BOARD_JSON) == 30
    assert {s.index: s.name for s in SPACES if not s.blank} == NAMED
    assert all(s.name == f"Space {s.index}" for s in SPACES if s.blank)


def land_on(target: int, life: int = 2, steps: int = 2):
    """Heir 0 moves ``steps`` from ``target - steps`` by rolling against the Circle's 4."""
    state = in_play(2, circle=4, spaces=[target - steps, 1], lives=[life, 3])
    events = roll(state, 4 + steps)
    assert events[0].data == {"die": "own", "value": 4 + steps, "purpose": "move", "circle": 4,
                              "steps": steps, "msg": "roll_move"}
    return state, events


@pytest.mark.parametrize("space", [s.index for s in SPACES if s.blank])
def test_blank_space_means_an_encounter_rolled_by_the_player_on_the_left(space: int) -> None:
    state, _ = land_on(space, steps=min(space, 3))
    assert state.heirs[0].space == space
    assert pending(state) == ("encounter", [1], None)
    assert state.card is not None and state.card["title"] == "Encounter Table"


@pytest.mark.parametrize("space, life, after_space, after_life, lost", [
    (3, 2, 3, 3, 0),     # Library: gain 1
    (5, 2, 5, 1, 0),     # Slime Pit by the movement roll: lose 1
    (10, 2, 13, 2, 0),   # Secret Passage: forward 3 onto the Chapel, which does nothing
    (13, 2, 13, 3, 0),   # Chapel: gain 1
    (15, 2, 5, 2, 1),    # Trap Door: sent to the Slime Pit, no Life Point lost, a turn lost
    (17, 2, 17, 2, 1),   # Grandfather Clock: lose a turn
    (27, 2, 23, 2, 0),   # Collapsed Staircase: back 4 onto the Kitchen, which does nothing
])
def test_instruction_spaces(space, life, after_space, after_life, lost) -> None:
    state, events = land_on(space, life)
    heir = state.heirs[0]
    assert (heir.space, heir.life, heir.lost_turns) == (after_space, after_life, lost)
    assert any(e.kind == "space" and e.data["space"] == space for e in events)
    assert pending(state) == ("move", [1], None)  # no encounter: the turn passed


@pytest.mark.parametrize("space, table", [
    (8, "ghost"), (19, "mad_doctor"), (21, "plant"), (23, "mad_killers"), (25, "monsters.6"),
])
def test_table_spaces_roll_on_their_table(space: int, table: str) -> None:
    state, _ = land_on(space)
    assert pending(state) == ("table", [1], table)


def test_crypt_is_the_vampire() -> None:
    state, _ = land_on(25)
    events = roll(state, 8)
    assert entry_ids(events) == ["monsters.6.5-8"]
    assert state.heirs[0].vampire and state.heirs[0].life == 3


def test_enter_is_the_start() -> None:
    state = in_play(3)
    assert [h.space for h in state.heirs] == [0, 0, 0]
    assert [h.life for h in state.heirs] == [3, 3, 3]


def test_leave_the_house_escapes_and_a_longer_roll_stops_there() -> None:
    state = in_play(2, circle=1, spaces=[25, 0])
    roll(state, 8)  # 7 steps from 25: past the end
    assert state.heirs[0].space == LEAVE and state.heirs[0].status == "escaped"
    assert state.phase == "over" and state.winners == [0]


@pytest.mark.parametrize("own, circle", [(1, 8), (8, 1), (3, 5), (5, 3)])
def test_movement_is_forward_by_the_difference(own: int, circle: int) -> None:
    state = in_play(2, circle=circle, spaces=[0, 0])
    roll(state, own)
    assert state.heirs[0].space == abs(own - circle)
    assert state.circle == circle  # the heir's own die does not change the Circle


def test_tie_stays_put_and_meets_an_encounter_panique() -> None:
    state = in_play(2, circle=6, spaces=[7, 0])
    events = roll(state, 6)
    assert state.heirs[0].space == 7
    assert any(e.kind == "panique" for e in events)
    assert pending(state) == ("encounter", [1], None)


def test_tie_on_an_instruction_space_still_means_an_encounter() -> None:
    state = in_play(2, circle=2, spaces=[13, 0])  # standing on the Chapel
    roll(state, 2)
    assert pending(state) == ("encounter", [1], None) and state.heirs[0].life == 3


def test_slime_pit_by_movement_loses_a_life_point() -> None:
    state, _ = land_on(SLIME_PIT, life=3)
    assert state.heirs[0].life == 2 and state.heirs[0].lost_turns == 0


def test_slime_pit_by_an_effect_loses_the_next_turn_not_a_life_point() -> None:
    state, _ = land_on(15, life=1)  # the Trap Door, with 1 Life Point left: survives
    heir = state.heirs[0]
    assert (heir.space, heir.life, heir.lost_turns) == (SLIME_PIT, 1, 1)


def test_moves_caused_by_encounters_trigger_nothing() -> None:
    # From 12 the Ally's man with the beard moves the heir onto the Chapel (13): no Life Point.
    state = in_play(2, circle=4, spaces=[11, 0], lives=[2, 3])
    roll(state, 5)
    roll(state, 1)
    roll(state, 3)
    assert state.heirs[0].space == 13 and state.heirs[0].life == 2
    assert pending(state) == ("move", [1], None)


def test_movement_never_goes_below_enter() -> None:
    state = in_play(2, circle=4, spaces=[1, 0], lives=[2, 3])
    roll(state, 5)  # to space 2, blank
    roll(state, 8)  # the Monsters
    roll(state, 1)  # the Creature
    roll(state, 1)  # flee back two
    assert state.heirs[0].space == 0
