"""The journal's writer thread (app/db/lane.py, ``Database.write``): calls run one at a time in
the order handed over, each answered on the loop; an abandoned call is never run late; a call
stuck on a silent server is cut at its deadline and the calls behind it go on; the writer
thread keeps one driver connection for its batches of moves, dropped after a failure."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from app.db.database import Database, DatabaseUnavailable
from app.db.lane import CallLane
from app.db.rooms import AddMove
from app.engine.movelog import LogEntry
from tests.live import run_async


def test_calls_run_in_the_order_handed_over_on_one_thread_of_their_own():
    lane = CallLane("test-lane")
    ran: list[tuple[int, int]] = []

    def call(i: int) -> int:
        ran.append((i, threading.get_ident()))
        return i * i

    async def scenario() -> list[int]:
        futures = [lane.submit(call, (i,)) for i in range(50)]
        return list(await asyncio.gather(*futures))

    try:
        assert run_async(scenario()) == [i * i for i in range(50)]
    finally:
        lane.stop()
    assert [i for i, _ in ran] == list(range(50))
    threads = {ident for _, ident in ran}
    assert len(threads) == 1 and threading.get_ident() not in threads


def test_an_error_reaches_its_caller_and_the_lane_goes_on():
    lane = CallLane("test-lane")

    def fail() -> None:
        raise ValueError("refused")

    async def scenario() -> str:
        with pytest.raises(ValueError, match="refused"):
            await lane.submit(fail, ())
        return str(await lane.submit(str.upper, ("next",)))

    try:
        assert run_async(scenario()) == "NEXT"
    finally:
        lane.stop()


def _cancel(future: asyncio.Future[object]) -> None:
    future.cancel()


def _fail_at_deadline(future: asyncio.Future[object]) -> None:
    future.set_exception(TimeoutError("past its deadline"))  # what ``Database.write`` does


@pytest.mark.parametrize("abandon", [_cancel, _fail_at_deadline], ids=["cancelled", "failed"])
def test_a_call_abandoned_before_it_started_is_never_run(abandon):
    """The caller gave up (its deadline) while an earlier call held the thread: when the thread
    comes to it, it is skipped, not run late (a late journal batch would write old rows);
    whether its future was cancelled or failed (``Database.write``'s deadline fails it)."""
    lane = CallLane("test-lane")
    release = threading.Event()
    ran: list[str] = []

    async def scenario() -> None:
        first = lane.submit(lambda: (release.wait(10), ran.append("first")), ())
        second = lane.submit(ran.append, ("second",))
        abandon(second)
        release.set()
        await first
        await lane.submit(ran.append, ("third",))
        assert second.done()
        if not second.cancelled():
            assert isinstance(second.exception(), TimeoutError)

    try:
        run_async(scenario())
    finally:
        lane.stop()
    assert ran == ["first", "third"]


def test_a_write_stuck_on_the_database_is_cut_at_its_deadline_and_the_next_goes_on(tmp_path):
    """``Database.write`` answers ``DatabaseUnavailable`` at its deadline and cuts the stuck call
    (SQLite: the connection is interrupted); the writer thread is free for the next write. The
    stuck call is a statement that would run for minutes: only the cut ends it."""
    db = Database(f"sqlite:///{tmp_path / 'db.sqlite3'}", timeout=1.0)
    endless = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
               "SELECT count(*) FROM n")

    def stuck() -> None:
        with db.engine.connect() as connection:
            connection.execute(text(endless))

    def answer() -> int:
        with db.engine.connect() as connection:
            return int(connection.execute(text("SELECT 42")).scalar_one())

    async def scenario() -> tuple[float, int]:
        started = time.monotonic()
        with pytest.raises(DatabaseUnavailable):
            await db.write(stuck, deadline=0.2)
        waited = time.monotonic() - started
        return waited, await asyncio.wait_for(db.write(answer), 30)

    try:
        waited, value = run_async(scenario())
    finally:
        db.dispose()
    assert waited >= 0.2  # the deadline ended the wait: the statement itself never ends
    assert value == 42


CODE = "LANE"


def _room_with_a_match(db: Database) -> None:
    from app.db.rooms import MemberRecord, SaveRoom, StartMatch, write_ops

    write_ops(db, [
        SaveRoom(code=CODE, game="panika", options={}, host=1, public=False, status="playing",
                 match_number=1, next_member=3, banned={"nonces": [], "names": []},
                 members=tuple(MemberRecord(i, f"P{i}", i - 1, True, f"n{i}") for i in (1, 2))),
        StartMatch(code=CODE, match_number=1, seed="00" * 32, players=2, options={},
                   started_at=datetime.now(UTC)),
    ])


