"""A running match, as the room holds it: engine, state, seeded generator, version and log.

This is the room's only door into a game, and it knows no game's rules: it calls the shared
engine interface (validate, apply, view, timers, outcome) and records every applied move. It
reads no clock: the match's clock is ``t0`` (when it started, on the monotonic clock) and each
move is played at the ``now`` the room's core was given.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.engine import (
    Event, IllegalAction, Move, MoveLog, Outcome, new_seed, seed_commitment,
)
from app.engine.chance import EventDigest
from app.engine.interface import ValidAction
from app.engine.registry import AnyGame
from app.engine.replay import replay
from app.engine.rng import RecordingRng

log = logging.getLogger(__name__)


@dataclass
class MatchRun:
    """One match of one game between fixed seats."""

    game: AnyGame
    players: int
    options: dict[str, Any]
    seed: bytes = field(default_factory=new_seed)
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    t0: float = 0.0
    """When the match started, on the monotonic clock (seconds): ``at_ms`` counts from it."""
    version: int = 0
    log: MoveLog = field(default_factory=MoveLog)
    """Every applied move, the actions as JSON (``Move.logged``); move ``seq`` is ``log[seq-1]``.
    Kept as JSON text, out of the collector's way (``app/engine/movelog.py``)."""

    def __post_init__(self) -> None:
        self.seed_hash = seed_commitment(self.seed)
        self.rng = RecordingRng(self.seed)
        """The match's generator; it records every chance step (``rng.draws``), stored with
        the finished match (docs/decisions/0053-chance-is-data-recorded-with-the-match.md)."""
        self.events = EventDigest()
        """Every applied move's events, folded into the digest the record keeps."""
        self.state = self.game.setup(self.players, self.game.parse_options(self.options), self.rng)

    def now_ms(self, now: float) -> int:
        """Milliseconds since the match started at ``now``: the time stamp of every move."""
        return int((now - self.t0) * 1000)

    def resume_clock(self, now_ms: int, now: float) -> None:
        """A restored match: its clock reads ``now_ms`` at ``now`` and runs on from there."""
        self.t0 = now - now_ms / 1000

    def play(self, seat: int | None, raw_action: Any, rtt_ms: int = 0, *,
             now: float) -> list[Event]:
        """Parse, validate and apply one move; ``EngineError`` leaves everything unchanged.
        ``raw_action`` is a JSON object (a bot's, a timer's, a frame the fast decoder left to
        pydantic) or a ``ValidAction`` (a client's, already validated with its frame): then it
        is not parsed again and its text is what the log keeps.

        An unexpected failure inside ``apply`` rebuilds the state from the log, so a bug in a
        rule costs that move, never the room. A move past the game's declared bound
        (``Game.max_moves``; the rules end every match before it) is refused as a backstop: the
        log, the stored record, its page and replay stay bounded even if a game broke its word
        (docs/decisions/0038-every-match-has-a-bound.md).
        """
        if len(self.log) >= self.game.max_moves:
            raise IllegalAction(
                f"this match has reached the most moves it may have ({self.game.max_moves})")
        if type(raw_action) is ValidAction:  # validated with its frame, its text kept
            action, text = raw_action.model, raw_action.text
        else:
            action, text = self.game.parse_action(raw_action), None
        move = Move(seat, action, self.now_ms(now), rtt_ms)
        self.game.validate(self.state, move)
        try:
            events = self.game.apply(self.state, move, self.rng)
        except Exception:
            log.exception("%s: apply failed; rebuilding the state from the log", self.game.id)
            self.rebuild()
            raise
        self.events.add(events)
        if text is None:
            self.log.append(move.logged())
        else:
            self.log.append_text(move, text)
        self.version += 1
        return events

    def rebuild(self) -> None:
        """Replay the log from the seed (the one replay, app/engine/replay.py): the state, the
        generator with its chance steps and the events' digest as they were."""
        digest = EventDigest()
        rng = RecordingRng(self.seed)

        def watch(_state: object, move: Move | None, events: list[Event]) -> None:
            if move is not None:
                digest.add(events)

        done = replay(self.game, self.players, self.options, self.seed, self.log, rng=rng,
                      watch=watch)
        self.state, self.rng, self.events = done.state, rng, digest

    def draws(self) -> list[dict[str, Any]]:
        """The chance steps drawn so far, in order (``RecordingRng.draws``)."""
        return self.rng.draws

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.game.view(self.state, seat)

    def views(self, seats: set[int | None]) -> dict[int | None, dict[str, Any]]:
        return self.game.views(self.state, seats)

    def view_parts(self, seats: set[int | None]
                   ) -> tuple[dict[str, Any], dict[int | None, dict[str, Any]]] | None:
        return self.game.view_parts(self.state, seats)

    def outcome(self) -> Outcome | None:
        return self.game.outcome(self.state)
