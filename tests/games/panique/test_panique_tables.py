"""Every entry of every table of the Lethal Encounter Tables: reached by the dice, quoted in the
event log, its effect applied (rulebook, "The Lethal Encounter Tables" and "Detail Tables";
docs/games/panique.md, decisions 6 and 7)."""

from __future__ import annotations

import pytest

from app.engine import IllegalAction
from app.games.panique import GAME
from app.games.panique.tables import ENTRIES, TABLES, Entry

from .panique_helpers import act, choose, entry_ids, in_play, pending, roll

START_SPACE, START_LIFE = 12, 2
OTHER_SPACE = 20

# What each final entry does to an heir on space 12 with 2 Life Points, read from the rulebook:
# (Life Points, space, turns to lose, vampire).
EXPECTED: dict[str, tuple[int, int, int, bool]] = {
    "ally.1-2": (3, 12, 0, False),
    "ally.3-4": (2, 13, 0, False),
    "ally.7-8.1-4": (2, 13, 0, False),
    "ally.7-8.5-8": (2, 11, 0, False),
    "black_cat.1-2": (1, 12, 0, False),
    "black_cat.3-4": (2, 13, 0, False),
    "black_cat.5-6": (2, 11, 0, False),
    "black_cat.7-8": (3, 12, 1, False),
    "butler.1-4.1-4": (2, 5, 1, False),   # to the Slime Pit: no Life Point lost, a turn lost
    "butler.1-4.5-8": (1, 0, 0, False),   # lose 1 and back to Enter
    "butler.5-8.1-4": (3, 12, 0, False),
    "butler.5-8.5-8": (1, 12, 0, False),
    "ghost.1-4": (1, 12, 0, False),
    "ghost.5-8": (3, 12, 1, False),
    "mad_doctor.1-3": (2, 13, 0, False),
    "mad_doctor.4-6.1-4": (3, 12, 0, False),
    "mad_doctor.4-6.5-8": (2, 12, 1, False),
    "mad_doctor.7-8.1-4": (3, 12, 1, False),
    "mad_doctor.7-8.5-8": (1, 13, 0, False),
    "mad_killers.1-2.1-4": (2, 12, 1, False),
    "mad_killers.1-2.5-8": (1, 13, 0, False),
    "mad_killers.3-4.1-4": (2, 13, 0, False),  # "forward one turn" read as one space
    "mad_killers.3-4.5-8": (1, 11, 0, False),  # printed "6-8", read as 5-8
    "mad_killers.5-6.1-4": (3, 12, 0, False),
    "mad_killers.5-6.5-8": (1, 12, 0, False),
    "mad_killers.7-8.1-4": (1, 12, 0, False),
    "mad_killers.7-8.5-8": (2, 11, 0, False),
    "plant.1-4": (1, 13, 0, False),
    "plant.5-8": (1, 12, 1, False),
    "monsters.1-2.1-4": (2, 10, 0, False),
    "monsters.1-2.5-8": (1, 12, 0, False),
    "monsters.3.1-4": (2, 13, 0, False),
    "monsters.3.5-8": (1, 12, 0, False),
    "monsters.4": (3, 12, 1, False),
    "monsters.5.1-4": (2, 13, 0, False),
    "monsters.5.5-8": (1, 12, 0, False),
    "monsters.6.1-4": (2, 13, 0, False),
    "monsters.6.5-8": (3, 12, 1, True),   # bested by the vampire: restored to 3
    "monsters.7-8.1-4": (2, 13, 0, False),
    "monsters.7-8.5-8": (1, 12, 0, False),
}
CHOICE_ENTRIES = {"ally.5-6": "ally", "butler.1-4": "butler"}

_PARENT: dict[str, Entry] = {e.roll: e for e in ENTRIES.values() if e.roll}
_PARENT["butler.1-4"] = ENTRIES["butler.1-4"]  # the bribe's roll comes after "accept"


def table_of(entry: Entry) -> str:
    return entry.id.rsplit(".", 1)[0]


def path_to(entry_id: str) -> list[Entry]:
    """The entries rolled on the way from the Encounter Table to ``entry_id``."""
    path = [ENTRIES[entry_id]]
    while table_of(path[0]) != "encounter":
        path.insert(0, _PARENT[table_of(path[0])])
    return path


