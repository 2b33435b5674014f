"""Build exact Panik Pilze states and drive the engine in tests."""

from __future__ import annotations

from typing import Any

from app.engine import Event, Move, SeededRng
from app.games.panik_pilze import GAME
from app.games.panik_pilze.cards import ACTION_CARDS, MUSHROOM_CARDS, MUSHROOMS
from app.games.panik_pilze.state import PilzeState

Side = tuple[str, str]
"""A mushroom card as ``(up, down)``."""


class MushroomDeck:
    """Hands out unused mushroom card ids by their two sides."""

    def __init__(self) -> None:
        self.free = list(range(60))

    def take(self, a: str, b: str) -> int:
        for cid in self.free:
            if set(MUSHROOM_CARDS[cid]) == {a, b}:
                self.free.remove(cid)
                return cid
        raise ValueError(f"no {a}/{b} card left")


class ActionDeck:
    """Hands out unused action card ids by name: "chef-draw1", "panik-turn2", "party", "steal"."""

    def __init__(self) -> None:
        self.free = list(range(26))

    def take(self, name: str) -> int:
        for cid in self.free:
            card = ACTION_CARDS[cid]
            label = card.kind if card.kind != "collect" else (
                f"{card.mushroom}-{card.action}{card.count}")
            if label == name:
                self.free.remove(cid)
                return cid
        raise ValueError(f"no {name} left")


def _filler_sides(deck: MushroomDeck, count: int) -> list[int]:
    picked = deck.free[:count]
    del deck.free[:count]
    return picked


def build(
    hands: list[list[str]],
    *,
    display: list[Side],
    pile: list[Side] | int = 20,
    baskets: list[dict[str, int]] | None = None,
    turn: int = 0,
    memory_aid: bool = False,
    turn_seconds: int = 0,
    action_pile: list[str] | None = None,
) -> PilzeState:
    """A state with exactly these hands, display (in lay-out order) and pile (bottom to top, or
    a count of filler cards). Baskets get cards with the named type up. The other action cards
    form the action pile (``action_pile`` names its top cards, bottom to top, and leaves the
    rest on the discard pile instead); unused mushroom cards are nowhere (tests that count all 60
    build states with ``GAME.setup``)."""
    players = len(hands)
    mushrooms = MushroomDeck()
    actions = ActionDeck()
    up = [MUSHROOM_CARDS[c][0] for c in range(60)]
    hand_ids = [[actions.take(n) for n in h] for h in hands]

    def place(sides: list[Side]) -> list[int]:
        ids = []
        for u, d in sides:
            cid = mushrooms.take(u, d)
            up[cid] = u
            ids.append(cid)
        return ids

    display_ids = place(display)
    if isinstance(pile, int):
        pile_ids = _filler_sides(mushrooms, pile)
    else:
        pile_ids = place(pile)
    basket_ids: list[dict[str, list[int]]] = []
    for seat in range(players):
        wanted = (baskets or [{}] * players)[seat] if baskets else {}
        stacks: dict[str, list[int]] = {m: [] for m in MUSHROOMS}
        for m, n in wanted.items():
            for _ in range(n):
                other = next(x for x in MUSHROOMS if x != m and any(
                    set(MUSHROOM_CARDS[c]) == {m, x} for c in mushrooms.free))
                cid = mushrooms.take(m, other)
                up[cid] = m
                stacks[m].append(cid)
        basket_ids.append(stacks)
    if action_pile is None:
        apile, discard = list(actions.free), []
    else:
        apile = [actions.take(n) for n in action_pile]
        discard = list(actions.free)
    state = PilzeState(
        players=players, memory_aid=memory_aid, turn_seconds=turn_seconds, up=up,
        pile=pile_ids, display=display_ids,
        serial={c: i + 1 for i, c in enumerate(display_ids)}, laid=len(display_ids),
        baskets=basket_ids, hands=hand_ids, action_pile=apile, action_discard=discard,
        turn=turn, turn_serial=1,
    )
    return state


def card(name: str, state: PilzeState, seat: int) -> int:
    """The id of the first card of ``seat``'s hand with this name."""
    for cid in state.hands[seat]:
        c = ACTION_CARDS[cid]
        label = c.kind if c.kind != "collect" else f"{c.mushroom}-{c.action}{c.count}"
        if label == name:
            return cid
    raise ValueError(f"seat {seat} holds no {name}")


def act(state: PilzeState, seat: int | None, action: dict[str, Any],
        rng: SeededRng | None = None) -> list[Event]:
    """Parse, validate and apply one raw action."""
    return GAME.step(state, Move(seat, GAME.parse_action(action)), rng or SeededRng(b"test"))


def display_ups(state: PilzeState) -> list[str]:
    return [state.up[c] for c in state.display]


def serial_of(state: PilzeState, index: int) -> int:
    """The public number of the display card at ``index``."""
    return state.serial[state.display[index]]


def counts(state: PilzeState, seat: int) -> dict[str, int]:
    return {m: n for m, n in state.basket_counts(seat).items() if n}
