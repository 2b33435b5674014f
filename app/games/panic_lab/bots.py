"""Panic Lab's computer player (docs/bots.md, "Panic Lab"; the rules: docs/games/panic-lab.md).

Once the dice are shown (never before: before the reveal ``legal`` is empty and the dice are not
in the view) the bot follows the amoeba with the engine's own pure solver on public data, the
ring and the dice. It claims after a human-like reaction time, drawn once per round from the
bot's own seeded generator: a base (reading the dice, finding the start lab, reaching for the
tile) plus a time per tile the search looks at and per rule it applies (a vent's jump, a
mutation), with log-normal spread. The levels are set against people (docs/decisions/0059):
normal, the default, claims after a median of about 6 s on the standard ring, slower than a
first-time player; easy is slower still and now and then makes a human mistake (it forgets the
vents, or the mutation rooms, or follows the arrow the wrong way); hard is about twice as fast
as normal and almost never wrong.

The plan (tile and reaction time) is made once per round. Each state frame replaces the pending
decision (docs/bots.md, "The seam"), so the bot returns its plan again with the time left,
measured by the search timer's ``remaining_ms`` since the reveal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from app.engine.bots import Action, Bot, Frame

from .solver import SearchNeverEnds, Solution, solve
from .tiles import Kind, Roll, Tile


@dataclass(frozen=True, slots=True)
class Reflexes:
    """How fast and how reliably a difficulty finds the amoeba."""

    base_ms: float
    """Reading the four dice, finding the start lab and reaching for the tile."""
    per_look_ms: float
    """Each tile the search looks at."""
    per_rule_ms: float
    """Each rule applied on the way: a vent's jump to the next vent, a mutation room's change."""
    spread: float
    """Sigma of the log-normal factor on the reaction time."""
    mistake: float
    """The chance of a human mistake in the search."""


REFLEXES: dict[str, Reflexes] = {
    "easy": Reflexes(base_ms=4000, per_look_ms=550, per_rule_ms=1000, spread=0.35, mistake=0.2),
    "normal": Reflexes(base_ms=2500, per_look_ms=350, per_rule_ms=600, spread=0.3, mistake=0.05),
    "hard": Reflexes(base_ms=1200, per_look_ms=180, per_rule_ms=300, spread=0.25, mistake=0.01),
}
"""Set against a first-time player's estimated 1.5 s + 250 ms a tile + 500 ms a rule + 0.5 s to
tap (about 5 s on the standard ring's median path): normal takes about 1.3 times as long at
every part, easy about twice, hard about two thirds (docs/decisions/0059; the distributions:
docs/bots.md, "Panic Lab")."""

MIN_REACTION_MS = 400
"""Nobody reads four dice and a ring faster."""
SEARCH_TIMER = "search:"


def tile_from_json(data: dict[str, Any]) -> Tile:
    """A ring tile from the view's JSON (docs/games/panic-lab.md, "Components")."""
    kind = data["type"]
    if kind == "lab":
        return Tile("lab", lab=data["colour"])
    if kind == "mutation":
        return Tile("mutation", attribute=data["attribute"])
    if kind == "amoeba":
        return Tile("amoeba", kind=Kind(data["colour"], data["shape"], data["pattern"]))
    return Tile("vent")


def roll_from_json(dice: dict[str, Any]) -> Roll:
    return Roll(dice["lab"], dice["arrow"], Kind(dice["colour"], dice["shape"], dice["pattern"]))


NEUTRAL = Tile("lab")
"""A tile the search looks at and passes (a lab of no colour): what a forgotten tile becomes."""


def mistaken_answers(ring: list[Tile], roll: Roll) -> list[int]:
    """Tiles a hurried person would claim: forgetting the vents, forgetting the mutation rooms,
    or following the arrow the wrong way."""
    variants = [
        ([NEUTRAL if t.type == "vent" else t for t in ring], roll),
        ([NEUTRAL if t.type == "mutation" else t for t in ring], roll),
        (ring, Roll(roll.lab, "black" if roll.arrow == "white" else "white", roll.kind)),
    ]
    found = []
    for tiles, dice in variants:
        try:
            found.append(solve(tiles, dice).answer)
        except SearchNeverEnds:
            continue
    return found


def rules_applied(solution: Solution) -> int:
    """The vent jumps and mutation passes on the amoeba's path: each is a rule a person must
    remember and apply, slower than a plain look."""
    return sum(1 for step in solution.path if step.kind in ("vent", "mutation"))


def reaction_ms(reflexes: Reflexes, solution: Solution) -> float:
    """The level's median reaction time on this path, before its spread."""
    return (reflexes.base_ms + reflexes.per_look_ms * solution.looks
            + reflexes.per_rule_ms * rules_applied(solution))


class PanicLabBot(Bot):
    game_id = "panic_lab"

    def __init__(self, game_id: str, seat: int, difficulty: str = "normal",
                 seed: Any = None) -> None:
        super().__init__(game_id, seat, difficulty, seed)  # type: ignore[arg-type]
        self.reflexes = REFLEXES[self.difficulty]
        self._ring: list[Tile] | None = None
        self._plan: dict[int, tuple[int, float, int | None]] = {}
        """Per round: (tile to claim, reaction ms after the reveal, search ms at the reveal)."""

    def choose(self, frame: Frame, legal: list[Action]) -> tuple[Action, float] | None:
        view = frame["view"]
        if view.get("dice") is None or view["phase"] not in ("search", "settling"):
            return None
        if self._ring is None:
            self._ring = [tile_from_json(t) for t in view["ring"]]
        rnd = view["round"]
        remaining = _search_remaining(frame)
        if rnd not in self._plan:
            self._plan = {rnd: self._make_plan(view, legal, remaining)}
        tile, reaction_ms, at_reveal = self._plan[rnd]
        action = {"type": "claim", "tile": tile}
        if action not in legal:
            return None
        elapsed = 0 if at_reveal is None or remaining is None else at_reveal - remaining
        return action, max(0.0, reaction_ms - elapsed)

    def _make_plan(self, view: dict[str, Any], legal: list[Action],
                   remaining: int | None) -> tuple[int, float, int | None]:
        assert self._ring is not None
        roll = roll_from_json(view["dice"])
        solution = solve(self._ring, roll)
        reflexes = self.reflexes
        claimable = {a["tile"] for a in legal if a.get("type") == "claim"}
        tile = solution.answer
        if self.random.random() < reflexes.mistake:
            wrong = [t for t in mistaken_answers(self._ring, roll)
                     if t != solution.answer and t in claimable]
            if not wrong:  # the other copy of the sought amoeba is the classic slip
                wrong = [i for i in claimable if i != solution.answer
                         and self._ring[i].kind == solution.sought]
            if wrong:
                tile = self.random.choice(wrong)
        reaction = reaction_ms(reflexes, solution) * math.exp(self.random.gauss(0, reflexes.spread))
        reaction = max(MIN_REACTION_MS, reaction)
        if remaining is not None:  # a person who takes too long still claims before time's up
            reaction = min(reaction, remaining - 500)
        return tile, reaction, remaining


def _search_remaining(frame: Frame) -> int | None:
    """Milliseconds left on this round's search timer, as the frame shows them."""
    for timer in frame.get("timers") or []:
        if str(timer.get("key", "")).startswith(SEARCH_TIMER):
            return int(timer["remaining_ms"])
    return None
