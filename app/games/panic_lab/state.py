"""Panic Lab's match state (owned and mutated by the engine only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .actions import PanicLabOptions
from .solver import Solution
from .tiles import Roll, Tile

Phase = Literal["countdown", "search", "settling", "result", "over"]


@dataclass(slots=True)
class Claim:
    """A player's one claim of a round, as the room received it."""

    seat: int
    tile: int
    at_ms: int
    rtt_ms: int
    correct: bool
    reaction_ms: int
    """``at_ms - reveal_at_ms - min(rtt_ms, 300)``: what latency-fair mode compares."""

    def to_json(self, *, with_reaction: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "tile": self.tile, "correct": self.correct}
        if with_reaction:
            out["reaction_ms"] = self.reaction_ms
        return out


@dataclass(slots=True)
class PanicLabState:
    players: int
    options: PanicLabOptions
    ring: tuple[Tile, ...]
    ring_json: list[dict[str, Any]]
    """The public ring, built once per match (view() is on the hot path)."""
    tokens: list[int]
    phase: Phase = "countdown"
    round: int = 1
    roll: Roll | None = None
    solution: Solution | None = None
    """The answer of the current round: secret until the round is decided."""
    reveal_at_ms: int = 0
    claims: list[Claim] = field(default_factory=list)
    """This round's claims in arrival order."""
    claimed: set[int] = field(default_factory=set)
    locked: set[int] = field(default_factory=set)
    """Seats that claimed wrong this round."""
    settle_deadline_ms: int | None = None
    settle_seconds: float = 0.0
    last_round: dict[str, Any] | None = None
    """The public summary of the last decided round, built once when it ends."""
    winner: int | None = None
