"""The haunted house: 30 spaces, 0 (Enter) to 29 (Leave the House), as data.

The rulebook's board picture was not supplied; this board is the project's (docs/games/panique.md,
decision 1). A space's instruction acts only when the heir's movement roll put it there; a blank
space then means an encounter (rulebook, "Playing the game"). Moves caused by encounters or
spaces trigger nothing.

Each instruction is an effect in the operations of ``tables.Op``, or a table to roll on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .tables import TABLES, Op

ENTER = 0
SLIME_PIT = 5
LEAVE = 29
SPACES_COUNT = 30


@dataclass(frozen=True, slots=True)
class Space:
    index: int
    name: str
    text: str
    """The instruction as printed on our board ("" for a blank space)."""
    effect: tuple[Op, ...] = ()
    roll: str | None = None
    """A table rolled on when an heir lands here by its movement roll."""
    room: str = ""
    """The room of the house the space lies in (for the picture)."""

    @property
    def blank(self) -> bool:
        return not self.text

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "text": self.text, "room": self.room,
                "blank": self.blank}


_NAMED: dict[int, tuple[str, str, tuple[Op, ...], str | None]] = {
    0: ("Enter", "Every heir starts here.", (), None),
    3: ("Library", "Gain 1 Life Point.", (("life", 1),), None),
    5: ("Slime Pit", "Lose 1 Life Point. An heir sent here loses no Life Point but loses the "
                     "next turn.", (("life", -1),), None),
    8: ("Portrait Gallery", "A ghost steps out of a frame: roll on the Ghost's table.", (),
        "ghost"),
    10: ("Secret Passage", "Move forward 3 spaces.", (("move", 3),), None),
    13: ("Chapel", "Gain 1 Life Point.", (("life", 1),), None),
    15: ("Trap Door", "Fall into the Slime Pit.", (("slime", 0),), None),
    17: ("Grandfather Clock", "Lose a turn.", (("lose_turn", 1),), None),
    19: ("Laboratory", "Meet the Mad Doctor: roll on his table.", (), "mad_doctor"),
    21: ("Conservatory", "Meet the Man-Eating Plant: roll on its table.", (), "plant"),
    23: ("Kitchen", "Meet the Mad Killers: roll on their table.", (), "mad_killers"),
    25: ("Crypt", "Meet the Vampire: roll on his line of the Monsters' table.", (), "monsters.6"),
    27: ("Collapsed Staircase", "Move back 4 spaces.", (("move", -4),), None),
    29: ("Leave the House", "Escape and see the sunrise.", (), None),
}

_ROOMS = [
    (range(0, 3), "Hall"), (range(3, 5), "Library"), (range(5, 8), "Cellar"),
    (range(8, 10), "Gallery"), (range(10, 13), "Passages"), (range(13, 15), "Chapel"),
    (range(15, 19), "Tower"), (range(19, 21), "Laboratory"), (range(21, 23), "Conservatory"),
    (range(23, 25), "Kitchen"), (range(25, 27), "Crypt"), (range(27, 30), "Grand Stairs"),
]


def _room(index: int) -> str:
    return next(name for span, name in _ROOMS if index in span)


def _build() -> tuple[Space, ...]:
    spaces = []
    for i in range(SPACES_COUNT):
        name, text, effect, roll = _NAMED.get(i, ("", "", (), None))
        spaces.append(Space(i, name or f"Space {i}", text, effect, roll, _room(i)))
    return tuple(spaces)


SPACES: tuple[Space, ...] = _build()
"""Every space by index."""

BOARD_JSON: tuple[dict[str, Any], ...] = tuple(s.to_json() for s in SPACES)

assert all(s.roll is None or s.roll in TABLES for s in SPACES)
