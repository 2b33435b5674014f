"""The state of a Panika match: plain dataclasses the engine mutates in place.

Secrets live here and never reach a view: the burst number (``burst_at``), every hand, and the
contents and order of every draw pile (docs/games/panika.md, "Hidden").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Phase = Literal["play", "tapping", "over"]


@dataclass(slots=True)
class AfterTaps:
    """What happens when the tap queue empties.

    ``kind == "own"``: ``seat`` tapped for their own play; then they draw and ``special`` (a card
    id, or None) acts. ``kind == "tap_card"``: the others tapped for ``seat``'s Tap!; then
    ``seat`` plays again (rulebook, "Tap!").
    """

    kind: Literal["own", "tap_card"]
    seat: int
    special: int | None = None


@dataclass(slots=True)
class PanikaState:
    players: int
    turn_seconds: int
    hands: list[list[int]]
    piles: list[list[int]]
    """Each draw pile; the top card is the last element."""
    discard: list[int] = field(default_factory=list)
    """The discard pile; the top card is the last element."""

    counter: int = 0
    burst_at: int = 0
    """SECRET: the number the counter bursts on this round (21..30)."""
    round: int = 0
    direction: int = 1
    """+1 clockwise (increasing seat index), -1 after an odd number of Reverses."""

    phase: Phase = "play"
    turn: int = 0
    play_two: int | None = None
    """The seat that must play two cards on its turn, if any."""
    tap_queue: list[list[int]] = field(default_factory=list)
    """``[seat, taps owed]`` entries; the first is tapping now."""
    after_taps: AfterTaps | None = None

    last_card_called: list[bool] = field(default_factory=list)
    window: int | None = None
    """The seat whose "Last card!" window is open (it ended its turn with one card, no pile, and
    has not called yet)."""

    turn_serial: int = 0
    burst_turn: int = -1
    """The ``turn_serial`` of the turn that follows a burst: its timer runs
    ``rules.BURST_SHOW_SECONDS`` longer, the time the burst is shown."""
    tap_serial: int = 0
    window_serial: int = 0
    total_taps: int = 0

    last_play: dict | None = None
    """``{"seat", "cards": [ids], "taps"}`` of the latest play (public: the cards are face up)."""
    last_burst: dict | None = None
    """``{"seat", "number", "round"}`` of the latest burst: the only place a burst number shows."""
    penalty_cards: list[int] = field(default_factory=list)
    """Penalty cards each seat has received over the match (for the summary)."""
    winners: list[int] = field(default_factory=list)

    def cards_left(self, seat: int) -> int:
        return len(self.hands[seat]) + len(self.piles[seat])

    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` places from ``seat`` in the current direction."""
        return (seat + steps * self.direction) % self.players

    @property
    def tapper(self) -> int | None:
        return self.tap_queue[0][0] if self.tap_queue else None
