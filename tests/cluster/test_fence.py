"""The database's fence (migration 0006, app/db/rooms.py): once a process has taken a room over
with a higher fencing token, the journal of the room's previous owner writes nothing more of it,
and a write of the old owner still in progress finishes before the takeover reads the room."""

from __future__ import annotations

import threading

import pytest

from app.db.database import Database, migrate
from app.db.driver_sql import statements
from app.db.rooms import _execute, _fenced_out, claim_room, load_room, write_ops
from tests.clock import wait_until
from tests.durable.test_journal import _move, _room, _seqs, _start


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request, tmp_path):  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'fence.sqlite3'}" if request.param == "sqlite" \
        else request.getfixturevalue("postgres_url")
    migrate(url)
    database = Database(url)
    yield database
    database.dispose()


def _moves(db: Database) -> list[int]:
    stored = load_room(db, "ABCD")
    assert stored is not None and stored.match is not None
    return _seqs(stored.match)


def test_an_owner_with_a_lower_token_writes_nothing_more(db):
    write_ops(db, [_room(), _start(), _move(1)], {"ABCD": 1})
    claim_room(db, "ABCD", 2)  # another process took the room over
    gone = write_ops(db, [_move(2), _room(status="finished")], {"ABCD": 1})  # the old owner
    assert gone == {"ABCD"}  # the journal learns which rooms were refused
    stored = load_room(db, "ABCD")
    assert _moves(db) == [1] and stored is not None and stored.status == "playing"
    assert write_ops(db, [_move(2)], {"ABCD": 2}) == set()  # the new owner
    assert _moves(db) == [1, 2]
    claim_room(db, "ABCD", 1)  # a lower token never lowers the room's
    write_ops(db, [_move(3)], {"ABCD": 1})
    assert _moves(db) == [1, 2]


def test_other_rooms_in_the_same_batch_are_written(db):
    write_ops(db, [_room(), _start(), _room("WXYZ"), _start("WXYZ")], {"ABCD": 1, "WXYZ": 1})
    claim_room(db, "ABCD", 5)
    assert write_ops(db, [_move(1), _move(1, "WXYZ")], {"ABCD": 1, "WXYZ": 1}) == {"ABCD"}
    stored = load_room(db, "WXYZ")
    assert _moves(db) == [] and stored is not None and _seqs(stored.match) == [1]


@pytest.mark.postgres
def test_a_takeover_waits_for_the_old_owners_write_in_progress(postgres_url):
    """PostgreSQL: the old owner's batch holds the room's row (``FOR UPDATE``) until it commits;
    the takeover's claim waits for it, so the room it reads includes that batch. The claim is
    seen waiting on the row's lock (``pg_stat_activity``) before the old owner commits: the
    order is shown, not timed."""
    from sqlalchemy import text

    migrate(postgres_url)
    db = Database(postgres_url)
    watcher = Database(postgres_url)
    try:
        write_ops(db, [_room(), _start(), _move(1)], {"ABCD": 1})
        locked, claim_waits = threading.Event(), threading.Event()
        order: list[str] = []

        def old_owner() -> None:
            def batch(connection) -> None:  # type: ignore[no-untyped-def]
                # ``write_ops``'s own steps, with the claim let in between the check and the
                # write (``_write_driver``)
                assert _fenced_out(connection, "postgresql", {"ABCD": 1}) == set()
                locked.set()
                assert claim_waits.wait(30)
                _execute(connection, statements("postgresql", [_move(2)]))
                order.append("old owner writes")

            db.driver_transaction(batch)

        def takeover() -> None:
            claim_room(db, "ABCD", 2)
            order.append("claimed")

        def waiting_on_a_lock() -> int:
            with watcher.engine.connect() as connection:
                return int(connection.execute(text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    " AND wait_event_type = 'Lock'")).scalar() or 0)

        writer = threading.Thread(target=old_owner)
        writer.start()
        assert locked.wait(10)
        claimer = threading.Thread(target=takeover)
        claimer.start()
        wait_until(lambda: waiting_on_a_lock() == 1, 30, "the claim waiting on the row")
        assert order == []  # it waits for the write in progress...
        claim_waits.set()
        writer.join(30)
        claimer.join(30)
        assert order == ["old owner writes", "claimed"]
        assert _moves(db) == [1, 2]  # ...and the room it reads has it
        write_ops(db, [_move(3)], {"ABCD": 1})  # after the claim: refused
        assert _moves(db) == [1, 2]
    finally:
        watcher.dispose()
        db.dispose()


@pytest.mark.redis
def test_a_token_redis_forgot_is_raised_past_the_databases(db, redis_url, prefix):
    """Redis lost its data (it restarted without persistence): its counter starts again below
    the token the database holds; the node that takes the room draws one above it, and its
    journal's writes are taken."""
    from app.realtime.cluster.relay import Cluster
    from app.realtime.registry import RoomRegistry
    from app.realtime.room.tokens import SeatTokens
    from tests.live import run_async

    write_ops(db, [_room(), _start(), _move(1)], {"ABCD": 1})
    claim_room(db, "ABCD", 7)  # owners came and went before Redis forgot

    async def take() -> int:
        cluster = Cluster(redis_url, prefix)
        registry = RoomRegistry(db=db, tokens=SeatTokens("secret"), cluster=cluster)
        try:
            fence = await cluster.leases.acquire("ABCD")
            assert fence == 1  # the counter started again
            return await registry._fence("ABCD", fence)
        finally:
            await cluster.redis.aclose()

    fence = run_async(take())
    assert fence == 8
    write_ops(db, [_move(2)], {"ABCD": fence})
    assert _moves(db) == [1, 2]


def test_on_sqlite_the_check_takes_the_files_write_lock_at_once(tmp_path):
    """SQLite's driver begins a transaction only at the first write, after the check: the
    check begins it itself (``BEGIN IMMEDIATE``), so no claim can commit between the two."""
    import sqlite3

    path = tmp_path / "fence.sqlite3"
    migrate(f"sqlite:///{path}")
    db = Database(f"sqlite:///{path}")
    other = sqlite3.connect(path, timeout=0)
    try:
        write_ops(db, [_room(), _start()], {"ABCD": 1})

        def batch(connection) -> None:  # type: ignore[no-untyped-def]
            assert _fenced_out(connection, "sqlite", {"ABCD": 1}) == set()
            assert connection.dbapi_connection.in_transaction
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("UPDATE rooms SET fence = 2 WHERE code = 'ABCD'")

        db.driver_transaction(batch)
        other.execute("UPDATE rooms SET fence = 2 WHERE code = 'ABCD'")  # free again
        other.commit()
    finally:
        other.close()
        db.dispose()
