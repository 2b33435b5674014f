"""The 120 Panika cards as data (rulebook "Contents"; docs/games/panika.md: 120 cards as listed).

Each card has a stable integer id 0..119, assigned in the order of the rulebook's list:

- 0..65    number cards: 8x 0, 18x 1, 20x 2, 10x 3, 10x 4
- 66..95   vegetables: 10x Tomato, 10x Broccoli, 10x Carrot
- 96..119  specials: 6x Reverse, 8x Play Two, 10x Tap!
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["number", "vegetable", "special"]

VEGETABLE_TAPS = 5
"""Rulebook, "Vegetable Cards": one vegetable card taps the counter 5 times."""

REVERSE = "reverse"
PLAY_TWO = "play_two"
TAP = "tap"

SPECIAL_NAMES = {REVERSE: "Reverse", PLAY_TWO: "Play Two", TAP: "Tap!"}

NUMBER_COUNTS = ((0, 8), (1, 18), (2, 20), (3, 10), (4, 10))
VEGETABLE_COUNTS = (("tomato", 10), ("broccoli", 10), ("carrot", 10))
SPECIAL_COUNTS = ((REVERSE, 6), (PLAY_TWO, 8), (TAP, 10))


@dataclass(frozen=True, slots=True)
class Card:
    """One card. Exactly one of ``value``, ``vegetable``, ``special`` is set, by ``kind``."""

    id: int
    kind: Kind
    value: int | None = None
    vegetable: str | None = None
    special: str | None = None

    @property
    def name(self) -> str:
        """The card's name for the event log: "3", "Carrot", "Play Two"."""
        if self.kind == "number":
            return str(self.value)
        if self.kind == "vegetable":
            return str(self.vegetable).capitalize()
        return SPECIAL_NAMES[str(self.special)]

    @property
    def plural(self) -> str:
        """Two of the card, for the event log: "3s", "Carrots", "Tomatoes", "Play Twos"."""
        name = self.name
        return name + ("es" if name.endswith("o") else "s")

    @property
    def term(self) -> str:
        """The card's id in the catalogs (``event.panika.card.<term>``; a number card's term is
        its value, which needs no translation)."""
        if self.kind == "number":
            return str(self.value)
        return str(self.vegetable if self.kind == "vegetable" else self.special)

    @property
    def taps(self) -> int:
        """Taps for this card played alone: its value, 5 for a vegetable, 0 for a special."""
        if self.kind == "number":
            return int(self.value or 0)
        if self.kind == "vegetable":
            return VEGETABLE_TAPS
        return 0

    def to_json(self) -> dict[str, Any]:
        """``id``, ``kind`` and the one field that kind has (``value``, ``vegetable`` or
        ``special``): views carry many cards, so no empty fields."""
        field = {"number": "value", "vegetable": "vegetable", "special": "special"}[self.kind]
        return {"id": self.id, "kind": self.kind, field: getattr(self, field)}


def _build() -> tuple[Card, ...]:
    cards: list[Card] = []
    for value, count in NUMBER_COUNTS:
        cards += [Card(len(cards) + i, "number", value=value) for i in range(count)]
    for veg, count in VEGETABLE_COUNTS:
        cards += [Card(len(cards) + i, "vegetable", vegetable=veg) for i in range(count)]
    for special, count in SPECIAL_COUNTS:
        cards += [Card(len(cards) + i, "special", special=special) for i in range(count)]
    return tuple(cards)


CARDS: tuple[Card, ...] = _build()
"""Every card, indexed by id."""

DECK_SIZE = len(CARDS)

CARD_JSON: tuple[dict[str, Any], ...] = tuple(card.to_json() for card in CARDS)
"""Each card's JSON, built once; views share these dicts (read-only by convention)."""

assert DECK_SIZE == 120
