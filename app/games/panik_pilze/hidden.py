"""What one seat cannot tell apart: Panik Pilze's secrets drawn again (docs/games/panik-pilze.md,
"Hidden information"; the conformance suite's secrecy check, tests/conformance/test_secrecy.py).

A seat sees the display's up sides (and down sides only with the memory aid), the pile's size and
its top card's up side, the baskets, the action discard pile and its own hand. So a state it
cannot tell from this one swaps mushroom cards among the hidden places (a display card keeps its
up side, the pile's top keeps its up side, a card below the top may lie either way up), and deals
the other hands and the action pile again from the cards they hold together, every size kept.
"""

from __future__ import annotations

import copy

from app.engine import SeededRng

from .cards import MUSHROOM_CARDS
from .state import PilzeState

SWAPS = 200
"""Random swaps tried among the hidden mushroom cards (each one that keeps what shows is made)."""


def hidden_variant(state: PilzeState, seat: int | None, rng: SeededRng) -> PilzeState:
    variant = copy.deepcopy(state)
    _swap_mushroom_cards(variant, rng)
    unseen = [c for s in range(state.players) if s != seat for c in state.hands[s]]
    unseen += state.action_pile
    rng.shuffle(unseen)
    for s in range(state.players):
        if s != seat:
            size = len(state.hands[s])
            variant.hands[s], unseen = unseen[:size], unseen[size:]
    variant.action_pile = unseen
    return variant


def _swap_mushroom_cards(state: PilzeState, rng: SeededRng) -> None:
    """Swap which card lies where among the places whose card nobody can name: the display
    (without the memory aid) and the pile. A place's shown side (a display card's up side, the
    pile top's up side) stays what it was; below the top either side may be up."""
    places: list[tuple[list[int], int, str | None]] = []
    if not state.memory_aid:
        places += [(state.display, i, state.up[c]) for i, c in enumerate(state.display)]
    top = len(state.pile) - 1
    places += [(state.pile, i, state.up[c] if i == top else None)
               for i, c in enumerate(state.pile)]
    if len(places) < 2:
        return
    for _ in range(SWAPS):
        (row_a, i, shown_a), (row_b, j, shown_b) = (places[rng.randbelow(len(places))]
                                                    for _ in range(2))
        a, b = row_a[i], row_b[j]
        if a == b or (shown_a and shown_a not in MUSHROOM_CARDS[b]) \
                or (shown_b and shown_b not in MUSHROOM_CARDS[a]):
            continue
        row_a[i], row_b[j] = b, a
        for card, shown in ((b, shown_a), (a, shown_b)):
            state.up[card] = shown if shown else MUSHROOM_CARDS[card][rng.randbelow(2)]
        if a in state.serial or b in state.serial:  # display numbers stay with the places
            serial_a, serial_b = state.serial.pop(a, None), state.serial.pop(b, None)
            if serial_a is not None:
                state.serial[b] = serial_a
            if serial_b is not None:
                state.serial[a] = serial_b
