"""What one seat cannot tell apart: Panika's secrets drawn again (docs/games/panika.md,
"Hidden"; the conformance suite's secrecy check, tests/conformance/test_secrecy.py).

A seat sees its own hand, the discard pile, the counter and every public count; it never sees the
burst number, the other hands, or any draw pile, its own included (face down). So a state the seat
cannot tell from this one has the burst number drawn again above the counter, and the other hands
and all the piles dealt again from the cards they hold together, every size kept.
"""

from __future__ import annotations

import copy

from app.engine import SeededRng

from .rules import BURST_MAX, BURST_MIN
from .state import PanikaState


def hidden_variant(state: PanikaState, seat: int | None, rng: SeededRng) -> PanikaState:
    variant = copy.deepcopy(state)
    if state.phase != "over" and state.counter < BURST_MAX:
        variant.burst_at = rng.randint(max(state.counter + 1, BURST_MIN), BURST_MAX)
    unseen = [c for s in range(state.players) if s != seat for c in state.hands[s]]
    unseen += [c for pile in state.piles for c in pile]
    rng.shuffle(unseen)
    for s in range(state.players):
        if s != seat:
            size = len(state.hands[s])
            variant.hands[s], unseen = unseen[:size], unseen[size:]
    for s in range(state.players):
        size = len(state.piles[s])
        variant.piles[s], unseen = unseen[:size], unseen[size:]
    return variant
