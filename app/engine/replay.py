"""The one replay of a match: its seed, options and action log back to every state it passed.

A match is fully determined by (seed, options, action log), the system's moves included
(docs/architecture.md). Every place that rebuilds a match goes through ``Replay``: the live
match after a failed move (``MatchRun.rebuild``, app/realtime/room/match.py), a restored room, the fairness check's list of
draws (``app/engine/chance.py``), a match page's story and its move-by-move replay. OpenSpiel
keeps one history per state and replays it; so does this.

``Replay`` starts at the set-up and takes the logged moves one at a time (``step``), so a caller
can look at the state between moves (its views, its timers); ``replay`` runs a whole log. A move
the rules refuse raises the engine's error (``EngineError``), or, with ``stop_at_refusal``, ends
the replay there and says which move it was (``Replayed.refused``): a match recorded under rules
that no longer accept its log replays up to its last accepted move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .errors import EngineError
from .interface import Event, Game, Move, SeatedState
from .rng import SeededRng

S = TypeVar("S", bound=SeatedState)


class Replay(Generic[S]):
    """A match replaying from its seed: ``state`` and ``rng`` as they stand after ``applied``
    moves of the log."""

    __slots__ = ("game", "rng", "state", "applied")

    def __init__(self, game: Game[S, Any], players: int, options: dict[str, Any] | Any,
                 seed: bytes, *, rng: SeededRng | None = None) -> None:
        self.game = game
        self.rng = rng if rng is not None else SeededRng(seed)
        """The match's generator (a ``RecordingRng`` to list the draws)."""
        parsed = game.parse_options(options) if isinstance(options, dict) or options is None \
            else options
        self.state: S = game.setup(players, parsed, self.rng)
        self.applied = 0
        """Moves of the log applied so far."""

    def step(self, move: Move) -> list[Event]:
        """Apply the log's next move (its action as JSON, or already parsed); the events it
        caused. ``EngineError`` when the rules refuse it: the state is then unchanged."""
        action = move.action
        if isinstance(action, dict):
            move = Move(move.seat, self.game.parse_action(action), move.at_ms, move.rtt_ms)
        events = self.game.step(self.state, move, self.rng)
        self.applied += 1
        return events


@dataclass(slots=True)
class Replayed(Generic[S]):
    """A whole log replayed: the final state and generator, each move's events, and the move
    the rules refused if the replay stopped there."""

    state: S
    rng: SeededRng
    events: list[list[Event]] = field(default_factory=list)
    """The events of each applied move, in order."""
    refused: tuple[int, EngineError] | None = None
    """(index in the log, the engine's error) of the first move the rules refused."""

    @property
    def applied(self) -> int:
        return len(self.events)


Watch = Callable[[Any, Move | None, list[Event]], None]
"""Told the state after the set-up (move None, no events) and after each applied move."""


def replay(game: Game[S, Any], players: int, options: dict[str, Any] | Any, seed: bytes,
           log: Iterable[Move], *, rng: SeededRng | None = None,
           stop_at_refusal: bool = False, watch: Watch | None = None) -> Replayed[S]:
    """Replay ``log`` from the set-up. A refused move raises its ``EngineError``, or with
    ``stop_at_refusal`` ends the replay just before it (``Replayed.refused``). ``watch`` sees
    the state between the moves (a restored room's timers and event history)."""
    run: Replay[S] = Replay(game, players, options, seed, rng=rng)
    done: Replayed[S] = Replayed(run.state, run.rng)
    if watch is not None:
        watch(run.state, None, [])
    for index, move in enumerate(log):
        try:
            events = run.step(move)
        except EngineError as error:
            if not stop_at_refusal:
                raise
            done.refused = (index, error)
            break
        done.events.append(events)
        if watch is not None:
            watch(run.state, move, events)
    done.state = run.state
    return done
