"""Panic Lab's components as data: the 25 tiles, the four dice and the variants.

Ring indices grow clockwise (the client draws index 0 at the top and goes clockwise), so a white
arrow steps ``+1`` and a black arrow ``-1``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import product
from typing import Any, Literal

from app.engine import SeededRng

Colour = Literal["red", "violet"]
Shape = Literal["tentacled", "crawling"]
Pattern = Literal["striped", "dotted"]
Attribute = Literal["colour", "shape", "pattern"]
LabColour = Literal["blue", "yellow", "red"]
Arrow = Literal["white", "black"]
TileType = Literal["lab", "vent", "mutation", "amoeba"]
Variant = Literal["standard", "no_mutations", "no_mutations_no_vents"]

COLOURS: tuple[Colour, Colour] = ("red", "violet")
SHAPES: tuple[Shape, Shape] = ("tentacled", "crawling")
PATTERNS: tuple[Pattern, Pattern] = ("striped", "dotted")
ATTRIBUTES: tuple[Attribute, Attribute, Attribute] = ("colour", "shape", "pattern")
LAB_COLOURS: tuple[LabColour, LabColour, LabColour] = ("blue", "yellow", "red")
ARROW_STEP: dict[str, int] = {"white": 1, "black": -1}
"""White = clockwise = increasing index; black = counter-clockwise."""

_OTHER: dict[str, str] = {
    "red": "violet", "violet": "red",
    "tentacled": "crawling", "crawling": "tentacled",
    "striped": "dotted", "dotted": "striped",
}


@dataclass(frozen=True, slots=True)
class Kind:
    """One of the 8 kinds of amoeba."""

    colour: Colour
    shape: Shape
    pattern: Pattern

    def flip(self, attribute: Attribute) -> Kind:
        """The kind after passing through the mutation room for ``attribute``."""
        flipped: dict[str, Any] = {attribute: _OTHER[getattr(self, attribute)]}
        return replace(self, **flipped)

    def to_json(self) -> dict[str, str]:
        return {"colour": self.colour, "shape": self.shape, "pattern": self.pattern}

    def __str__(self) -> str:
        return f"{self.colour} {self.shape} {self.pattern}"


KINDS: tuple[Kind, ...] = tuple(Kind(c, s, p) for c, s, p in product(COLOURS, SHAPES, PATTERNS))


@dataclass(frozen=True, slots=True)
class Tile:
    """A ring tile. Only the field that matters for its ``type`` is set."""

    type: TileType
    lab: LabColour | None = None
    attribute: Attribute | None = None
    kind: Kind | None = None

    def to_json(self) -> dict[str, Any]:
        if self.type == "lab":
            return {"type": "lab", "colour": self.lab}
        if self.type == "mutation":
            return {"type": "mutation", "attribute": self.attribute}
        if self.type == "amoeba":
            assert self.kind is not None
            return {"type": "amoeba", **self.kind.to_json()}
        return {"type": "vent"}


def lab(colour: LabColour) -> Tile:
    return Tile("lab", lab=colour)


def mutation(attribute: Attribute) -> Tile:
    return Tile("mutation", attribute=attribute)


def amoeba(colour: Colour, shape: Shape, pattern: Pattern) -> Tile:
    return Tile("amoeba", kind=Kind(colour, shape, pattern))


VENT = Tile("vent")

LABS: tuple[Tile, ...] = tuple(lab(c) for c in LAB_COLOURS)
VENTS: tuple[Tile, ...] = (VENT, VENT, VENT)
MUTATION_ROOMS: tuple[Tile, ...] = tuple(mutation(a) for a in ATTRIBUTES)
AMOEBAS: tuple[Tile, ...] = tuple(Tile("amoeba", kind=k) for k in KINDS for _ in range(2))

VARIANT_TILES: dict[str, tuple[Tile, ...]] = {
    "standard": LABS + VENTS + MUTATION_ROOMS + AMOEBAS,
    "no_mutations": LABS + VENTS + AMOEBAS,
    "no_mutations_no_vents": LABS + AMOEBAS,
}
"""The box's tiles per variant: 25, 22 and 19."""


def shuffled_ring(variant: str, rng: SeededRng) -> tuple[Tile, ...]:
    """The ring for a match: the variant's tiles in a seeded random order."""
    tiles = list(VARIANT_TILES[variant])
    rng.shuffle(tiles, step="ring")
    return tuple(tiles)


# --- the dice ----------------------------------------------------------------------------------
LAB_DIE: tuple[tuple[LabColour, Arrow], ...] = tuple(
    (colour, arrow) for colour in LAB_COLOURS for arrow in ("white", "black")
)
"""Six faces: each lab colour with a white and with a black arrow."""
COLOUR_DIE: tuple[Colour, ...] = ("red",) * 3 + ("violet",) * 3
SHAPE_DIE: tuple[Shape, ...] = ("tentacled",) * 3 + ("crawling",) * 3
PATTERN_DIE: tuple[Pattern, ...] = ("striped",) * 3 + ("dotted",) * 3


@dataclass(frozen=True, slots=True)
class Roll:
    """One throw of the four dice: where the amoeba escaped, which way, and what it is."""

    lab: LabColour
    arrow: Arrow
    kind: Kind

    @property
    def step(self) -> int:
        return ARROW_STEP[self.arrow]

    def to_json(self) -> dict[str, Any]:
        return {"lab": self.lab, "arrow": self.arrow, "step": self.step, **self.kind.to_json()}


def roll_dice(rng: SeededRng) -> Roll:
    """Throw the four six-faced dice (lab, colour, shape, pattern, in that order)."""
    colour, arrow = LAB_DIE[rng.randbelow(6, step="lab_die")]
    return Roll(
        colour,
        arrow,
        Kind(COLOUR_DIE[rng.randbelow(6, step="colour_die")],
             SHAPE_DIE[rng.randbelow(6, step="shape_die")],
             PATTERN_DIE[rng.randbelow(6, step="pattern_die")]),
    )


ALL_ROLLS: tuple[Roll, ...] = tuple(
    Roll(colour, arrow, kind) for colour, arrow in LAB_DIE for kind in KINDS
)
"""The 48 distinct rolls, all equally likely."""
