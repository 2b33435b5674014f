"""The Panika app's counter as a room (docs/games/panika-counter.md, Stand-alone counter).

Several phones share one counter: tap +1, red ``back`` -1 (not below 0), green ``reset`` to 0,
and a burst at a secret number drawn uniformly from 21..30 (rulebook, "The Panika App"). Bursting
cannot be undone: until the next round only ``new_round`` (and ``new_counter``) is accepted. The
next round starts 3 s after the burst (a system timer), or earlier when anyone sends
``new_round``. The match ends with ``new_counter``, sent by a player (a fresh counter) or by
the system when the room closes (``closing_action``), or by itself with its ``MAX_MOVES``-th
move (taps taken back never burst, so nothing else bounds it): the room then records the match
and reveals its seed, so every burst number can be audited; after a player's ``new_counter`` or
the limit the room starts a new counter match with a new seed. See
docs/games/panika-counter.md.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any, Literal, Union

from pydantic import Field, RootModel

from app.engine import (
    ActionModel, Event, Game, GameOptions, IllegalAction, Move, Outcome, ReplayStep, SeededRng, Timer,
)

BURST_MIN, BURST_MAX = 21, 30
NEW_ROUND_SECONDS = 3
MAX_MOVES = 10_000
"""A counter ends by itself with its 10,000th move (docs/games/panika-counter.md, "The limit";
docs/decisions/0038-every-match-has-a-bound.md): about three evenings of real counting, so an
evening never meets it, while a counter kept going by taps taken back stops there."""


@dataclass(slots=True)
class CounterState:
    players: int
    counter: int = 0
    burst_at: int = 0
    """SECRET: this round's burst number."""
    round: int = 0
    phase: Literal["counting", "burst"] = "counting"
    last_burst: dict | None = None
    """``{"seat", "number", "round"}`` of the latest burst."""
    taps: list[int] = field(default_factory=list)
    """Taps each seat made this round."""
    bursts: list[int] = field(default_factory=list)
    """The burst number of every round that burst, in order (the outcome's details list them)."""
    taps_total: list[int] = field(default_factory=list)
    """Taps each seat made in the whole match."""
    ended: bool = False
    moves: int = 0
    """Moves applied so far (every player's and the system's): the limit counts them."""
    ended_by: Literal["new_counter", "limit"] | None = None
    """What ended the counter, once it has ended."""

class TapAction(ActionModel):
    type: Literal["tap"]


class BackAction(ActionModel):
    type: Literal["back"]


class ResetAction(ActionModel):
    type: Literal["reset"]


class NewRoundAction(ActionModel):
    type: Literal["new_round"]


class NewCounterAction(ActionModel):
    """End this counter (its seed is revealed and the match recorded); the room starts a new one.
    Sent by a player, or by the system when the room closes."""

    type: Literal["new_counter"]


class CounterAction(RootModel[Annotated[
    Union[TapAction, BackAction, ResetAction, NewRoundAction, NewCounterAction],
    Field(discriminator="type"),
]]):
    pass


class CounterOptions(GameOptions):
    """The counter has no options."""


def start_round(state: CounterState, rng: SeededRng) -> None:
    """Counter 0, a new secret number uniformly from 21..30."""
    state.round += 1
    state.counter = 0
    state.burst_at = rng.randint(BURST_MIN, BURST_MAX, step="burst_number")
    state.phase = "counting"
    state.taps = [0] * state.players


class CounterEnding(StrEnum):
    """How a counter ends (docs/games/panika-counter.md, "Endings")."""

    NEW_COUNTER = "new_counter"
    """Someone asked for a fresh counter, or the room closed (``closing_action``)."""
    MOVE_LIMIT = "move_limit"
    """Its ``MAX_MOVES``-th move ended it (docs/decisions/0038)."""


