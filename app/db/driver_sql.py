"""The hot writes as the driver's own statements: the journal's operations (``statements``, run
by app/db/rooms.py) and, built from the same pieces, a finished match (app/db/matches.py), on a
driver connection past SQLAlchemy's statement compilation and per-value processing.

Through SQLAlchemy Core a room written whole or a match start cost 260-400 us of the writer's
CPU each, a move a third of a small transaction's (docs/performance.md, "The cost of durable
rooms"): a burst of joins (a restart, a class logging in together) held the rooms' frames
for hundreds of milliseconds; a finished match cost 1.3-2 ms. Here the values go in the form the columns keep them, exactly as
SQLAlchemy writes them, and are read back through the same column types (``load_rooms``): JSON
columns as JSON text from the columns' own serializer (Python's None as JSON ``null``, as
SQLAlchemy's ``JSON`` type keeps it), times on SQLite as SQLAlchemy's ``DateTime`` formats them
(UTC, no offset), on PostgreSQL as ``datetime`` values. tests/durable/test_driver_sql.py and
tests/db/test_match_sql.py check the rows against Core's, byte for byte.

A statement is ``(sql, parameters, many)``: ``many`` when the parameters are a list of rows for
``executemany`` (SQLite: one prepared statement for many rows); PostgreSQL gets one multi-row
``INSERT`` instead (one round trip).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from .database import json_dumps
from .room_ops import AddMove, DeleteRoom, RoomOp, SaveRoom, StartMatch

Statement = tuple[str, Any, bool]
"""A statement's SQL, its parameters, and whether they are a list of rows (``executemany``)."""

DIALECTS = ("sqlite", "postgresql")
"""The databases the site runs on; any other is written through SQLAlchemy Core."""
SQLITE_TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f"
"""How SQLAlchemy's ``DateTime`` keeps a time in SQLite (and reads it back): UTC, no offset."""

MOVE_COLUMNS = ("room_code", "seq", "seat", "action", "at_ms", "rtt_ms", "received_at")
ROOM_COLUMNS = ("code", "game", "options", "host", "public", "status", "match_number",
                "next_member", "banned", "room_options", "standings", "created_at", "updated_at")
ROOM_KEPT_ON_UPDATE = ("code", "created_at")
"""A room written again keeps its key and when it was created (and its ``fence``, never written
here: ``claim_room`` sets it)."""
MEMBER_COLUMNS = ("room_code", "member_id", "nickname", "seat", "player", "nonce", "bot")
MATCH_COLUMNS = ("room_code", "match_number", "seed", "players", "options", "started_at")
MATCH_RECORD_COLUMNS = ("game", "room_code", "options", "seed", "seed_hash", "started_at",
                        "ended_at", "summary", "ending", "details", "log", "draws",
                        "events_digest")
PLAYER_COLUMNS = ("match_id", "seat", "nickname", "score", "rank", "winner", "bot")
ROOM_TABLES = ("room_moves", "room_matches", "room_members")
"""A room's tables besides ``rooms``, in the order its rows are deleted (children first)."""


def statements(dialect: str, ops: Sequence[RoomOp]) -> list[Statement]:
    """The statements that write ``ops`` in order (consecutive moves in one)."""
    written: list[Statement] = []
    moves: list[AddMove] = []
    for op in ops:
        if type(op) is AddMove:
            moves.append(op)
            continue
        if moves:
            written.append(move_statement(dialect, moves))
            moves = []
        if type(op) is SaveRoom:
            written.extend(_save_room(dialect, op))
        elif type(op) is StartMatch:
            written.extend(_start_match(dialect, op))
        else:
            assert type(op) is DeleteRoom
            written.extend(_deletes(dialect, op.code, (*ROOM_TABLES, "rooms")))
    if moves:
        written.append(move_statement(dialect, moves))
    return written


def move_statement(dialect: str, moves: list[AddMove]) -> Statement:
    """One statement for a run of moves; a move already in the table (a batch written again) is
    kept as it is (``ON CONFLICT DO NOTHING`` on the ``(room_code, seq)`` key). The action is
    the log's JSON text as it is, never decoded and encoded again."""
    time = time_of(dialect)
    return insert_statement(dialect, "room_moves", MOVE_COLUMNS, [
        (op.code, op.seq, op.move.seat, op.move.action, op.move.at_ms, op.move.rtt_ms,
         time(op.received_at)) for op in moves], " ON CONFLICT DO NOTHING")


def _save_room(dialect: str, op: SaveRoom) -> list[Statement]:
    """The room's row (inserted, or updated but for its key, creation time and fence), then its
    members replaced by the ones it has now."""
    at = time_of(dialect)(op.at)
    room = (op.code, op.game, json_dumps(op.options), op.host, op.public, op.status,
            op.match_number, op.next_member, json_dumps(op.banned), json_dumps(op.room_options),
            json_dumps(op.standings), at, at)
    updated = ", ".join(f"{column} = excluded.{column}" for column in ROOM_COLUMNS
                        if column not in ROOM_KEPT_ON_UPDATE)
    written = [insert_statement(dialect, "rooms", ROOM_COLUMNS, [room],
                       f" ON CONFLICT (code) DO UPDATE SET {updated}")]
    written.extend(_deletes(dialect, op.code, ("room_members",)))
    if op.members:
        written.append(insert_statement(dialect, "room_members", MEMBER_COLUMNS, [
            (op.code, m.id, m.nickname, m.seat, m.player, m.nonce, m.bot) for m in op.members]))
    return written


def _start_match(dialect: str, op: StartMatch) -> list[Statement]:
    """The room's previous match and its moves go; the new match's row replaces them."""
    written = _deletes(dialect, op.code, ("room_moves", "room_matches"))
    written.append(insert_statement(dialect, "room_matches", MATCH_COLUMNS, [
        (op.code, op.match_number, op.seed, op.players, json_dumps(op.options),
         time_of(dialect)(op.started_at))]))
    return written


def _deletes(dialect: str, code: str, tables: Iterable[str]) -> list[Statement]:
    mark = placeholder(dialect)
    return [(f"DELETE FROM {table} WHERE room_code = {mark}", (code,), False)
            if table != "rooms" else (f"DELETE FROM rooms WHERE code = {mark}", (code,), False)
            for table in tables]


def insert_statement(dialect: str, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]],
            tail: str = "") -> Statement:
    """``INSERT`` of ``rows``: SQLite one prepared statement run for each row, PostgreSQL one
    statement with every row (one round trip)."""
    mark = placeholder(dialect)
    row = f"({', '.join([mark] * len(columns))})"
    head = f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
    if dialect == "sqlite":
        if len(rows) == 1:
            return head + row + tail, rows[0], False
        return head + row + tail, rows, True
    return (head + ", ".join([row] * len(rows)) + tail,
            tuple(value for values in rows for value in values), False)


def placeholder(dialect: str) -> str:
    """The driver's placeholder: sqlite3's ``?``, psycopg's ``%s``."""
    return "?" if dialect == "sqlite" else "%s"


def time_of(dialect: str) -> Callable[[datetime], Any]:
    """How a time goes to the driver: SQLite text as SQLAlchemy keeps it, else the value."""
    return _sqlite_time if dialect == "sqlite" else _same


def _sqlite_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(SQLITE_TIME_FORMAT)


def _same(moment: datetime) -> datetime:
    return moment
