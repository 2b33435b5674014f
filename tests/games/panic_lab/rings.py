"""Helpers for Panic Lab tests: rings written as short codes, and a driven engine.

Codes: ``LB`` ``LY`` ``LR`` labs; ``V`` vent; ``MC`` ``MS`` ``MP`` mutation rooms (colour, shape,
pattern); an amoeba is three letters: colour ``r``/``v``, shape ``t``/``c`` (tentacled,
crawling), pattern ``s``/``d`` (striped, dotted), so ``rts`` is the red tentacled striped one.
"""

from __future__ import annotations

from collections import Counter

from app.engine import Move, SeededRng
from app.games.panic_lab import GAME
from app.games.panic_lab.state import PanicLabState
from app.games.panic_lab.tiles import (
    VARIANT_TILES,
    VENT,
    Kind,
    Roll,
    Tile,
    amoeba,
    lab,
    mutation,
)

_LABS = {"LB": "blue", "LY": "yellow", "LR": "red"}
_ROOMS = {"MC": "colour", "MS": "shape", "MP": "pattern"}
_COLOUR = {"r": "red", "v": "violet"}
_SHAPE = {"t": "tentacled", "c": "crawling"}
_PATTERN = {"s": "striped", "d": "dotted"}


def tile(code: str) -> Tile:
    if code in _LABS:
        return lab(_LABS[code])  # type: ignore[arg-type]
    if code in _ROOMS:
        return mutation(_ROOMS[code])  # type: ignore[arg-type]
    if code == "V":
        return VENT
    c, s, p = code
    return amoeba(_COLOUR[c], _SHAPE[s], _PATTERN[p])  # type: ignore[arg-type]


def kind(code: str) -> Kind:
    found = tile(code).kind
    assert found is not None
    return found


def ring(*codes: str) -> tuple[Tile, ...]:
    return tuple(tile(code) for code in codes)


def full_ring(placed: dict[int, str], variant: str = "standard") -> tuple[Tile, ...]:
    """A whole box ring: ``placed`` fixes some positions, the rest of the box fills the gaps."""
    box = list(VARIANT_TILES[variant])
    fixed = {i: tile(code) for i, code in placed.items()}
    rest = list(box)
    for t in fixed.values():
        rest.remove(t)
    out = [fixed[i] if i in fixed else rest.pop(0) for i in range(len(box))]
    assert Counter(out) == Counter(box)
    return tuple(out)


def roll(lab_colour: str, arrow: str, code: str) -> Roll:
    return Roll(lab_colour, arrow, kind(code))  # type: ignore[arg-type]


# --- driving the engine ------------------------------------------------------------------------
def start(players: int = 3, seed: bytes = b"panic-lab-test", **options: object
          ) -> tuple[PanicLabState, SeededRng]:
    rng = SeededRng(seed)
    return GAME.setup(players, GAME.parse_options(dict(options)), rng), rng


def system(state: PanicLabState, rng: SeededRng, kind_: str, at_ms: int) -> list:
    return GAME.step(state, Move(None, GAME.parse_action({"type": kind_}), at_ms), rng)


def claim(state: PanicLabState, rng: SeededRng, seat: int, tile_index: int, at_ms: int,
          rtt_ms: int = 0) -> list:
    action = GAME.parse_action({"type": "claim", "tile": tile_index})
    return GAME.step(state, Move(seat, action, at_ms, rtt_ms), rng)


def answer(state: PanicLabState) -> int:
    assert state.solution is not None
    return state.solution.answer


def wrong_tiles(state: PanicLabState) -> list[int]:
    """Claimable tiles (amoebas and mutation rooms) that are not this round's answer."""
    return [i for i, t in enumerate(state.ring)
            if t.type in ("amoeba", "mutation") and i != answer(state)]