class PanikaCounterGame(Game[CounterState, CounterOptions]):
    id = "panika_counter"
    title = "Panika counter"
    pitch = "The Panika counter for your own cards: tap together, and it bursts somewhere 21 to 30."
    min_players = 1
    max_players = 10
    open_table = True
    Options = CounterOptions
    Action = CounterAction
    Ending = CounterEnding
    shared_actions = frozenset({"new_round", "new_counter"})
    closing_action = {"type": "new_counter"}
    """The system move that ends a match still running when its room closes (read by the room:
    the seed of a counter that never reached a "new counter" is revealed and recorded too)."""
    max_moves = MAX_MOVES
    """The counter's own limit: its last move ends it (``apply``)."""
    replay_marks = ("burst",)

    def replay_step(self, move: Move, events: list[Event]) -> ReplayStep:
        """Every tap a step of its own (the counter has no plays that owe taps); the tap that
        bursts carries the mark ``burst``."""
        return ReplayStep(marks=("burst",) if any(e.kind == "burst" for e in events) else ())

    def setup(self, players: int, options: CounterOptions, rng: SeededRng) -> CounterState:
        state = CounterState(players=players, taps_total=[0] * players)
        start_round(state, rng)
        return state

    def check(self, state: CounterState, move: Move) -> None:
        kind = move.action.type
        if state.ended:
            raise IllegalAction("this counter has ended")
        if kind == "new_counter":
            return
        if kind == "new_round":
            if state.phase != "burst":
                raise IllegalAction("the counter has not burst")
        elif state.phase == "burst":
            raise IllegalAction("the counter burst; wait for the next round")

    def hidden_variant(self, state: CounterState, seat: int | None,
                       rng: SeededRng) -> CounterState:
        """The burst number drawn again above the counter while the round counts (it is shown
        only when it bursts)."""
        variant = copy.deepcopy(state)
        if state.phase == "counting" and not state.ended:
            variant.burst_at = rng.randint(max(state.counter + 1, BURST_MIN), BURST_MAX)
        return variant

    def apply(self, state: CounterState, move: Move, rng: SeededRng) -> list[Event]:
        state.moves += 1
        events = self._apply(state, move, rng)
        if not state.ended and state.moves >= MAX_MOVES:
            state.ended = True
            state.ended_by = "limit"
            events.append(Event(
                "This counter has reached its limit of %d moves: its seed is revealed and a new "
                "counter starts" % MAX_MOVES, None, "limit", {"n": MAX_MOVES}))
        return events

    def _apply(self, state: CounterState, move: Move, rng: SeededRng) -> list[Event]:
        kind, seat = move.action.type, move.seat
        if kind == "new_counter":
            state.ended = True
            state.ended_by = "new_counter"
            return [Event("A new counter: this one's seed is revealed", seat, "new_counter")]
        if kind == "tap":
            assert seat is not None  # Game.check_sender: a player's action
            state.counter += 1
            state.taps[seat] += 1
            state.taps_total[seat] += 1
            if state.counter >= state.burst_at:
                state.phase = "burst"
                state.bursts.append(state.burst_at)
                state.last_burst = {"seat": seat, "number": state.burst_at, "round": state.round}
                return [Event("{seat:%d} bursts the counter at %d!" % (seat, state.burst_at),
                              seat, "burst", {"number": state.burst_at})]
            return []
        if kind == "back":
            state.counter = max(0, state.counter - 1)
            return []
        if kind == "reset":
            assert seat is not None  # Game.check_sender: a player's action
            state.counter = 0
            return [Event("{seat:%d} resets the counter" % seat, seat, "reset")]
        start_round(state, rng)
        return [Event("Round %d" % state.round, None, "round", {"round": state.round})]

    def view(self, state: CounterState, seat: int | None) -> dict[str, Any]:
        return {**_shared_view(state), "you": seat}

    def view_parts(
        self, state: CounterState, seats: Iterable[int | None]
    ) -> tuple[dict[str, Any], dict[int | None, dict[str, Any]]]:
        """Every seat sees the same counter; only ``you`` differs (``Game.view_parts``: the room
        encodes the rest once a tap)."""
        return _shared_view(state), {seat: {"you": seat} for seat in seats}

    def revealed_view(self, state: CounterState) -> dict[str, Any]:
        """The public view with this round's secret burst number (docs/games/panika-counter.md,
        "The revealed view"), for a finished match's replay only."""
        return {**self.view(state, None), "revealed": {"burst_at": state.burst_at}}

    def outcome(self, state: CounterState) -> Outcome | None:
        """Only once ``new_counter`` or the limit ended the match: no winners (a counter has
        none); a seat's score is its taps over the match; the ending says whether a new counter or
        the limit ended it, its details the rounds (``n``) and the burst numbers to audit."""
        if not state.ended:
            return None
        ending = CounterEnding.MOVE_LIMIT if state.ended_by == "limit" else \
            CounterEnding.NEW_COUNTER
        return Outcome(scores=list(state.taps_total), ranks=[1] * state.players, winners=[],
                       ending=ending, details={
                           "n": state.round, "bursts": ", ".join(map(str, state.bursts)) or "–",
                           "limit": MAX_MOVES})

    def timers(self, state: CounterState) -> list[Timer]:
        if state.ended or state.phase != "burst":
            return []
        return [Timer(f"newround:{state.round}", NEW_ROUND_SECONDS, {"type": "new_round"},
                      "Next round")]

    def active_seats(self, state: CounterState) -> list[int]:
        return [] if state.ended else list(range(state.players))

    def legal_actions(self, state: CounterState, seat: int | None) -> list[dict[str, Any]]:
        """Any seat may tap, go back one, reset or start a new counter while the counter counts;
        after a burst any seat may start the next round early (or a new counter). The system:
        its timer's ``new_round`` (docs/games/panika-counter.md)."""
        if state.ended:
            return []
        if seat is None:
            return [{"type": "new_round"}] if state.phase == "burst" else []
        if not 0 <= seat < state.players:
            return []
        if state.phase == "burst":
            return [{"type": "new_round"}, {"type": "new_counter"}]
        return [{"type": "tap"}, {"type": "back"}, {"type": "reset"}, {"type": "new_counter"}]


def _shared_view(state: CounterState) -> dict[str, Any]:
    """What every seat of the counter sees (docs/games/panika-counter.md)."""
    return {
        "counter": state.counter,
        "phase": state.phase,
        "round": state.round,
        "last_burst": dict(state.last_burst) if state.last_burst else None,
        "taps": list(state.taps),
    }
