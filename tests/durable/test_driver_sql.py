"""The journal's operations as the driver's own statements (app/db/driver_sql.py) store exactly the
rows SQLAlchemy Core stores for them (``_write_core``, the way before decision 0036), and read
back as written, on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from sqlalchemy import text

from app.db.database import Database, migrate
from app.db.driver_sql import statements
from app.db.rooms import (
    AddMove,
    DeleteRoom,
    MemberRecord,
    RoomOp,
    SaveRoom,
    StartMatch,
    _write_core,
    load_rooms,
    write_ops,
)
from app.engine import LogEntry, Move

AT = datetime(2026, 12, 4, 9, 30, 15, 123_456, tzinfo=UTC)
TABLES = {
    "rooms": "code",
    "room_members": "room_code",
    "room_matches": "room_code",
    "room_moves": "room_code",
}


def _db(url: str) -> Database:
    migrate(url)
    return Database(url, timeout=2.0)


def _save(code: str, *, later: int = 0, members: int = 3, **fields: object) -> SaveRoom:
    values: dict[str, object] = dict(
        code=code, game="panik_pilze", options={"rounds": 2, "variant": "ärger"}, host=None,
        public=True, status="waiting", match_number=0, next_member=members + 1,
        banned={"nonces": ["n9"], "names": ["Zoë"]},
        members=tuple(MemberRecord(i, f"Spieler {i} ☃", i - 1 if i < 3 else None, i < 3,
                                   f"nonce{i}", "hard" if i == 2 else None)
                      for i in range(1, members + 1)),
        room_options=None, at=AT + timedelta(seconds=later))
    values.update(fields)
    return SaveRoom(**values)  # type: ignore[arg-type]


def _start(code: str, number: int) -> StartMatch:
    return StartMatch(code=code, match_number=number, seed=f"{number:02x}" * 32, players=2,
                      options={"rounds": 2, "nested": {"a": None, "b": [1.5]}},
                      started_at=AT + timedelta(seconds=number))


def _action(seq: int) -> dict[str, object]:
    return {"type": "play", "card": seq, "text": "Grüße \"quoted\""}


def _move(code: str, seq: int) -> AddMove:
    return AddMove(code, seq, LogEntry.of(Move(None if seq == 1 else seq % 2, _action(seq),
                                               seq * 250, seq)), AT + timedelta(seconds=seq))


def _history(code: str) -> list[RoomOp]:
    """A room's life as the journal writes it: created, joined, a match and its moves, a
    rematch (the first match's moves go), the room changed (fewer members, options set)."""
    return [
        _save(code, members=1),
        _save(code, later=1, members=3),
        _start(code, 1),
        _move(code, 1), _move(code, 2), _move(code, 3),
        _save(code, later=2, status="playing", match_number=1, host=1),
        _start(code, 2),
        _move(code, 1),
        _save(code, later=3, members=2, status="finished", match_number=2, host=2,
              room_options={"bot_takeover_seconds": 30}),
    ]


def _rows(db: Database, code: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the room in every table, as the driver gives them back, the code left out."""
    found: dict[str, list[tuple[object, ...]]] = {}
    with db.engine.connect() as connection:
        for table, key in TABLES.items():
            rows = connection.execute(
                text(f"SELECT * FROM {table} WHERE {key} = :code ORDER BY 1, 2"), {"code": code})
            found[table] = [tuple(value for name, value in row._mapping.items() if name != key)
                            for row in rows]
    return found


def test_the_driver_statements_store_the_rows_core_stores(database_url):
    """A room's whole life written by each way: the same rows in every table, byte for byte on
    SQLite (JSON text, ``null`` for a missing value, times as SQLAlchemy formats them)."""
    db = _db(database_url)
    try:
        _write_core(db, _history("CORE"), None)
        write_ops(db, _history("DRVR"))
        core, driver = _rows(db, "CORE"), _rows(db, "DRVR")
        assert driver == core
        assert [len(core[table]) for table in TABLES] == [1, 2, 1, 1]
    finally:
        db.dispose()


def test_a_room_written_by_the_driver_reads_back_as_it_was_written(database_url):
    db = _db(database_url)
    try:
        history = _history("DRVR")
        write_ops(db, history)
        (room,) = load_rooms(db)
        last = history[-1]
        assert isinstance(last, SaveRoom)
        assert (room.code, room.game, room.options, room.host, room.public, room.status,
                room.match_number, room.next_member, room.banned, room.room_options) == (
            last.code, last.game, last.options, last.host, last.public, last.status,
            last.match_number, last.next_member, last.banned, last.room_options)
        assert room.members == last.members
        assert room.created_at == AT and room.updated_at == last.at
        assert room.match is not None
        assert (room.match.match_number, room.match.seed, room.match.options,
                room.match.started_at) == (2, "02" * 32, _start("DRVR", 2).options,
                                           AT + timedelta(seconds=2))
        assert list(room.match.moves) == [Move(None, _action(1), 250, 1)]
    finally:
        db.dispose()


def test_a_time_in_another_zone_is_stored_as_the_same_instant(database_url):
    db = _db(database_url)
    try:
        berlin = timezone(timedelta(hours=1))
        write_ops(db, [_save("ZONE", at=AT.astimezone(berlin)),
                       StartMatch("ZONE", 1, "ab" * 32, 2, {}, AT.astimezone(berlin))])
        (room,) = load_rooms(db)
        assert room.created_at == AT and room.match is not None and room.match.started_at == AT
    finally:
        db.dispose()


def test_a_batch_written_twice_leaves_the_rows_of_writing_it_once(database_url):
    """The journal retries a batch whose answer was lost: every operation is idempotent."""
    db = _db(database_url)
    try:
        write_ops(db, _history("ONCE"))
        write_ops(db, _history("TWCE"))
        write_ops(db, _history("TWCE"))
        assert _rows(db, "TWCE") == _rows(db, "ONCE")
    finally:
        db.dispose()


def test_a_closed_room_leaves_no_row(database_url):
    db = _db(database_url)
    try:
        write_ops(db, _history("GONE") + _history("STAY"))
        write_ops(db, [DeleteRoom("GONE"), _move("STAY", 2)])
        assert _rows(db, "GONE") == {table: [] for table in TABLES}
        assert [room.code for room in load_rooms(db)] == ["STAY"]
    finally:
        db.dispose()


def test_consecutive_moves_go_in_one_statement():
    ops: list[RoomOp] = [_start("ABCD", 1), _move("ABCD", 1), _move("ABCD", 2),
                         _save("ABCD"), _move("ABCD", 3)]
    for dialect in ("sqlite", "postgresql"):
        written = statements(dialect, ops)
        moves = [sql for sql, _, _ in written if sql.startswith("INSERT INTO room_moves")]
        assert len(moves) == 2
        assert all("ON CONFLICT DO NOTHING" in sql for sql in moves)


def test_the_statements_name_every_column_of_the_tables():
    """A column added by a migration must be written by the driver's statements too (or be the
    fence, which only ``claim_room`` writes): the rows of the two ways would differ."""
    from app.db.models import RoomMatchRow, RoomMemberRow, RoomMoveRow, RoomRow
    from app.db.driver_sql import MATCH_COLUMNS, MEMBER_COLUMNS, MOVE_COLUMNS, ROOM_COLUMNS

    for model, columns in ((RoomRow, ROOM_COLUMNS), (RoomMemberRow, MEMBER_COLUMNS),
                           (RoomMatchRow, MATCH_COLUMNS), (RoomMoveRow, MOVE_COLUMNS)):
        assert set(model.__table__.columns.keys()) - {"fence"} == set(columns), model
