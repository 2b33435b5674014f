"""The state of a Panik Pilze match: plain dataclasses the engine mutates in place.

Secrets live here and never reach a view they do not belong to (docs/games/panik-pilze.md,
"Hidden information"): the order and the down sides of the mushroom draw pile below its top,
the down sides of display cards (unless the room's memory aid is on), every action hand but
the seat's own, and the order of the action draw pile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .cards import MUSHROOMS

Phase = Literal["play", "over"]
EndCause = Literal["draw", "refill", "limit"]


@dataclass(slots=True)
class PilzeState:
    players: int
    memory_aid: bool
    turn_seconds: int
    """0: no turn timer (the default for this calm game)."""
    up: list[str]
    """``up[card]``: the mushroom on the side of mushroom card ``card`` that faces up."""
    pile: list[int]
    """The mushroom draw pile; the top card (whose up side everyone sees) is the last element."""
    display: list[int] = field(default_factory=list)
    """The display (Auslage), in the order the cards were laid out."""
    serial: dict[int, int] = field(default_factory=dict)
    """Display card -> its public number (the count of cards laid out so far when it came).
    Views and actions name display cards by this number, never by the card id (which would
    tell both sides)."""
    laid: int = 0
    baskets: list[dict[str, list[int]]] = field(default_factory=list)
    """Per seat, per mushroom type, the stack of cards (top last), that type facing up."""
    hands: list[list[int]] = field(default_factory=list)
    action_pile: list[int] = field(default_factory=list)
    """The action draw pile; top last. Its order is secret."""
    action_discard: list[int] = field(default_factory=list)
    """The action discard pile (face up); top last."""

    phase: Phase = "play"
    turn: int = 0
    turn_serial: int = 0
    turns_played: int = 0
    end_cause: EndCause | None = None
    last_turn: dict | None = None
    """What the latest turn did, for the page: ``{"seat", "kind", "card", "mushroom", "taken",
    "flipped", "laid", "victim", "count"}`` (public facts only; ``laid``: the display numbers of the cards
    laid out during the turn, by a draw action and by the refill)."""

    def basket_counts(self, seat: int) -> dict[str, int]:
        return {m: len(self.baskets[seat][m]) for m in MUSHROOMS}

    def display_by_serial(self) -> dict[int, int]:
        """Public display number -> card id."""
        return {self.serial[c]: c for c in self.display}
