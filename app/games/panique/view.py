"""What a seat sees. Everything in Panique is public (docs/games/panique.md), so every seat and
every spectator gets the same view, plus ``you`` and the seat's ``legal`` actions. A die not yet
rolled is in no view: the state does not hold it (docs/games/panique.md, "View").
The room takes the two apart (``view_parts``): the public part is built and encoded once a
move, only ``you`` and ``legal`` once per seat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .board import BOARD_JSON
from .rules import ALLY_LABELS, BUTLER_LABELS, DEFAULTS, REST_FULL_LABEL, REST_LABELS, ROLL_SECONDS
from .rules import allowed_options, ally_targets, is_choice, roller
from .state import MAX_LIFE, PaniqueState
from .tables import TABLES

Legal = Callable[[PaniqueState, int], list[dict[str, Any]]]

_LABELS = {"butler": BUTLER_LABELS, "ally": ALLY_LABELS, "rest": REST_LABELS}


def public_view(state: PaniqueState) -> dict[str, Any]:
    pending = state.pending
    pend: dict[str, Any] | None = None
    if pending is not None:
        pend = {"purpose": pending.purpose, "seats": list(pending.seats), "heir": pending.heir}
        if pending.table is not None:
            pend["table"] = pending.table
            pend["table_title"] = TABLES[pending.table].title
        if is_choice(pending):
            labels = _LABELS[pending.purpose]
            if (pending.purpose == "rest" and pending.heir is not None
                    and state.heirs[pending.heir].life >= MAX_LIFE):
                labels = {**labels, "rest": REST_FULL_LABEL}
            pend["options"] = [{"option": o, "label": labels[o]} for o in allowed_options(state)]
            pend["default"] = DEFAULTS[pending.purpose]
            if pending.purpose == "ally":
                pend["targets"] = ally_targets(state)
            pend["seconds"] = state.choice_seconds
        else:
            pend["seconds"] = ROLL_SECONDS
    active = state.turn if state.phase == "play" else None
    return {
        "phase": state.phase,
        "players": state.players,
        "board": list(BOARD_JSON),
        "circle": state.circle,
        "turn": active,
        "turns": state.turns,
        "first": state.first,
        "order_rolls": [state.order_rolls.get(s) for s in range(state.players)],
        "heirs": [
            {"seat": s, "space": h.space, "life": h.life, "lost_turns": h.lost_turns,
             "vampire": h.vampire, "status": h.status}
            for s, h in enumerate(state.heirs)
        ],
        "pending": pend,
        "roller": roller(state, active) if active is not None else None,
        "first_out": state.first_out,
        "out_order": list(state.out_order),
        "card": _card(state.card),
        "last_roll": dict(state.last_roll) if state.last_roll is not None else None,
        "winners": list(state.winners),
        "ending": state.ending or None,
        "choice_seconds": state.choice_seconds,
    }


def _card(card: dict[str, Any] | None) -> dict[str, Any] | None:
    """A copy of the encounter card: the state's card grows in place (a line per roll, then its
    outcome), and a view is a snapshot that later moves never change (tests/conformance/)."""
    if card is None:
        return None
    out = dict(card)
    out["lines"] = [dict(line) for line in card["lines"]]
    if card["outcome"] is not None:
        out["outcome"] = dict(card["outcome"])
    return out


def view_parts(state: PaniqueState, seats: Iterable[int | None], legal: Legal
               ) -> tuple[dict[str, Any], dict[int | None, dict[str, Any]]]:
    """The public part once and each seat's own keys (``Game.view_parts``): the room encodes
    the public part once a move, and only ``you`` and ``legal`` per seat (they come last in a
    view, so the joined frame is the same bytes)."""
    public = public_view(state)
    return public, {seat: own_view(state, seat, legal) for seat in seats}


def seat_view(state: PaniqueState, public: dict[str, Any], seat: int | None,
              legal: Legal) -> dict[str, Any]:
    """The public part plus the seat's own keys."""
    return {**public, **own_view(state, seat, legal)}


def own_view(state: PaniqueState, seat: int | None, legal: Legal) -> dict[str, Any]:
    """What differs per seat: who it is (``you``) and, for a player, what it may do now."""
    out: dict[str, Any] = {"you": seat}
    if seat is not None and 0 <= seat < state.players:
        out["legal"] = legal(state, seat)
    return out
