"""The Lethal Encounter Table and every detail table, as data the engine interprets.

Each entry has an id, the die range it covers, the rulebook's text for it (quoted verbatim,
its own misspellings included) and what it does, in one of three forms:

- ``effect``: a list of simple operations, done in order (see ``Op``);
- ``roll``: the id of the table rolled next ("Roll again");
- ``choice``: a choice the active player makes (``"butler"``: accept or decline the offer;
  ``"ally"``: option A, B or C).

Ids: a table's entries are ``<table>.<range>``; the table a "Roll again" entry rolls on has that
entry's id (``"mad_killers.3-4"``), so its entries are ``"mad_killers.3-4.1-4"`` and so on. The
Encounter Table itself is ``"encounter"``, its entries ``"encounter.1"`` to ``"encounter.8"``.

The two typos (docs/games/panique.md, decision 7): the masked woman's "move forward one turn"
is read as one space, and her "6-8" as 5-8 (the texts stay as printed; ``note`` says so).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Op = tuple[str, int]
"""One operation of an effect:

- ``("life", n)``: gain (n > 0) or lose (n < 0) Life Points, between 0 and 3;
- ``("move", n)``: move forward (n > 0) or back (n < 0); never below Enter; reaching Leave the
  House escapes;
- ``("lose_turn", n)``: lose n more turns (they stack);
- ``("go_to", space)``: go to that space (Enter); to the Slime Pit see ``"slime"``;
- ``("slime", 0)``: sent to the Slime Pit: no Life Point lost, the next turn is lost;
- ``("vampire", 0)``: bested by the vampire: restored to 3 Life Points, marked for the sunrise.
"""

DIE_SIDES = 8


@dataclass(frozen=True, slots=True)
class Entry:
    id: str
    low: int
    high: int
    text: str
    effect: tuple[Op, ...] = ()
    roll: str | None = None
    choice: str | None = None
    note: str = ""

    @property
    def range(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "range": self.range, "text": self.text}
        if self.roll:
            out["roll"] = self.roll
        if self.choice:
            out["choice"] = self.choice
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class Table:
    id: str
    title: str
    text: str
    entries: tuple[Entry, ...] = field(default_factory=tuple)

    def entry_for(self, value: int) -> Entry:
        for entry in self.entries:
            if entry.low <= value <= entry.high:
                return entry
        raise ValueError(f"table {self.id} has no entry for {value}")


def _entry(table: str, rng: str, text: str, *effect: Op, roll: bool | str = False,
           choice: str | None = None, note: str = "") -> Entry:
    low, _, high = rng.partition("-")
    entry_id = f"{table}.{rng}"
    roll_id = entry_id if roll is True else (roll or None)
    return Entry(entry_id, int(low), int(high or low), text, tuple(effect), roll_id, choice, note)


LIFE_UP: Op = ("life", 1)
LIFE_DOWN: Op = ("life", -1)
LOSE_TURN: Op = ("lose_turn", 1)
FORWARD_1: Op = ("move", 1)
BACK_1: Op = ("move", -1)


def _table(table_id: str, title: str, text: str, *rows: tuple) -> Table:
    entries = []
    for row in rows:
        rng, entry_text, *rest = row
        ops = [r for r in rest if isinstance(r, tuple)]
        opts = next((r for r in rest if isinstance(r, dict)), {})
        entries.append(_entry(table_id, rng, entry_text, *ops, **opts))
    return Table(table_id, title, text, tuple(entries))


ROLL = {"roll": True}

_TABLES: list[Table] = [
    _table(
        "encounter", "Encounter Table",
        "Whenever a player's marker lands on a space with no game-related instructions, the "
        "player to his or her left rolls the die on the Circle of Life to see who or what is "
        "encountered and consults the table to see what happens.",
        ("1", "The Ally.", {"roll": "ally"}),
        ("2", "The Black Cat", {"roll": "black_cat"}),
        ("3", "The Butler", {"roll": "butler"}),
        ("4", "The Ghost", {"roll": "ghost"}),
        ("5", "The Mad Doctor", {"roll": "mad_doctor"}),
        ("6", "The Mad Killers", {"roll": "mad_killers"}),
        ("7", "The Man-Eating Plant", {"roll": "plant"}),
        ("8", "The Monster", {"roll": "monsters"}),
    ),
    # 1. The Ally
    _table(
        "ally", "The Ally",
        "An inhabitant of the house, possibly a fellow guest, tries to assist you.",
        ("1-2", "A teen girl in a purple dress and no shoes offers to lead you to safety. She is "
                "promptly seized by smokey tentacles and dragged into a one-way secret door. "
                "Gain 1 Life Point.", LIFE_UP),
        ("3-4", "A portly man with a white beard rushes into the room, just in time to engage a "
                "knife-wielding, shadowy figure in battle, allowing you to escape. Move forward "
                "one space.", FORWARD_1),
        ("5-6", "A college girl with a gun in one hand and a knife in the other comes around a "
                "corner, cursing mightily. She opens fire at the shadows, giving you an "
                "opportunity to flee. You may choose one of these options: A: Move forward two "
                "spaces; B: Choose another player's Heir and move it back two spaces; or C: Move "
                "forward one space, and choose another Heir to move back one space.",
         {"choice": "ally"}),
        ("7-8", "A lithe woman in a mask and catsuit beckons you into the relative safety of a "
                "secret passageway. Roll again:", ROLL),
    ),
    _table(
        "ally.7-8", "The Ally: the secret passageway", "Roll again:",
        ("1-4", "Move forward one space", FORWARD_1),
        ("5-8", "Move backward one space.", BACK_1),
    ),
    # 2. The Black Cat
    _table(
        "black_cat", "The Black Cat", "A black cat crosses your path. Roll again to see what "
                                      "happens.",
        ("1-2", "You're startled and fall down a flight of stairs. Lose 1 Life Point.", LIFE_DOWN),
        ("3-4", "You follow the cat to a secret passage. Move one space forward.", FORWARD_1),
        ("5-6", "You follow the cat to a secret passage. Move one space back.", BACK_1),
        ("7-8", "You follow the cat to peaceful sitting room for a brief rest. Gain 1 Life Point "
                "and Lose a Turn.", LIFE_UP, LOSE_TURN),
    ),
    # 3. The Butler
    _table(
        "butler", "The Butler",
        "He seems to be devoted to making you feel welcome... but he actually wants you gone.",
        ("1-4", "He offers to see you safely from the house, in exchange for a bribe. If you "
                "don't accept his offer, you lose a turn.", {"choice": "butler"}),
        ("5-8", "You recognize the butler for the threat that he is and strike first! Roll "
                "again:", ROLL),
    ),
    _table(
        "butler.1-4", "The Butler: the bribe", "If you accept his offer, roll again to see the "
                                               "result:",
        ("1-4", "He guides you to a trap door and you plummet through it. Move to the Slime Pit",
         ("slime", 0)),
        ("5-8", "He suddenly attacks you, knocking you unconcious. Lose 1 Life Point and return "
                "to the Enter space.", LIFE_DOWN, ("go_to", 0)),
    ),
    _table(
        "butler.5-8", "The Butler: you strike first", "Roll again:",
        ("1-4", "You defeat the butler and gain 1 Life Point", LIFE_UP),
        ("5-8", "You are defeated by the butler and lose 1 Life Point.", LIFE_DOWN),
    ),
    # 4. The Ghost
    _table(
        "ghost", "The Ghost", "That's not cobwebs... that's a restless spirit!",
        ("1-4", "You are seized by an invisible force and thrown around the room. Lose 1 Life "
                "Point.", LIFE_DOWN),
        ("5-8", "You are confronted by a ghostly woman and a calm comes over you and you feel "
                "protected. Gain 1 Life Point and lose a turn.", LIFE_UP, LOSE_TURN),
    ),
    # 5. The Mad Doctor
    _table(
        "mad_doctor", "The Mad Doctor", "They called him mad... and he is proving them right!",
        ("1-3", "He offers to help you escape the house if you promise to fund his research, as "
                "your uncle did. Move one space forward.", FORWARD_1),
        ("4-6", "He unleashes one of his monstrous creations upon you! Roll again:", ROLL),
        ("7-8", "You are captured and subjected to his unholy experiments! Roll again:", ROLL),
    ),
    _table(
        "mad_doctor.4-6", "The Mad Doctor: his creation", "Roll again:",
        ("1-4", "You defeat the monster. Gain 1 Life Point.", LIFE_UP),
        ("5-8", "You defeat the monster but barely survive. You lose a turn.", LOSE_TURN),
    ),
    _table(
        "mad_doctor.7-8", "The Mad Doctor: his experiments", "Roll again:",
        ("1-4", "Gain 1 Life Point, but lose a turn", LIFE_UP, LOSE_TURN),
        ("5-8", "Lose 1 Life Point, but move one space forward.", LIFE_DOWN, FORWARD_1),
    ),
    # 6. The Mad Killers
    _table(
        "mad_killers", "The Mad Killers", "How do they sneak up on you like that?!",
        ("1-2", "You are attacked by a man with hooks for hands! Roll:", ROLL),
        ("3-4", "A masked woman in a slinky dress attacks you with a knife. Roll:", ROLL),
        ("5-6", "Your little nephew attacks you with a baseball bat. Roll:", ROLL),
        ("7-8", "The sous chef has decided to make a meal out of you and is coming at you with a "
                "meat cleaver. Roll:", ROLL),
    ),
    _table(
        "mad_killers.1-2", "The Mad Killers: the man with hooks", "Roll:",
        ("1-4", "You fight him off but are mostly unharmed. Lose a turn", LOSE_TURN),
        ("5-8", "He wounds you, but you escape. Lose 1 Life Point, but move one space forward.",
         LIFE_DOWN, FORWARD_1),
    ),
    _table(
        "mad_killers.3-4", "The Mad Killers: the masked woman", "Roll:",
        ("1-4", "You fight her off, escape, and move forward one turn", FORWARD_1,
         {"note": "Typo read as decided: \"one turn\" is one space."}),
        ("5-8", "She stabs you repeatedly, you lose 1 Life Point, and you move backwards one "
                "space.", LIFE_DOWN, BACK_1,
         {"note": "Typo read as decided: printed as \"6-8\", read as 5-8."}),
    ),
    _table(
        "mad_killers.5-6", "The Mad Killers: the little nephew", "Roll:",
        ("1-4", "You dropkick the little bastard off a balcony and gain 1 Life Point", LIFE_UP),
        ("5-8", "You get struck repeatedly but fight him off and lose 1 Life Point.", LIFE_DOWN),
    ),
    _table(
        "mad_killers.7-8", "The Mad Killers: the sous chef", "Roll:",
        ("1-4", "Lose 1 Life Point", LIFE_DOWN),
        ("5-8", "You flee to safety and move backwards one space.", BACK_1),
    ),
    # 7. The Man-Eating Plant
    _table(
        "plant", "The Man-Eating Plant", "Whatever you do, don't call it Audry... or Seymour!",
        ("1-4", "The plant attacks, and you narrowly escape! Lose 1 Life, move one space "
                "forward.", LIFE_DOWN, FORWARD_1),
        ("5-8", "The plant attacks and you are severely wounded. Lose 1 Life, lose a turn.",
         LIFE_DOWN, LOSE_TURN),
    ),
    # 8. The Monsters
    _table(
        "monsters", "The Monsters", "",
        ("1-2", "The Creature attacks savagely and mindlessly. Roll:", ROLL),
        ("3", "The Doppelganger. Roll:", ROLL),
        ("4", "The Succubus. The sexy demon seduces you, but is no match for the darkness that is "
              "your soul. You lose a turn, but gain 1 Life Point.", LOSE_TURN, LIFE_UP),
        ("5", "The Thing From the Basement. Roll:", ROLL),
        ("6", "The Vampire. Roll:", ROLL),
        ("7-8", "The Zombie. Roll:", ROLL),
    ),
    _table(
        "monsters.1-2", "The Creature", "Roll:",
        ("1-4", "You flee, back two spaces", ("move", -2)),
        ("5-8", "You are mauled and lose 1 Life Point.", LIFE_DOWN),
    ),
    _table(
        "monsters.3", "The Doppelganger", "Roll:",
        ("1-4", "You confront what seems to be yourself, have a wonderful chat, and you give "
                "yourself good advice on escaping the house and move forward one space",
         FORWARD_1),
        ("5-8", "You want yourself dead, get attacked, and lsoe 1 Life Point.", LIFE_DOWN),
    ),
    _table(
        "monsters.5", "The Thing From the Basement", "Roll:",
        ("1-4", "You show kindness, it helps you escape the house, so you move forward one space",
         FORWARD_1),
        ("5-8", "You are attacked brutally by the savage monster, losing 1 Life Point.",
         LIFE_DOWN),
    ),
    _table(
        "monsters.6", "The Vampire", "Roll:",
        ("1-4", "Your religious faith projects you from the powerful of the undead, you escape "
                "safely and move forward one space", FORWARD_1),
        ("5-8", "You are bested by the vampire, fall unconscious, lose a turn. Be restored to 3 "
                "Life Points. (See below for a Special Victory Condition.)",
         LOSE_TURN, ("vampire", 0)),
    ),
    _table(
        "monsters.7-8", "The Zombie", "Roll:",
        ("1-4", "It's a slow, lumbering zombie that you escape by running away, thus moving "
                "forward one square", FORWARD_1),
        ("5-8", "It's a fast, brain-eating zombie that catches you and you lose 1 Life Point "
                "before you manage to fight it off.", LIFE_DOWN),
    ),
]

TABLES: dict[str, Table] = {t.id: t for t in _TABLES}
"""Every table by id."""

ENTRIES: dict[str, Entry] = {e.id: e for t in _TABLES for e in t.entries}
"""Every entry of every table by id (what the tests and the event log name)."""

ENCOUNTER = TABLES["encounter"]

ALLY_OPTIONS = {
    "A": "Move forward two spaces",
    "B": "Choose another player's Heir and move it back two spaces",
    "C": "Move forward one space, and choose another Heir to move back one space",
}
"""The Ally's 5-6 options (rulebook, "1. The Ally")."""

BUTLER_OPTIONS = {
    "accept": "Accept his offer (roll again)",
    "decline": "Refuse his offer (lose a turn)",
}
"""The Butler's 1-4 offer (rulebook, "3. The Butler")."""


def _check() -> None:
    """Every table covers 1 to 8 exactly once, and every "Roll again" names a table."""
    for table in _TABLES:
        covered = [v for e in table.entries for v in range(e.low, e.high + 1)]
        assert covered == list(range(1, DIE_SIDES + 1)), table.id
        for entry in table.entries:
            assert entry.roll is None or entry.roll in TABLES, entry.id
            assert not (entry.roll and entry.choice), entry.id


_check()