def at_encounter():
    """Heir 0 rolls a 5 against the Circle's 4 from space 11: one step to blank space 12, an
    encounter; seat 1 (on its left) rolls for it."""
    state = in_play(2, circle=4, spaces=[11, OTHER_SPACE], lives=[START_LIFE, 3])
    roll(state, 5)
    assert state.heirs[0].space == START_SPACE
    assert pending(state) == ("encounter", [1], None)
    return state


def walk_to(state, entry_id: str, last_value: int | None = None) -> list[str]:
    """Roll (and accept the Butler's offer where needed) down to ``entry_id``."""
    seen: list[str] = []
    path = path_to(entry_id)
    for i, entry in enumerate(path):
        if i and path[i - 1].choice == "butler":
            choose(state, "accept")
        value = last_value if (i == len(path) - 1 and last_value is not None) else entry.low
        seen += entry_ids(roll(state, value))
    return seen


def test_every_entry_of_every_table_is_tested() -> None:
    final = {e.id for e in ENTRIES.values() if not e.roll and not e.choice}
    assert final == set(EXPECTED)
    with_choice = {e.id for e in ENTRIES.values() if e.choice}
    assert with_choice == set(CHOICE_ENTRIES)
    rolling = {e.id for e in ENTRIES.values() if e.roll}
    assert (len(final), len(with_choice), len(rolling)) == (40, 2, 8 + 13)
    assert len(TABLES) == 1 + 8 + 14


@pytest.mark.parametrize("entry_id", sorted(EXPECTED))
@pytest.mark.parametrize("end", ["low", "high"])
def test_entry_reached_quoted_and_applied(entry_id: str, end: str) -> None:
    entry = ENTRIES[entry_id]
    state = at_encounter()
    value = entry.low if end == "low" else entry.high
    seen = walk_to(state, entry_id, value)
    assert seen == [e.id for e in path_to(entry_id)]
    heir = state.heirs[0]
    assert (heir.life, heir.space, heir.lost_turns, heir.vampire) == EXPECTED[entry_id]
    # The card shows every roll with the rulebook's text; the turn passed to seat 1.
    card = state.card
    assert card is not None and card["done"]
    assert [line["entry"] for line in card["lines"]] == seen
    assert card["lines"][-1]["text"] == entry.text
    life, space, lost, vampire = EXPECTED[entry_id]
    assert card["outcome"] == {"life": life - START_LIFE, "steps": space - START_SPACE,
                               "lost_turns": lost, "vampire": vampire, "status": "in"}
    assert pending(state) == ("move", [1], None)


def test_encounter_roll_sets_the_circle_of_life_and_detail_rolls_do_not() -> None:
    state = at_encounter()
    roll(state, 6)  # the Mad Killers
    assert state.circle == 6
    roll(state, 3)  # the masked woman
    roll(state, 7)
    assert state.circle == 6


def test_event_log_quotes_the_rulebook_text_with_the_typos_as_printed() -> None:
    state = at_encounter()
    events = roll(state, 6) + roll(state, 4) + roll(state, 6)
    quoted = [e for e in events if e.kind == "encounter"]
    assert [e.data["entry"] for e in quoted] == ["encounter.6", "mad_killers.3-4",
                                                 "mad_killers.3-4.5-8"]
    assert quoted[1].text == "A masked woman in a slinky dress attacks you with a knife. Roll:"
    assert quoted[2].text.startswith("She stabs you repeatedly")
    assert "6-8" in ENTRIES["mad_killers.3-4.5-8"].note
    assert "one turn" in ENTRIES["mad_killers.3-4.1-4"].text


# --- the choices -----------------------------------------------------------------------------

def at_choice(entry_id: str):
    state = at_encounter()
    walk_to(state, entry_id)
    return state


def test_butler_offer_declined_loses_a_turn() -> None:
    state = at_choice("butler.1-4")
    assert pending(state) == ("butler", [0], None)
    assert GAME.active_seats(state) == [0]
    choose(state, "decline")
    assert state.heirs[0].lost_turns == 1 and state.heirs[0].space == START_SPACE


def test_butler_offer_accepted_rolls_again_by_the_roller() -> None:
    state = at_choice("butler.1-4")
    choose(state, "accept")
    assert pending(state) == ("table", [1], "butler.1-4")


@pytest.mark.parametrize("option, target, spaces", [
    ("A", None, (14, OTHER_SPACE)),
    ("B", 1, (12, OTHER_SPACE - 2)),
    ("C", 1, (13, OTHER_SPACE - 1)),
])
def test_ally_options(option: str, target: int | None, spaces: tuple[int, int]) -> None:
    state = at_choice("ally.5-6")
    assert pending(state) == ("ally", [0], None)
    choose(state, option, target)
    assert (state.heirs[0].space, state.heirs[1].space) == spaces
    assert state.heirs[0].life == START_LIFE


