"""What the room's core asks its shell to do, and the time it is told (docs/architecture.md,
"The room's core").

The core (``app/realtime/room/core.py``) decides; it never sends, sleeps, reads a clock or starts a
task. Each input it handles gives an ordered list of the effects below, which the actor
(``app/realtime/actor.py``) performs in that order: frames to connections, closes, messages to
post back to the room later, the moment the room's timers next fall due, a finished match to
save, a move to count in the metrics, a change of the room's place in the lobby. Tests drive the
core and read these lists directly.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.db.matches import MatchRecord
    from app.realtime.room.match import MatchRun
    from app.realtime.room.members import Client


@dataclass(frozen=True, slots=True)
class Now:
    """The time an input is handled at: the monotonic clock (seconds; every deadline, grace
    period and match clock of the room) and the wall clock (chat lines, a match's end)."""

    mono: float
    wall: datetime

    @classmethod
    def read(cls) -> Now:
        """The clocks now (the actor reads them once per input; the core never does)."""
        return cls(time.monotonic(), datetime.now(UTC))


@dataclass(frozen=True, slots=True)
class Send:
    """One encoded frame (JSON as UTF-8 bytes, as the socket takes it) to each of ``conns``
    (through the room's frame gate, in order)."""

    conns: Sequence[Client]
    text: bytes


@dataclass(frozen=True, slots=True)
class SendEach:
    """A frame of its own to each connection (the state frames: one view per seat; bytes, as
    ``Send``)."""

    frames: Sequence[tuple[Client, bytes]]


@dataclass(frozen=True, slots=True)
class Control:
    """A ping, pong or ``saving`` frame: past the frame gate (they show no move). JSON text: a
    few a second at most, the connection encodes them."""

    conns: Sequence[Client]
    text: str


@dataclass(frozen=True, slots=True)
class Close:
    """Close ``conn`` with ``code``, after an ``error`` frame saying why (``why``: code, text)."""

    conn: Client
    code: int
    why: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class BadJoin:
    """A join failed on a bad seat token: the connection's probe budget pays for it."""

    conn: Client


@dataclass(frozen=True, slots=True)
class Later:
    """Post ``message`` to the room after ``delay`` seconds. A ``key`` replaces the message
    still pending under the same key (a bot's next decision replaces its last)."""

    delay: float
    message: tuple[Any, ...]
    key: Any = None


@dataclass(frozen=True, slots=True)
class Cancel:
    """Drop the message pending under ``key`` (a bot that no longer plays)."""

    key: Any


@dataclass(frozen=True, slots=True)
class WakeAt:
    """The room's soonest timer falls due at ``at`` (monotonic seconds): post ``timer`` then."""

    at: float


@dataclass(frozen=True, slots=True)
class Save:
    """Write a finished match (the outbox); post ``saved`` back with the news."""

    record: MatchRecord
    match: MatchRun


@dataclass(frozen=True, slots=True)
class Counted:
    """A move was applied and its frames handed out: count it (``frame``: the player's
    ``action`` frame, whose arrival time gives the latency; ``None`` for a timer's move)."""

    game: str
    frame: Any = None


@dataclass(frozen=True, slots=True)
class Listed:
    """The room's place in the lobby changed (``RoomState.listed``): with several processes its
    directory entry is written now rather than at the next lease renewal."""

    listed: bool


Effect = Send | SendEach | Control | Close | BadJoin | Later | Cancel | WakeAt | Save | Counted \
    | Listed