def _moves(first: int, count: int) -> list[AddMove]:
    return [AddMove(CODE, seq, LogEntry(seq % 2, '{"type":"tap"}', 10 * seq, 5),
                    datetime.now(UTC)) for seq in range(first, first + count)]


def _stored_seqs(db: Database) -> list[int]:
    with db.engine.connect() as connection:
        return [row[0] for row in connection.execute(
            text("SELECT seq FROM room_moves ORDER BY seq"))]


def test_the_writer_thread_keeps_one_connection_for_its_batches_of_moves(tmp_path):
    """``Database.writer_connection``: the journal's batches of moves go through one driver
    connection the writer thread keeps (no check-out, check-in and reset a batch); other
    threads still take the pool's."""
    from app.db.database import migrate
    from app.db.rooms import write_ops

    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(url)
    db = Database(url)
    _room_with_a_match(db)
    seen: list[object] = []

    def batch(first: int) -> None:
        write_ops(db, _moves(first, 3))
        seen.append(db.writer_connection())

    async def scenario() -> None:
        for first in (1, 4, 7):
            await db.write(batch, first)
            assert db.engine.pool.checkedout() == 1  # held between batches, not given back

    try:
        run_async(scenario())
        assert db.writer_connection() is None  # not on the writer thread
        assert len({id(c) for c in seen}) == 1 and seen[0] is not None
        assert _stored_seqs(db) == list(range(1, 10))
    finally:
        db.dispose()
    assert db.engine.pool.checkedout() == 0  # closing the handle gives it back


def test_a_failed_batch_drops_the_writers_connection_and_the_next_takes_a_fresh_one(
        tmp_path, monkeypatch):
    """A batch that fails half-way never leaves its connection in use: it is closed, its place
    in the pool given back, and the next batch (the journal's retry) opens another."""
    from app.db import rooms
    from app.db.database import migrate

    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(url)
    db = Database(url)
    _room_with_a_match(db)
    real = rooms._execute
    calls = {"n": 0}
    used: list[object] = []

    def fails_once(connection, written):  # type: ignore[no-untyped-def]
        used.append(connection.dbapi_connection)
        calls["n"] += 1
        if calls["n"] == 2:
            cursor = connection.cursor()
            sql, rows, _ = written[0]
            cursor.execute(sql, rows[0])  # half the batch in, uncommitted
            raise RuntimeError("the disk said no")
        real(connection, written)

    monkeypatch.setattr(rooms, "_execute", fails_once)

    async def scenario() -> None:
        await db.write(rooms.write_ops, db, _moves(1, 2))
        with pytest.raises(RuntimeError, match="the disk said no"):
            await db.write(rooms.write_ops, db, _moves(3, 2))
        assert db.engine.pool.checkedout() == 0
        await db.write(rooms.write_ops, db, _moves(3, 2))  # the retry
        assert db.engine.pool.checkedout() == 1

    try:
        run_async(scenario())
        assert _stored_seqs(db) == [1, 2, 3, 4]  # the failed half was never committed
    finally:
        db.dispose()
    assert used[0] is used[1] and used[2] is not used[1]


def test_the_writers_commits_are_flushed_to_the_disk(tmp_path):
    """Decision 0037: SQLite commits in WAL mode with ``synchronous=FULL`` (2) on the writer's
    kept connection as on every other: a commit returns only when its WAL frames are on the
    disk, so a move a client saw survives a crash of the machine too (``NORMAL``, 1, would
    only survive the server's)."""
    from app.db.database import migrate

    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(url)
    db = Database(url)

    def pragmas() -> tuple[str, int]:
        connection = db.writer_connection()
        cursor = connection.cursor()
        try:
            (mode,) = cursor.execute("PRAGMA journal_mode").fetchone()
            (level,) = cursor.execute("PRAGMA synchronous").fetchone()
        finally:
            cursor.close()
        return mode, level

    try:
        assert run_async(db.write(pragmas)) == ("wal", 2)
        with db.engine.connect() as connection:  # a pooled connection: the same
            assert connection.execute(text("PRAGMA synchronous")).scalar() == 2
    finally:
        db.dispose()
