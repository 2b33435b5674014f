"""The amoeba's path: a pure solver for one roll on one ring (the search decided in
docs/games/panic-lab.md).

Start at the rolled lab (not looked at) and step one tile at a time in the arrow's direction
(white ``+1``, black ``-1``). Every tile the search steps onto is *looked at*:

- a lab is neutral (the start lab too, when the search comes round again);
- a vent sends the amoeba to the next vent in the direction of travel; that exit vent is not
  looked at, the search goes on with the tile after it (a vent there jumps on again);
- a mutation room flips one attribute of the sought amoeba and counts a pass; on the 4th pass
  the amoeba is gone and that room is the answer;
- an amoeba of the kind sought at that moment is the answer.

On the box's rings the search always ends within two laps of looked-at tiles: from any point,
each run of ``len(ring)`` consecutive looks meets every tile exactly once (the three vents visit
the three stretches between them in turn), so the sought amoeba is met within one lap unless a
mutation room changes it, and by the second lap every room has been passed at least once more,
which makes a 4th pass. The solver still guards against rings where no answer is reachable
(two vents hiding the only copies, say) by detecting a repeated search state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .tiles import Attribute, Kind, Roll, Tile

StepKind = Literal["start", "look", "vent", "mutation", "answer"]
MAX_PASSES = 4


class SearchNeverEnds(ValueError):
    """The ring has no reachable answer for this roll (impossible with the box's tiles)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the path, for the client to animate.

    ``start``: the rolled lab. ``look``: a tile looked at, nothing happens. ``vent``: the amoeba
    enters vent ``index`` and comes out of vent ``to``. ``mutation``: a pass through a room;
    ``sought`` is the kind sought from now on, ``passes`` the count so far. ``answer``: the
    answer tile; ``reason`` is ``amoeba`` or ``fourth_pass`` (then ``attribute`` and ``passes``
    name the room and the pass).
    """

    index: int
    kind: StepKind
    to: int | None = None
    attribute: Attribute | None = None
    sought: Kind | None = None
    passes: int | None = None
    reason: Literal["amoeba", "fourth_pass"] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "kind": self.kind}
        if self.to is not None:
            out["to"] = self.to
        if self.attribute is not None:
            out["attribute"] = self.attribute
        if self.sought is not None:
            out["sought"] = self.sought.to_json()
        if self.passes is not None:
            out["passes"] = self.passes
        if self.reason is not None:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True, slots=True)
class Solution:
    """The answer tile and the path that leads to it."""

    answer: int
    reason: Literal["amoeba", "fourth_pass"]
    sought: Kind
    """The kind sought when the search ended (before the 4th flip, for a 4th pass)."""
    passes: int
    path: tuple[Step, ...]

    @property
    def looks(self) -> int:
        """How many tiles the search looked at (the start lab and exit vents are not)."""
        return len(self.path) - 1

    def to_json(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "reason": self.reason,
            "sought": self.sought.to_json(),
            "passes": self.passes,
            "path": [step.to_json() for step in self.path],
        }


def next_vent(ring: Sequence[Tile], index: int, step: int) -> int:
    """The first vent after ``index`` going in direction ``step`` (``index`` itself if alone)."""
    n = len(ring)
    pos = index
    for _ in range(n):
        pos = (pos + step) % n
        if ring[pos].type == "vent":
            return pos
    raise ValueError("no vent on the ring")


def find_lab(ring: Sequence[Tile], colour: str) -> int:
    found = [i for i, tile in enumerate(ring) if tile.type == "lab" and tile.lab == colour]
    if len(found) != 1:
        raise ValueError(f"the ring must hold exactly one {colour} lab, it holds {len(found)}")
    return found[0]


def solve(ring: Sequence[Tile], roll: Roll) -> Solution:
    """Follow the escaped amoeba from the rolled lab to the answer tile."""
    n = len(ring)
    step = roll.step
    pos = find_lab(ring, roll.lab)
    sought = roll.kind
    passes = 0
    path: list[Step] = [Step(pos, "start")]
    seen: set[tuple[int, Kind, int]] = set()
    while True:
        pos = (pos + step) % n
        state = (pos, sought, passes)
        if state in seen:
            raise SearchNeverEnds(f"no {roll.kind} is reachable from the {roll.lab} lab")
        seen.add(state)
        tile = ring[pos]
        if tile.type == "vent":
            exit_vent = next_vent(ring, pos, step)
            path.append(Step(pos, "vent", to=exit_vent))
            pos = exit_vent
        elif tile.type == "mutation":
            assert tile.attribute is not None
            passes += 1
            if passes == MAX_PASSES:
                path.append(Step(pos, "answer", attribute=tile.attribute, passes=passes,
                                 reason="fourth_pass"))
                return Solution(pos, "fourth_pass", sought, passes, tuple(path))
            sought = sought.flip(tile.attribute)
            path.append(Step(pos, "mutation", attribute=tile.attribute, sought=sought,
                             passes=passes))
        elif tile.type == "amoeba" and tile.kind == sought:
            path.append(Step(pos, "answer", sought=sought, reason="amoeba"))
            return Solution(pos, "amoeba", sought, passes, tuple(path))
        else:
            path.append(Step(pos, "look"))
