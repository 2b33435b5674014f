"""The 60 mushroom cards and 26 action cards of Panik Pilze, as data (rulebook "Components";
docs/games/panik-pilze.md, decisions 1 and 2).

Mushroom cards have ids 0..59 and show one mushroom on each side: every pair of two different
types, ``MUSHROOM_COPIES`` copies of each pair (10 pairs x 6 = 60). Which side is up is state
(``PilzeState.up``), not part of the card.

Action cards have ids 0..25, in the order of ``ACTION_MIX``: for each mushroom type a collect
card per collect action, then the Mushroom Party cards, then the Steal cards. Change the mix here
and the rest follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

MUSHROOMS: tuple[str, ...] = ("schlaubi", "chef", "knuddel", "panik", "gifti")
"""The five types, named as the rulebook's game names them; Panik is the red one."""

MUSHROOM_NAMES = {m: m.capitalize() for m in MUSHROOMS}

PANIK = "panik"
"""The type whose first place scores one point more (rulebook, "Scoring", EXCEPTION)."""

MUSHROOM_COPIES = 6

MUSHROOM_CARDS: tuple[tuple[str, str], ...] = tuple(
    pair for pair in combinations(MUSHROOMS, 2) for _ in range(MUSHROOM_COPIES)
)
"""``MUSHROOM_CARDS[id]`` is the card's two sides (in no particular up/down order)."""

MUSHROOM_DECK = len(MUSHROOM_CARDS)


def other_side(card: int, side: str) -> str:
    """The mushroom on the other side of ``card`` from ``side``."""
    a, b = MUSHROOM_CARDS[card]
    return b if side == a else a


ActionKind = Literal["collect", "party", "steal"]
CollectAction = Literal["draw", "turn"]

COLLECT_ACTIONS: tuple[tuple[CollectAction, int], ...] = (
    ("draw", 1), ("draw", 2), ("turn", 1), ("turn", 2),
)
"""The four actions printed in a collect card's corner (rulebook, "Collect card")."""

PARTY_CARDS = 3
STEAL_CARDS = 3


@dataclass(frozen=True, slots=True)
class ActionCard:
    """One action card. ``mushroom``, ``action`` and ``count`` are set for collect cards only."""

    id: int
    kind: ActionKind
    mushroom: str | None = None
    action: CollectAction | None = None
    count: int = 0

    @property
    def name(self) -> str:
        """The card's name for the event log: "Chef, draw 2", "Mushroom Party", "Steal"."""
        if self.kind == "collect":
            return f"{MUSHROOM_NAMES[str(self.mushroom)]}, {self.action} {self.count}"
        return "Mushroom Party" if self.kind == "party" else "Steal"

    def to_json(self) -> dict[str, Any]:
        if self.kind == "collect":
            return {"id": self.id, "kind": "collect", "mushroom": self.mushroom,
                    "action": self.action, "count": self.count}
        return {"id": self.id, "kind": self.kind}


def _build_actions() -> tuple[ActionCard, ...]:
    cards: list[ActionCard] = []
    for mushroom in MUSHROOMS:
        for action, count in COLLECT_ACTIONS:
            cards.append(ActionCard(len(cards), "collect", mushroom, action, count))
    cards += [ActionCard(len(cards) + i, "party") for i in range(PARTY_CARDS)]
    cards += [ActionCard(len(cards) + i, "steal") for i in range(STEAL_CARDS)]
    return tuple(cards)


ACTION_CARDS: tuple[ActionCard, ...] = _build_actions()
ACTION_DECK = len(ACTION_CARDS)
ACTION_JSON: tuple[dict[str, Any], ...] = tuple(card.to_json() for card in ACTION_CARDS)

HAND_SIZE = 3
DISPLAY_SIZE = 4

assert MUSHROOM_DECK == 60 and ACTION_DECK == 26
