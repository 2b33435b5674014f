"""The state of a Panique match: plain dataclasses the engine mutates in place.

Everything in Panique is public (docs/games/panique.md); the only thing no view shows is a die not
yet rolled, which the state does not hold either (a roll is drawn from the generator when the
``roll`` move is applied).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Phase = Literal["order", "play", "over"]
Status = Literal["in", "out", "escaped"]
Purpose = Literal["order", "circle", "move", "encounter", "table", "butler", "ally", "rest"]

MAX_LIFE = 3


@dataclass(slots=True)
class Heir:
    space: int = 0
    life: int = MAX_LIFE
    lost_turns: int = 0
    """Turns still to lose: each "lose a turn" adds one (they stack)."""
    vampire: bool = False
    """Bested by the vampire: the sunrise kills this heir at Leave the House."""
    status: Status = "in"


@dataclass(slots=True)
class Pending:
    """What the game waits on: a roll (``purpose`` order, circle, move, encounter, table) or a
    choice (butler, ally, rest), by ``seats`` (several only in the roll for the first player)."""

    purpose: Purpose
    seats: list[int]
    table: str | None = None
    """For a ``table`` roll: the table rolled on."""
    heir: int | None = None
    """The heir the roll or choice is about."""


@dataclass(slots=True)
class PaniqueState:
    players: int
    choice_seconds: int
    heirs: list[Heir]
    phase: Phase = "order"
    circle: int | None = None
    """The Circle of Life's die: None until it is first rolled, then its last value."""
    order_rolls: dict[int, int] = field(default_factory=dict)
    """The current roll for the first player: seat -> value (the tied roll again)."""
    first: int | None = None
    turn: int | None = None
    """The active heir's seat."""
    turns: int = 0
    """Turns played so far (lost turns not counted)."""
    pending: Pending | None = None
    serial: int = 0
    """Counts the pendings, so each gets its own timer."""
    out_order: list[int] = field(default_factory=list)
    """Seats in the order their heirs were eliminated; the first makes the encounter rolls."""
    rest_queue: list[int] = field(default_factory=list)
    """Heirs still to be offered the shared-space rest at the end of this turn."""
    card: dict | None = None
    """The encounter being resolved (or last resolved): title, heir, and one line per roll."""
    card_before: tuple[int, int, int] | None = None
    """The card's heir's (life, space, lost turns) when its encounter began (for its outcome)."""
    last_roll: dict | None = None
    """The latest die rolled: ``{"seat", "die", "value", "purpose"}``."""
    winners: list[int] = field(default_factory=list)
    ending: str = ""
    """Once over: "escape", "last_alive", "solo_escape", "solo_death" or "dawn" (the bound)."""
    moves: int = 0
    """Moves applied so far (rolls, choices, timeouts): the bound counts them."""

    @property
    def first_out(self) -> int | None:
        return self.out_order[0] if self.out_order else None

    def living(self) -> list[int]:
        return [s for s, h in enumerate(self.heirs) if h.status == "in"]
