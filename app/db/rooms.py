"""Open rooms in the database: the writes the journal batches, and the reads of a restart.

The journal (app/realtime/durable/journal.py) turns a room's changes into operations
(app/db/room_ops.py, each idempotent) and writes every operation queued in one turn of the event
loop in one transaction (``write_ops``), as the driver's own statements (app/db/driver_sql.py);
a restart reads the rooms back (``load_rooms``; docs/architecture.md, "Durable rooms").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import Connection, delete, insert, select, update

from app.engine import Move

from .database import Database
from .models import RoomMatchRow, RoomMemberRow, RoomMoveRow, RoomRow
from .room_ops import (
    AddMove,
    DeleteRoom,
    MemberRecord,
    RoomFields,
    RoomOp,
    SaveRoom,
    StartMatch,
)
from .driver_sql import DIALECTS, Statement, move_statement, placeholder, statements

__all__ = ["AddMove", "DeleteRoom", "MemberRecord", "RoomFields", "RoomOp", "SaveRoom",
           "StartMatch", "StoredMatch", "StoredRoom", "claim_room", "delete_rooms",
           "load_room", "load_rooms", "write_ops"]


def _write_driver(db: Database, ops: list[RoomOp], fences: dict[str, int] | None) -> set[str]:
    """``ops`` as the driver's own statements (app/db/driver_sql.py) in one transaction on a
    driver connection (``Database.driver_transaction``: on the journal's writer thread the one
    it keeps), past SQLAlchemy's connection and transaction objects (50-70 us of CPU a
    transaction on SQLite) and its statement compilation (260-400 us a room written whole:
    docs/performance.md, "The cost of durable rooms"; ``bench/journal_write.py``). With
    ``fences``, the rooms fenced out are found first, in the same transaction, and their
    operations left out (``_fenced_out``); returns their codes."""
    dialect = db.engine.dialect.name

    def work(connection: Any) -> set[str]:
        gone = _fenced_out(connection, dialect, fences) if fences else set()
        _execute(connection, statements(dialect, [op for op in ops if op.code not in gone]
                                        if gone else ops))
        return gone

    return db.driver_transaction(work)


def _fenced_out(connection: Any, dialect: str, fences: dict[str, int]) -> set[str]:
    """The rooms of ``fences`` (code -> this process's fencing token) whose recorded token is
    higher: another process took them over, and this one must write nothing more of them. The
    transaction holds them until it ends, so a takeover's ``claim_room`` waits for this write
    and then reads it, or this write sees the takeover's token: never both owners' writes
    interleaved. PostgreSQL locks the rows (``FOR UPDATE``); SQLite the whole file, taken at once
    (``BEGIN IMMEDIATE``: its driver would otherwise begin only at the first write, after the
    check)."""
    cursor = connection.cursor()
    try:
        mark = placeholder(dialect)
        lock = " FOR UPDATE"
        if dialect == "sqlite":
            cursor.execute("BEGIN IMMEDIATE")
            lock = ""
        cursor.execute(f"SELECT code, fence FROM rooms WHERE code IN "
                       f"({', '.join([mark] * len(fences))}){lock}", tuple(fences))
        return {code for code, fence in cursor.fetchall() if fence > fences[code]}
    finally:
        cursor.close()


def _execute(connection: Any, written: list[Statement]) -> None:
    cursor = connection.cursor()
    try:
        for sql, parameters, many in written:
            if many:
                cursor.executemany(sql, parameters)
            else:
                cursor.execute(sql, parameters)
    finally:
        cursor.close()


def _insert_moves(connection: Connection, moves: list[AddMove]) -> None:
    """One statement for a run of moves, in Core's transaction (``_write_core``)."""
    if connection.dialect.name in DIALECTS:
        sql, parameters, _ = move_statement(connection.dialect.name, moves)
        connection.exec_driver_sql(sql, parameters)
    else:  # pragma: no cover - the two databases the site runs on
        connection.execute(insert(RoomMoveRow), [
            {"room_code": op.code, "seq": op.seq, "seat": op.move.seat,
             "action": orjson.loads(op.move.action), "at_ms": op.move.at_ms,
             "rtt_ms": op.move.rtt_ms, "received_at": op.received_at} for op in moves])


def _delete_room(connection: Connection, code: str) -> None:
    for table in (RoomMoveRow, RoomMatchRow, RoomMemberRow):
        connection.execute(delete(table).where(table.room_code == code))
    connection.execute(delete(RoomRow).where(RoomRow.code == code))


def _save_room(connection: Connection, op: SaveRoom) -> None:
    values = {"game": op.game, "options": op.options, "host": op.host, "public": op.public,
              "status": op.status, "match_number": op.match_number,
              "next_member": op.next_member, "banned": op.banned,
              "room_options": op.room_options, "standings": op.standings, "updated_at": op.at}
    changed = connection.execute(update(RoomRow).where(RoomRow.code == op.code).values(values))
    if changed.rowcount == 0:
        connection.execute(insert(RoomRow).values(code=op.code, created_at=op.at, **values))
    connection.execute(delete(RoomMemberRow).where(RoomMemberRow.room_code == op.code))
    if op.members:
        connection.execute(insert(RoomMemberRow), [
            {"room_code": op.code, "member_id": m.id, "nickname": m.nickname, "seat": m.seat,
             "player": m.player, "nonce": m.nonce, "bot": m.bot} for m in op.members])


def _start_match(connection: Connection, op: StartMatch) -> None:
    connection.execute(delete(RoomMoveRow).where(RoomMoveRow.room_code == op.code))
    connection.execute(delete(RoomMatchRow).where(RoomMatchRow.room_code == op.code))
    connection.execute(insert(RoomMatchRow), [{
        "room_code": op.code, "match_number": op.match_number, "seed": op.seed,
        "players": op.players, "options": op.options, "started_at": op.started_at}])


def _fenced_out_core(connection: Connection, fences: dict[str, int]) -> set[str]:
    """``_fenced_out`` through SQLAlchemy Core (a database the site does not run on)."""
    rows = connection.execute(
        select(RoomRow.code, RoomRow.fence).where(RoomRow.code.in_(list(fences)))
        .with_for_update())
    return {code for code, fence in rows if fence > fences[code]}


def write_ops(db: Database, ops: list[RoomOp],
              fences: dict[str, int] | None = None) -> set[str]:
    """Write ``ops`` in order, in one transaction (blocking: run through ``Database.write``), as
    the driver's own statements (``_write_driver``). ``fences`` (several processes): the
    operations of a room whose recorded fencing token is higher than this process's are left
    out; returns the codes of those rooms."""
    if db.engine.dialect.name not in DIALECTS:  # pragma: no cover - the site's two databases
        return _write_core(db, ops, fences)
    if not ops and not fences:
        return set()
    return _write_driver(db, ops, fences)


def _write_core(db: Database, ops: list[RoomOp], fences: dict[str, int] | None) -> set[str]:
    """``write_ops`` through SQLAlchemy Core: for a database the site does not run on, and the
    yardstick the driver's statements are compared with (tests/durable/test_driver_sql.py,
    ``bench/journal_write.py``). Core, not the ORM: a transaction through a ``Session`` costs
    about twice the CPU (docs/performance.md)."""
    gone: set[str] = set()
    with db.engine.begin() as connection:
        if fences:
            gone = _fenced_out_core(connection, fences)
            if gone:
                ops = [op for op in ops if op.code not in gone]
        moves: list[AddMove] = []
        for op in ops:
            if isinstance(op, AddMove):
                moves.append(op)
                continue
            if moves:
                _insert_moves(connection, moves)
                moves = []
            if isinstance(op, SaveRoom):
                _save_room(connection, op)
            elif isinstance(op, StartMatch):
                _start_match(connection, op)
            else:
                _delete_room(connection, op.code)
        if moves:
            _insert_moves(connection, moves)
    return gone


def claim_room(db: Database, code: str, fence: int) -> int:
    """Several processes: this process took room ``code`` over with fencing token ``fence``
    (blocking). From the commit on, the previous owner's journal writes nothing more of the room;
    a write of it still in progress finishes first (its row lock), so the read that follows
    sees everything it wrote. Returns the room's token now (0: no such room); higher than
    ``fence`` only when Redis handed out a token lower than one already recorded (its data was
    lost), and then the caller draws one above it."""
    with db.engine.begin() as connection:
        connection.execute(update(RoomRow).where(RoomRow.code == code, RoomRow.fence < fence)
                           .values(fence=fence))
        recorded = connection.execute(select(RoomRow.fence).where(RoomRow.code == code))
        return int(recorded.scalar() or 0)


# --- reading back, at start -----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StoredMatch:
    match_number: int
    seed: str
    players: int
    options: dict[str, Any]
    started_at: datetime
    moves: tuple[Move, ...]
    """The recorded moves in ``seq`` order (move ``seq`` is ``moves[seq - 1]``)."""
    last_move_at: datetime | None = None
    """When the last move was received (``None`` before the first)."""


@dataclass(frozen=True, slots=True)
class StoredRoom(RoomFields):
    """A recorded room as ``load_rooms`` reads it back, with its members and running match."""

    created_at: datetime
    updated_at: datetime
    members: tuple[MemberRecord, ...]
    match: StoredMatch | None
    room_options: dict[str, Any] | None = None
    standings: dict[str, Any] | None = None

    @property
    def last_activity(self) -> datetime:
        """The later of the room's last change and its last move."""
        times = [self.updated_at]
        if self.match is not None and self.match.last_move_at is not None:
            times.append(self.match.last_move_at)
        return max(_aware(t) for t in times)


def _aware(moment: datetime) -> datetime:
    """SQLite gives back naive date-times (written as UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def load_rooms(db: Database, code: str | None = None) -> list[StoredRoom]:
    """Every room in the table (or only room ``code``), with its members, its match and that
    match's moves in order."""
    def only(table: Any, column: str = "room_code") -> Any:
        return select(table) if code is None else \
            select(table).where(getattr(table, column) == code)

    with db.session() as session:
        rooms = session.scalars(only(RoomRow, "code").order_by(RoomRow.created_at)).all()
        members: dict[str, list[MemberRecord]] = {}
        for m in session.scalars(only(RoomMemberRow).order_by(
                RoomMemberRow.room_code, RoomMemberRow.member_id)):
            members.setdefault(m.room_code, []).append(
                MemberRecord(m.member_id, m.nickname, m.seat, m.player, m.nonce, m.bot))
        moves: dict[str, list[Move]] = {}
        last_at: dict[str, datetime] = {}
        for mv in session.scalars(only(RoomMoveRow).order_by(
                RoomMoveRow.room_code, RoomMoveRow.seq)):
            moves.setdefault(mv.room_code, []).append(
                Move(mv.seat, mv.action, mv.at_ms, mv.rtt_ms))
            last_at[mv.room_code] = _aware(mv.received_at)
        matches = {
            m.room_code: StoredMatch(m.match_number, m.seed, m.players, m.options,
                                     _aware(m.started_at), tuple(moves.get(m.room_code, ())),
                                     last_at.get(m.room_code))
            for m in session.scalars(only(RoomMatchRow))
        }
        return [
            StoredRoom(r.code, r.game, r.options, r.host, r.public, r.status, r.match_number,
                       r.next_member, r.banned, _aware(r.created_at), _aware(r.updated_at),
                       tuple(members.get(r.code, ())), matches.get(r.code), r.room_options,
                       r.standings)
            for r in rooms
        ]


def load_room(db: Database, code: str) -> StoredRoom | None:
    """One room as ``load_rooms`` reads it (a takeover by another process), or None."""
    found = load_rooms(db, code)
    return found[0] if found else None


def delete_rooms(db: Database, codes: list[str]) -> None:
    """Remove these rooms and everything recorded of them (blocking)."""
    with db.engine.begin() as connection:
        for code in codes:
            _delete_room(connection, code)
