"""Build exact Panika states and drive the engine in tests."""

from __future__ import annotations

import random
from typing import Any

from app.engine import Event, Move, SeededRng
from app.games.panika import GAME
from app.games.panika.cards import CARDS
from app.games.panika.state import PanikaState

NAMES = {
    **{str(v): ("number", v) for v in range(5)},
    "tomato": ("vegetable", "tomato"), "broccoli": ("vegetable", "broccoli"),
    "carrot": ("vegetable", "carrot"),
    "reverse": ("special", "reverse"), "play2": ("special", "play_two"), "tap": ("special", "tap"),
}


class Deck:
    """Hands out unused card ids by name ("3", "carrot", "play2", "tap", ...)."""

    def __init__(self) -> None:
        self.free = list(range(120))

    def take(self, name: str) -> int:
        kind, what = NAMES[name]
        for cid in self.free:
            card = CARDS[cid]
            if card.kind == kind and what in (card.value, card.vegetable, card.special):
                self.free.remove(cid)
                return cid
        raise ValueError(f"no {name} left")

    def filler(self, count: int) -> list[int]:
        """``count`` unused cards: number cards first (4s down to 0s), then the rest."""
        order = {"number": 0, "vegetable": 1, "special": 2}
        ranked = sorted(self.free, key=lambda c: (order[CARDS[c].kind], -c))
        picked = ranked[:count]
        if len(picked) < count:
            raise ValueError("not enough cards left")
        for c in picked:
            self.free.remove(c)
        return picked


def build(
    hands: list[list[str]],
    piles: list[int | list[str]] | None = None,
    *,
    counter: int = 0,
    burst_at: int = 30,
    turn: int = 0,
    direction: int = 1,
    play_two: int | None = None,
    turn_seconds: int = 30,
) -> tuple[PanikaState, Deck]:
    """A state with exactly these hands and piles (a pile given as a count gets filler number
    cards; as names, listed bottom to top); every other card is on the discard pile."""
    deck = Deck()
    players = len(hands)
    piles = piles if piles is not None else [0] * players
    hand_ids = [[deck.take(n) for n in h] for h in hands]
    pile_ids = [deck.filler(p) if isinstance(p, int) else [deck.take(n) for n in p]
                for p in piles]
    state = PanikaState(
        players=players, turn_seconds=turn_seconds, hands=hand_ids, piles=pile_ids,
        discard=list(deck.free), counter=counter, burst_at=burst_at, round=1,
        direction=direction, turn=turn, play_two=play_two,
        last_card_called=[False] * players, penalty_cards=[0] * players, turn_serial=1,
    )
    deck.free = []
    return state, deck


def act(state: PanikaState, seat: int | None, action: dict[str, Any],
        rng: SeededRng | None = None) -> list[Event]:
    """Parse, validate and apply one raw action."""
    return GAME.step(state, Move(seat, GAME.parse_action(action)), rng or SeededRng(b"test"))


def play(state: PanikaState, seat: int, *cards: int, rng: SeededRng | None = None) -> list[Event]:
    return act(state, seat, {"type": "play", "cards": list(cards)}, rng)


def tap(state: PanikaState, seat: int, times: int = 1,
        rng: SeededRng | None = None) -> list[Event]:
    events: list[Event] = []
    for _ in range(times):
        events += act(state, seat, {"type": "tap"}, rng)
    return events


def total_cards(state: PanikaState) -> int:
    return sum(map(len, state.hands)) + sum(map(len, state.piles)) + len(state.discard)


def random_moves(state: PanikaState, chooser: random.Random) -> list[tuple[int | None, dict]]:
    """Every move worth trying now: legal plays, the owed tap, timer actions, Last card! calls."""
    from app.games.panika import rules

    out: list[tuple[int | None, dict]] = []
    if state.phase == "over":
        return out
    if state.phase == "play":
        out += [(state.turn, {"type": "play", "cards": p})
                for p in rules.legal_plays(state, state.turn)]
    else:
        out += [(state.tapper, {"type": "tap"})] * 3
    out += [(None, t.action) for t in GAME.timers(state)]
    calls = [(chooser.randrange(state.players), {"type": "last_card"})]
    if state.window is not None:
        calls.append((state.window, {"type": "last_card"}))
    # Only calls that count: a false call is refused (docs/games/panika.md, decision 10).
    out += [(s, a) for s, a in calls if rules.last_card_counts(state, s)]
    return out
