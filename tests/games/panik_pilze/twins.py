"""Twins of a Panik Pilze state that differ only in what ``seat`` must not know.

A field-by-field search for a secret proves little here (the five mushroom names appear all over
a view), so the tests prove something stronger: the view a seat gets is identical for every twin
whose secrets differ: another order and other sides of the pile below its top, other down sides
of the display cards, other hands for the other seats, another order of the action pile.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator

from app.games.panik_pilze.cards import MUSHROOM_CARDS, other_side
from app.games.panik_pilze.state import PilzeState


def _clone(state: PilzeState) -> PilzeState:
    return copy.deepcopy(state)


def twins(state: PilzeState, seat: int | None, chooser: random.Random) -> Iterator[PilzeState]:
    # The pile below its top: another order, other sides up.
    if len(state.pile) > 2:
        twin = _clone(state)
        below = twin.pile[:-1]
        chooser.shuffle(below)
        twin.pile[:-1] = below
        for c in below:
            twin.up[c] = other_side(c, twin.up[c]) if chooser.random() < 0.5 else twin.up[c]
        yield twin
    # The display's down sides (only secret without the memory aid): swap each display card with
    # a card below the pile's top that shows the same mushroom on another card.
    if not state.memory_aid:
        twin = _clone(state)
        changed = False
        for i, d in enumerate(twin.display):
            up, down = twin.up[d], other_side(d, twin.up[d])
            for j, c in enumerate(twin.pile[:-1]):
                if up in MUSHROOM_CARDS[c] and other_side(c, up) != down:
                    twin.display[i], twin.pile[j] = c, d
                    twin.up[c] = up
                    twin.serial[c] = twin.serial.pop(d)
                    changed = True
                    break
        if changed:
            yield twin
    # The other seats' hands and the action pile's order.
    twin = _clone(state)
    pool = list(twin.action_pile)
    for other in range(twin.players):
        if other == seat:
            continue
        for k in range(len(twin.hands[other])):
            if pool:
                swap = pool.pop()
                at = twin.action_pile.index(swap)
                twin.action_pile[at], twin.hands[other][k] = twin.hands[other][k], swap
    chooser.shuffle(twin.action_pile)
    yield twin
