"""What one seat sees (docs/games/panika.md, Hidden/Public).

Public: the counter, whose turn, the direction, taps owed, every player's hand and pile sizes and
"Last card!" calls, the face-up discard (top and latest play), the last burst. Private: a seat's
own hand, to that seat only. Never shown: the current burst number, other hands, pile contents.
Built from small lists each call, no copying of the state (this runs for every seat after every
action).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .cards import CARD_JSON
from .state import PanikaState


def view(state: PanikaState, seat: int | None) -> dict[str, Any]:
    return seat_view(state, public_view(state), seat)


def public_view(state: PanikaState) -> dict[str, Any]:
    """What every seat and every spectator sees."""
    tapping = None
    if state.phase == "tapping" and state.tap_queue:
        tapping = {"seat": state.tap_queue[0][0], "owed": state.tap_queue[0][1]}
    last_play = None
    if state.last_play is not None:
        last_play = {
            "seat": state.last_play["seat"],
            "cards": [CARD_JSON[c] for c in state.last_play["cards"]],
            "taps": state.last_play["taps"],
        }
    out: dict[str, Any] = {
        "phase": state.phase,
        "round": state.round,
        "counter": state.counter,
        "turn": state.turn if state.phase != "over" else None,
        "direction": "clockwise" if state.direction == 1 else "counterclockwise",
        "play_two": state.play_two,
        "tapping": tapping,
        "tap_queue": [{"seat": s, "owed": n} for s, n in state.tap_queue],
        "players": [
            {
                "seat": s,
                "hand": len(state.hands[s]),
                "pile": len(state.piles[s]),
                "last_card": state.last_card_called[s],
            }
            for s in range(state.players)
        ],
        "discard_top": CARD_JSON[state.discard[-1]] if state.discard else None,
        "discard_count": len(state.discard),
        "last_play": last_play,
        "last_burst": dict(state.last_burst) if state.last_burst else None,
        "winners": list(state.winners),
        "turn_seconds": state.turn_seconds,
    }
    return out


def revealed_view(state: PanikaState) -> dict[str, Any]:
    """The public view with every secret shown, for a finished match's replay only
    (docs/games/panika.md, "The revealed view"): this round's burst number, every hand, and
    every draw pile in order (its top card last)."""
    out = seat_view(state, public_view(state), None)
    out["revealed"] = {
        "burst_at": state.burst_at,
        "hands": [[CARD_JSON[c] for c in hand] for hand in state.hands],
        "piles": [[CARD_JSON[c] for c in pile] for pile in state.piles],
    }
    return out


def view_parts(state: PanikaState, seats: Iterable[int | None]
               ) -> tuple[dict[str, Any], dict[int | None, dict[str, Any]]]:
    """The public part once and each seat's own keys (``Game.view_parts``): what the room
    encodes after a move, the public part once."""
    public = public_view(state)
    return public, {seat: own_view(state, public, seat) for seat in seats}


def seat_view(state: PanikaState, public: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The public part plus, for a player, their own hand and what they may do now."""
    return {**public, **own_view(state, public, seat)}


def own_view(state: PanikaState, public: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """What only ``seat`` sees: who it is and, for a player, its own hand and what it may do now
    (``public`` is the public part, read for the tapping seat)."""
    out: dict[str, Any] = {"you": seat}
    if seat is not None and 0 <= seat < state.players:
        hand = state.hands[seat]
        my_turn = state.phase == "play" and state.turn == seat
        tapping = public["tapping"]
        out["hand"] = [CARD_JSON[c] for c in hand]
        out["legal"] = {
            "play": my_turn,
            "cards": (2 if state.play_two == seat else 1) if my_turn else 0,
            "taps": tapping["owed"] if tapping and tapping["seat"] == seat else 0,
            "last_card_due": state.window == seat,
        }
    return out
