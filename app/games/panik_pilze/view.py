"""What one seat sees (docs/games/panik-pilze.md, "Hidden information" and "The view").

Public: the display's up sides (and their down sides only with the memory aid), the pile's size
and its top card's up side, every basket (count per type), hand sizes, the action pile's size,
the action discard pile (face up: its size and top), whose turn, the live score. Private: a
seat's own hand, to that seat only. Never shown: the pile below its top, other hands, the order
of the action pile, display down sides without the memory aid, mushroom card ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .cards import ACTION_JSON, other_side
from .rules import steal_targets
from .scoring import score_baskets, totals
from .state import PilzeState


def view(state: PilzeState, seat: int | None) -> dict[str, Any]:
    return seat_view(state, public_view(state), seat)


def display_json(state: PilzeState, downs: bool = False) -> list[dict[str, Any]]:
    """The display's cards by public number; their down sides with the memory aid (or
    ``downs``: the revealed view)."""
    out = []
    for card in state.display:
        entry: dict[str, Any] = {"id": state.serial[card], "up": state.up[card]}
        if state.memory_aid or downs:
            entry["down"] = other_side(card, state.up[card])
        out.append(entry)
    return out


def public_view(state: PilzeState) -> dict[str, Any]:
    counts = [state.basket_counts(s) for s in range(state.players)]
    by_type = score_baskets(counts)
    over = state.phase == "over"
    return {
        "phase": state.phase,
        "turn": None if over else state.turn,
        "turn_number": state.turns_played + (0 if over else 1),
        "memory_aid": state.memory_aid,
        "turn_seconds": state.turn_seconds,
        "pile": {"count": len(state.pile),
                 "top": state.up[state.pile[-1]] if state.pile else None},
        "display": display_json(state),
        "players": [
            {"seat": s, "hand": len(state.hands[s]), "basket": counts[s]}
            for s in range(state.players)
        ],
        "action_pile": len(state.action_pile),
        "action_discard": {
            "count": len(state.action_discard),
            "top": ACTION_JSON[state.action_discard[-1]] if state.action_discard else None,
        },
        "score": {"by_type": by_type, "totals": totals(by_type, state.players)},
        "last_turn": dict(state.last_turn) if state.last_turn else None,
        "end_cause": state.end_cause,
        "winners": winners(state) if over else [],
    }


def revealed_view(state: PilzeState) -> dict[str, Any]:
    """The public view with every secret shown, for a finished match's replay only
    (docs/games/panik-pilze.md, "The revealed view"): every display card's down side (as the
    memory aid shows it), every hand, the mushroom pile with both sides of each card and the
    action pile in order (top card last)."""
    out = seat_view(state, public_view(state), None)
    out["display"] = display_json(state, downs=True)
    out["revealed"] = {
        "hands": [[ACTION_JSON[c] for c in hand] for hand in state.hands],
        "pile": [{"up": state.up[c], "down": other_side(c, state.up[c])} for c in state.pile],
        "action_pile": [ACTION_JSON[c] for c in state.action_pile],
    }
    return out


def view_parts(state: PilzeState, seats: Iterable[int | None]
               ) -> tuple[dict[str, Any], dict[int | None, dict[str, Any]]]:
    """The public part once and each seat's own keys (``Game.view_parts``): what the room
    encodes after a move, the public part once."""
    return public_view(state), {seat: own_view(state, seat) for seat in seats}


def seat_view(state: PilzeState, public: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The public part plus, for a player, their own hand and what they may do now."""
    return {**public, **own_view(state, seat)}


def own_view(state: PilzeState, seat: int | None) -> dict[str, Any]:
    """What only ``seat`` sees: who it is and, for a player, its own hand and what it may do
    now."""
    out: dict[str, Any] = {"you": seat}
    if seat is not None and 0 <= seat < state.players:
        out["hand"] = [ACTION_JSON[c] for c in state.hands[seat]]
        my_turn = state.phase == "play" and state.turn == seat
        out["legal"] = {
            "play": my_turn,
            "steal": my_turn and bool(steal_targets(state, seat)),
        }
    return out


def winners(state: PilzeState) -> list[int]:
    """Everyone with the highest total (rulebook: "several winners")."""
    counts = [state.basket_counts(s) for s in range(state.players)]
    scores = totals(score_baskets(counts), state.players)
    best = max(scores)
    return [s for s in range(state.players) if scores[s] == best]

