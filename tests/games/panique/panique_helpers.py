"""Helpers for the Panique tests: scripted dice, states set up at a chosen moment, and moves."""

from __future__ import annotations

from typing import Any

from app.engine import Event, Move
from app.games.panique import GAME, rules
from app.games.panique.state import PaniqueState


class Dice:
    """Stands in for the match's ``SeededRng``: each roll takes the next scripted value."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def randint(self, low: int, high: int, step: str | None = None) -> int:
        assert (low, high) == (1, 8), "Panique only rolls d8s"
        assert step == "die", "every roll is the chance step 'die'"
        assert self.values, "a roll was made that the test did not script"
        value = self.values.pop(0)
        assert 1 <= value <= 8
        return value

    def randbelow(self, n: int, step: str | None = None) -> int:  # pragma: no cover - Panique never calls it
        raise AssertionError("unexpected randbelow")


def new_game(players: int = 2, **options: Any) -> PaniqueState:
    return GAME.setup(players, GAME.parse_options(options), Dice())


def in_play(players: int = 2, turn: int = 0, circle: int = 4, spaces: list[int] | None = None,
            lives: list[int] | None = None) -> PaniqueState:
    """A match past the roll for the first player: ``turn``'s heir is about to roll to move."""
    state = new_game(players)
    state.phase = "play"
    state.first = turn
    state.circle = circle
    state.order_rolls = {}
    for seat, heir in enumerate(state.heirs):
        if spaces is not None:
            heir.space = spaces[seat]
        if lives is not None:
            heir.life = lives[seat]
    rules.start_turn(state, turn)
    return state


def act(state: PaniqueState, seat: int | None, action: dict[str, Any], *dice: int
        ) -> list[Event]:
    """One move through the engine's one path (validate, then apply) with scripted dice."""
    rng = Dice(*dice)
    events = GAME.step(state, Move(seat, GAME.parse_action(action)), rng)  # type: ignore[arg-type]
    assert not rng.values, f"dice left unrolled: {rng.values}"
    return events


def roll(state: PaniqueState, value: int, seat: int | None = -1) -> list[Event]:
    """The pending roller rolls ``value`` (``seat=None``: the system rolls)."""
    if seat == -1:
        assert state.pending is not None
        seat = state.pending.seats[0]
    return act(state, seat, {"type": "roll"}, value)


def choose(state: PaniqueState, option: str, target: int | None = None) -> list[Event]:
    assert state.pending is not None
    action: dict[str, Any] = {"type": "choose", "option": option}
    if target is not None:
        action["target"] = target
    return act(state, state.pending.seats[0], action)


def entry_ids(events: list[Event]) -> list[str]:
    """The table entries an event list quotes, in order."""
    return [e.data["entry"] for e in events if e.kind == "encounter"]


def pending(state: PaniqueState) -> tuple[str, list[int], str | None] | None:
    p = state.pending
    return None if p is None else (p.purpose, list(p.seats), p.table)