def test_an_ally_push_onto_the_slime_pit_costs_the_target_its_next_turn() -> None:
    """Decision 5: the Ally's B moving another heir back two onto the Slime Pit is an effect
    sending that heir there: no Life Point lost, the next turn is lost."""
    state = at_choice("ally.5-6")
    state.heirs[1].space = 7
    life = state.heirs[1].life
    events = choose(state, "B", 1)
    target = state.heirs[1]
    assert (target.space, target.life) == (5, life)
    kinds = [(e.kind, e.seat, e.data.get("msg")) for e in events]
    assert ("lost_turn", 1, "slime_moved") in kinds
    assert kinds.index(("lost_turn", 1, "slime_moved")) < [k[0] for k in kinds].index("skip")
    assert target.lost_turns == 0 and state.turn == 0  # the turn it lost was its next one


def test_ally_needs_another_living_heir_for_b_and_c() -> None:
    state = at_choice("ally.5-6")
    assert GAME.legal_actions(state, 0) == [
        {"type": "choose", "option": "A"},
        {"type": "choose", "option": "B", "target": 1},
        {"type": "choose", "option": "C", "target": 1},
    ]
    with pytest.raises(IllegalAction):
        choose(state, "B", 0)  # not another heir
    with pytest.raises(IllegalAction):
        choose(state, "B")  # no target
    with pytest.raises(IllegalAction):
        choose(state, "A", 1)  # A takes no target
    with pytest.raises(IllegalAction):
        choose(state, "accept")
    state.heirs[1].status = "out"
    assert GAME.legal_actions(state, 0) == [{"type": "choose", "option": "A"}]
    with pytest.raises(IllegalAction):
        choose(state, "C", 1)


def test_only_the_active_player_chooses_and_only_the_roller_rolls() -> None:
    state = at_encounter()
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": "roll"}, 1)  # the active heir's own player does not roll it
    walk_to(state, "butler.1-4")
    assert GAME.legal_actions(state, 1) == []
    with pytest.raises(IllegalAction):
        act(state, 1, {"type": "choose", "option": "accept"})
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": "roll"}, 1)


def test_ally_b_cannot_push_an_heir_below_enter() -> None:
    state = in_play(2, circle=4, spaces=[11, 1], lives=[2, 3])
    roll(state, 5)
    roll(state, 1)  # the Ally
    roll(state, 5)  # the college girl
    choose(state, "B", 1)
    assert state.heirs[1].space == 0


def test_ally_c_vampire_out_at_the_door_drops_the_push_back() -> None:
    """Decision 12: elimination drops the rest of the effect. The Ally's C takes a vampire heir
    from 28 onto Leave the House: the sunrise puts it out, and its target is not moved back."""
    state = in_play(3, circle=4, spaces=[27, 20, 10], lives=[2, 3, 3])
    state.heirs[0].vampire = True
    roll(state, 5)  # to space 28, blank: seat 1 rolls the encounter
    roll(state, 1)  # the Ally
    roll(state, 5)  # the college girl: A, B or C
    events = choose(state, "C", 1)
    assert [e.kind for e in events] == ["choice", "move", "sunrise", "out", "roller"]
    assert [e.seat for e in events if e.kind == "move"] == [0]
    assert (state.heirs[0].status, state.heirs[0].space) == ("out", 29)
    assert state.heirs[1].space == 20 and state.heirs[1].lost_turns == 0
    assert state.phase == "play" and pending(state) == ("move", [1], None)


def test_every_entry_is_worded_in_every_catalog_and_the_english_is_the_rulebooks():
    """docs/games/panique.md, decision 16: each entry has its wording in every language; the
    English one is exactly the text the engine quotes, so the two cannot drift apart."""
    from app.i18n import LANGUAGES, catalog
    from app.games.panique.tables import ENTRIES, TABLES

    for eid, entry in ENTRIES.items():
        assert catalog("en")[f"event.panique.entry.{eid}"] == entry.text, eid
        for lang in LANGUAGES:
            assert catalog(lang)[f"event.panique.entry.{eid}"], (lang, eid)
    for tid in TABLES:
        for lang in LANGUAGES:
            assert catalog(lang)[f"event.panique.table_title.{tid}"], (lang, tid)
    assert catalog("de")["event.panique.entry.butler.1-4"].startswith("Er bietet an")
