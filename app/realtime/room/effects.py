"""What the room's core asks its shell to do, and the time it is told (docs/architecture.md,
"The room's core").

The core (``app/realtime/room/core.py``) decides; it never sends, sleeps, reads a clock or starts a
task. Each input it handles gives an ordered list of the effects below, which the actor
(``app/realtime/actor.py``) performs in that order: frames to connections, closes, messages to
post back to the room later, the moment the room's timers next fall due, a finished match to
save, a move to count in the metrics, a change of the room's place in the lobby. Tests drive the
core and read these lists directly.

Below them, the messages the actor queues (``Message``): each input of the core reaches the room
as one of them, through ``Room.post``, and the actor dispatches them by their class. They live
here, at the bottom of the rooms' layers, because the core asks for two of them back later
(``BotDecision``, ``TakeoverCheck``, in a ``Later``) and the cluster's relay posts two
(``Frame``, ``Closed``) from below the actor (docs/decisions/0055).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from app.realtime.room.protocol import CLOSE_ROOM_CLOSED

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
    message: Message
    key: Any = None


@dataclass(frozen=True, slots=True)
class Cancel:
    """Drop the message pending under ``key`` (a bot that no longer plays)."""

    key: Any


@dataclass(frozen=True, slots=True)
class WakeAt:
    """The room's soonest timer falls due at ``at`` (monotonic seconds): post ``TimerFired``
    then."""

    at: float


@dataclass(frozen=True, slots=True)
class Save:
    """Write a finished match (the outbox); post ``Saved`` back with the news."""

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


# --- the messages the actor queues -----------------------------------------------------------
# Plain slotted dataclasses, never changed once made: a frozen one costs four times as much to
# make (``object.__setattr__`` per field), and a ``Frame`` is made for every client frame
# (docs/decisions/0055).

@dataclass(slots=True)
class Frame:
    """A client's frame, checked and parsed (app/realtime/room/protocol.py), from ``conn``: a
    socket of this process or a relayed one (``RoomCore.frame``)."""

    conn: Client
    message: Any


@dataclass(slots=True)
class Closed:
    """``conn`` closed (``RoomCore.closed_connection``)."""

    conn: Client


@dataclass(slots=True)
class TimerFired:
    """The room's loop timer fired (``WakeAt``; ``RoomCore.timers_due``). ``armed`` numbers the
    loop timer that fired: a timer replaced meanwhile by an earlier one still wakes the room."""

    armed: int


@dataclass(slots=True)
class Tick:
    """The room's periodic tick (``RoomCore.tick``)."""


@dataclass(slots=True)
class Saved:
    """The match writer's news about ``match`` (``saving``, ``retrying``, ``saved`` with the
    match's id: ``RoomCore.saved``)."""

    match: MatchRun
    news: str
    match_id: int | None = None


@dataclass(slots=True)
class BotDecision:
    """A bot's thinking time is over: its ``action`` for ``seat``, decided in ``generation``
    (``RoomCore.bot_decision``; a decision of an older generation is dropped)."""

    seat: int
    generation: int
    action: dict[str, Any]


@dataclass(slots=True)
class TakeoverCheck:
    """A disconnected player's grace may be over (``RoomCore.takeover_check``)."""


@dataclass(slots=True)
class Recover:
    """Try again to put the room right after an input failed half-way (``RoomCore.recover``)."""


@dataclass(slots=True)
class CloseRoom:
    """Close the room: every page is told ``code`` (4003 when it closes, 1012 when its server
    stops or its lease went elsewhere: ``RoomCore.shutdown``)."""

    code: int = CLOSE_ROOM_CLOSED


Message = Frame | Closed | TimerFired | Tick | Saved | BotDecision | TakeoverCheck | Recover \
    | CloseRoom
