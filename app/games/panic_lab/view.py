"""What one seat sees (docs/games/panic-lab.md, "View JSON").

Public: the round and its phase, the options the page draws with, the ring, the dice once
rolled, every seat's tokens and whether it has claimed or is locked out, the last decided round,
the match winner. Own: ``seat`` and, for a seat, the tile it claimed this round (``my_claim``),
which nobody else sees before the round ends. Both own keys come last in a view, so the room
takes the two apart (``view_parts``): the public part is built and encoded once a move, only
``seat`` and ``my_claim`` once per seat. The ring and ``last_round`` are built once (per match,
per round) and shared by every view: views are read-only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .state import PanicLabState


def view(state: PanicLabState, seat: int | None) -> dict[str, Any]:
    return seat_view(state, public_view(state), seat)


def public_view(state: PanicLabState) -> dict[str, Any]:
    """What every seat and every spectator sees."""
    claimed, locked = state.claimed, state.locked
    return {
        "phase": state.phase,
        "round": state.round,
        "variant": state.options.variant,
        "target_tokens": state.options.target_tokens,
        "latency_fair": state.options.latency_fair,
        "ring": state.ring_json,
        "dice": None if state.roll is None else state.roll.to_json(),
        "players": [
            {"seat": s, "tokens": t, "claimed": s in claimed, "locked": s in locked}
            for s, t in enumerate(state.tokens)
        ],
        "last_round": state.last_round,
        "winner": state.winner,
    }


def view_parts(state: PanicLabState, seats: Iterable[int | None]
               ) -> tuple[dict[str, Any], dict[int | None, dict[str, Any]]]:
    """The public part once and each seat's own keys (``Game.view_parts``): what the room
    encodes after a move, the public part once."""
    mine = claimed_tiles(state)
    return public_view(state), {seat: own_view(seat, mine) for seat in seats}


def seat_view(state: PanicLabState, public: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The public part plus the seat's own keys."""
    return {**public, **own_view(seat, claimed_tiles(state))}


def own_view(seat: int | None, mine: dict[int, int]) -> dict[str, Any]:
    """What only ``seat`` sees: who it is and, for a seat, its claim of this round (``null``
    until it claims; absent from the public view). ``mine``: ``claimed_tiles``."""
    if seat is None:
        return {"seat": None}
    tile = mine.get(seat)
    return {"seat": seat, "my_claim": None if tile is None else {"tile": tile}}


def claimed_tiles(state: PanicLabState) -> dict[int, int]:
    """Each seat's claimed tile this round, its first claim (a seat claims once a round),
    read once for every seat's view."""
    return {claim.seat: claim.tile for claim in reversed(state.claims)}
