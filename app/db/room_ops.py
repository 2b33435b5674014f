"""What the journal writes of an open room: its operations, each idempotent (a room is written
whole, a match start replaces the room's match and its moves, a move already stored stays as it
is), so a batch whose commit succeeded but whose answer was lost can be written again as it is
(docs/architecture.md, "Durable rooms"). app/realtime/durable/stored.py makes them from a room;
app/db/driver_sql.py turns them into the driver's statements, app/db/rooms.py writes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.engine import LogEntry


@dataclass(frozen=True, slots=True)
class MemberRecord:
    id: int
    nickname: str
    seat: int | None
    player: bool
    nonce: str
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class RoomFields:
    """What a room row holds, the same written (``SaveRoom``) and read back (``StoredRoom``)."""

    code: str
    game: str
    options: dict[str, Any]
    host: int | None
    public: bool
    status: str
    match_number: int
    next_member: int
    banned: dict[str, list[str]]


@dataclass(frozen=True, slots=True)
class SaveRoom(RoomFields):
    """The room and all its members as they are now (written whole: members change rarely)."""

    members: tuple[MemberRecord, ...]
    room_options: dict[str, Any] | None = None
    standings: dict[str, Any] | None = None
    """The evening's standings (app/realtime/room/members.py, ``Standings``); None before a match counted."""
    at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass(frozen=True, slots=True)
class StartMatch:
    """A new match in the room: it replaces the previous one and its moves."""

    code: str
    match_number: int
    seed: str
    players: int
    options: dict[str, Any]
    started_at: datetime


@dataclass(frozen=True, slots=True)
class AddMove:
    """One accepted move of the room's current match: its number in the log (from 1) and the
    move as the log holds it (``LogEntry``: the action's JSON text, written to its column as
    it is, never decoded and encoded again)."""

    code: str
    seq: int
    move: LogEntry
    received_at: datetime


@dataclass(frozen=True, slots=True)
class DeleteRoom:
    """The room closed (or was found idle or finished at start): its rows go."""

    code: str


RoomOp = SaveRoom | StartMatch | AddMove | DeleteRoom
