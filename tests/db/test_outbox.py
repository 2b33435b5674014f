"""Nothing finished is lost (issue 7, item 1): a match that ends while the database is away (a
closed port, a server that accepts and never answers, a SQLite file locked past its busy
timeout) waits in the outbox on local disk and is written, exactly once, when the database is
back, across a restart too."""

from __future__ import annotations

import asyncio
import logging
import secrets
import sqlite3
import time
from datetime import UTC, datetime, timedelta

import orjson
import pytest
from sqlalchemy import func, select, text

from app.db.database import Database, DatabaseUnavailable, migrate
from app.engine import Move, MoveLog
from app.db.matches import MatchRecord, PlayerResult, get_match, save_match
from app.db.models import Match, MatchPlayer
from app.db.outbox import MatchWriter, Outbox
from tests.live import run_async

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


def record(nickname: str = "Ann") -> MatchRecord:
    return MatchRecord(
        game="panika", room_code="ABCD", options={"turn_seconds": 30}, seed=secrets.token_hex(32),
        seed_hash=secrets.token_hex(32), started_at=T0, ended_at=T0 + timedelta(minutes=7),
        summary="{seat:0} wins", players=[PlayerResult(0, nickname, 0, 1, True),
                                          PlayerResult(1, "Bob", -2, 2, False)],
        log=[Move(0, {"type": "tap"}, 10, 3), Move(None, {"type": "auto"}, 900, 0)],
    )


def stored(url: str) -> tuple[int, int]:
    """(matches, players) in the database at ``url``."""
    db = Database(url)
    try:
        with db.session() as session:
            return (session.scalar(select(func.count()).select_from(Match)),
                    session.scalar(select(func.count()).select_from(MatchPlayer)))
    finally:
        db.dispose()


async def until(predicate, timeout: float = 15.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def writer_of(db: Database, tmp_path) -> MatchWriter:  # type: ignore[no-untyped-def]
    return MatchWriter(db, Outbox(tmp_path / "outbox"), first_delay=0.05, max_delay=0.3)


def retries(writer: MatchWriter) -> int:
    """The background writer's attempts so far at the matches that wait."""
    return sum(waiting.attempts for waiting in writer._waiting.values())


# --- the outbox on disk --------------------------------------------------------------------------
def test_the_outbox_keeps_a_record_whole_and_in_order(tmp_path):
    outbox = Outbox(tmp_path / "outbox")
    first, second = record("Ann"), record("Cy")
    keys = [outbox.put(first), outbox.put(second)]
    (tmp_path / "outbox" / ".half-written.tmp").write_text("{")  # a crash mid-write
    assert outbox.keys() == keys
    assert outbox.load(keys[0]) == first and outbox.load(keys[1]) == second
    outbox.remove(keys[0])
    assert outbox.keys() == keys[1:]


def test_a_record_with_the_rooms_move_log_is_kept_as_the_same_json_and_loads_back(tmp_path):
    """The room hands its ``MoveLog`` over; the outbox writes its text as it is
    (``MatchRecord.encoded``): the bytes of encoding the plain record, read back equal."""
    kept = record()
    as_log = MatchRecord(**{**vars(kept), "log": MoveLog(kept.log)})
    assert as_log.encoded() == orjson.dumps(kept.to_json()) == orjson.dumps(as_log.to_json())
    outbox = Outbox(tmp_path / "outbox")
    assert outbox.load(outbox.put(as_log)) == kept


def test_an_unreadable_entry_is_set_aside_and_the_rest_are_written(tmp_path):
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(url)
    outbox = Outbox(tmp_path / "outbox")
    good = outbox.put(record())
    (tmp_path / "outbox" / "00000000000000000001-broken.json").write_text("{not json")

    async def scenario() -> None:
        db = Database(url)
        writer = writer_of(db, tmp_path)
        await writer.start()
        try:
            await until(lambda: writer.pending_count() == 0 and outbox.keys() == [])
        finally:
            await writer.stop()
            db.dispose()

    run_async(scenario())
    assert good not in outbox.keys() and stored(url) == (1, 2)
    assert (tmp_path / "outbox" / "00000000000000000001-broken.unreadable").exists()


# --- the database away, then back ----------------------------------------------------------------
def _down_then_back(proxy, tmp_path, mode: str) -> None:  # type: ignore[no-untyped-def]
    """End a match while the proxy is in ``mode``, then bring the database back."""
    states: list[str] = []

    async def scenario() -> int:
        db = Database(proxy.url, timeout=1.0)
        writer = writer_of(db, tmp_path)
        await writer.start()
        try:
            proxy.set_mode(mode)
            saving = asyncio.create_task(writer.save(record(), states.append))
            # A stalled database never answers: "retrying" shows the first attempt was bounded.
            await until(lambda: states == ["retrying"])
            assert len(writer.outbox.keys()) == 1 and not saving.done()
            await until(lambda: retries(writer) >= 3)  # several retries, all failing
            assert not saving.done()
            proxy.set_mode("forward")
            return await asyncio.wait_for(saving, 20)
        finally:
            await writer.stop()
            db.dispose()

    match_id = run_async(scenario())
    assert states == ["retrying"]
    assert Outbox(tmp_path / "outbox").keys() == []
    db = Database(proxy.url)
    try:
        assert get_match(db, match_id=match_id)["players"][0]["nickname"] == "Ann"
    finally:
        db.dispose()
    assert stored(proxy.upstream_url) == (1, 2)


@pytest.mark.postgres
def test_a_match_ending_while_the_port_is_closed_is_saved_once_when_it_opens(flaky_postgres,
                                                                             tmp_path):
    _down_then_back(flaky_postgres, tmp_path, "refuse")


@pytest.mark.postgres
def test_a_match_ending_while_the_database_never_answers_is_saved_once_later(flaky_postgres,
                                                                              tmp_path):
    _down_then_back(flaky_postgres, tmp_path, "stall")


def test_a_match_ending_while_sqlite_is_locked_is_saved_once_after(tmp_path):
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(url)
    # check_same_thread=False: the scenario runs in a loop of its own thread (tests.live.run_async)
    lock = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None, check_same_thread=False)
    lock.execute("BEGIN EXCLUSIVE")
    states: list[str] = []

    async def scenario() -> int:
        db = Database(url, timeout=0.3)
        writer = writer_of(db, tmp_path)
        await writer.start()
        try:
            saving = asyncio.create_task(writer.save(record(), states.append))
            await until(lambda: states == ["retrying"])
            await until(lambda: retries(writer) >= 2)  # retried, and refused again
            assert not saving.done() and len(writer.outbox.keys()) == 1
            lock.execute("COMMIT")
            return await asyncio.wait_for(saving, 10)
        finally:
            await writer.stop()
            db.dispose()

    try:
        match_id = run_async(scenario())
    finally:
        lock.close()
    assert isinstance(match_id, int) and stored(url) == (1, 2)
    assert Outbox(tmp_path / "outbox").keys() == []


@pytest.mark.postgres
def test_a_waiting_match_survives_a_restart_and_is_saved_once(flaky_postgres, tmp_path):
    """The server stops while the database is down; a new one on the same var dir writes it."""
    proxy = flaky_postgres
    proxy.set_mode("refuse")
    states: list[str] = []

    async def before_restart() -> None:
        db = Database(proxy.url, timeout=1.0)
        writer = writer_of(db, tmp_path)
        await writer.start()
        saving = asyncio.create_task(writer.save(record(), states.append))
        await until(lambda: states == ["retrying"])
        saving.cancel()  # the room went away with the server
        await writer.stop()
        db.dispose()

    async def after_restart() -> None:
        db = Database(proxy.url, timeout=1.0)
        writer = writer_of(db, tmp_path)
        await writer.start()
        try:
            await until(lambda: writer.pending_count() == 0)
        finally:
            await writer.stop()
            db.dispose()

    run_async(before_restart())
    assert len(Outbox(tmp_path / "outbox").keys()) == 1 and stored(proxy.upstream_url) == (0, 0)
    proxy.set_mode("forward")
    run_async(after_restart())
    assert stored(proxy.upstream_url) == (1, 2) and Outbox(tmp_path / "outbox").keys() == []


def test_an_entry_already_written_before_a_crash_is_not_stored_twice(tmp_path):
    """A crash between the database's commit and the deletion of the outbox file."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(url)
    db = Database(url)
    match = record()
    Outbox(tmp_path / "outbox").put(match)
    save_match(db, record=match)

    async def restart() -> None:
        writer = writer_of(db, tmp_path)
        await writer.start()
        try:
            await until(lambda: writer.pending_count() == 0)
        finally:
            await writer.stop()

    run_async(restart())
    db.dispose()
    assert stored(url) == (1, 2) and Outbox(tmp_path / "outbox").keys() == []


def test_a_match_the_database_refuses_does_not_hold_up_the_others(tmp_path):
    """A record the database can never take (here: too long a room code for the column on
    PostgreSQL, a constraint on any backend) is kept and retried; later matches are written."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(url)
    db = Database(url)
    bad = record()
    bad.players.append(PlayerResult(0, "Twin", 0, 1, True))  # seat 0 twice: refused below
    real_save = save_match

    def picky(database, *, record):  # type: ignore[no-untyped-def]
        if len(record.players) > 2:
            raise ValueError("refused")
        return real_save(database, record=record)

    async def scenario() -> None:
        import app.db.outbox as outbox_module

        outbox_module.save_match = picky
        writer = writer_of(db, tmp_path)
        await writer.start()
        try:
            first = asyncio.create_task(writer.save(bad))
            await until(lambda: writer.pending_count() == 1)
            good = await asyncio.wait_for(writer.save(record("Cy")), 5)
            assert isinstance(good, int) and not first.done()
            first.cancel()
        finally:
            try:  # stopped first: a retry meanwhile would write the refused one for real
                await writer.stop()
            finally:
                outbox_module.save_match = real_save

    run_async(scenario())
    db.dispose()
    assert stored(url) == (1, 2) and len(Outbox(tmp_path / "outbox").keys()) == 1


class _Refusing:
    """A database whose every write fails with ``error`` (as ``Database.store`` raises it)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def store(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise self.error


@pytest.mark.parametrize("error, traceback", [
    (DatabaseUnavailable("the database did not answer within 5 s"), False),
    (ValueError("a bug"), True),
])
def test_a_first_write_the_database_cannot_take_is_one_line_unless_nobody_expected_it(
        tmp_path, caplog, error, traceback):
    """The database away is an expected outage: one warning with its cause, no traceback
    (docs/decisions/0045); any other failure is a bug and keeps its traceback. Either way the
    match waits in the outbox."""
    caplog.set_level("DEBUG", logger="app.db.outbox")
    writer = MatchWriter(_Refusing(error), Outbox(tmp_path / "outbox"))  # type: ignore[arg-type]

    async def scenario() -> None:
        saving = asyncio.create_task(writer.save(record()))
        await until(lambda: writer.pending_count() == 1)
        saving.cancel()

    run_async(scenario())
    (line,) = [r for r in caplog.records if r.name == "app.db.outbox"]
    assert line.getMessage().startswith("could not save match ")
    assert "it waits in the outbox" in line.getMessage()
    if traceback:
        assert line.exc_info is not None and line.exc_info[1] is error
    else:
        assert line.levelno == logging.WARNING and line.exc_info is None
        assert "(DatabaseUnavailable: the database did not answer within 5 s)" \
            in line.getMessage()
    assert len(Outbox(tmp_path / "outbox").keys()) == 1


# --- bounded calls -------------------------------------------------------------------------------
@pytest.mark.postgres
@pytest.mark.parametrize("mode", ["refuse", "stall"])
def test_a_database_call_never_hangs(flaky_postgres, mode):
    """``Database.run`` answers ``DatabaseUnavailable`` at its deadline: a stalled database
    never answers, so the call's end is the deadline's doing (the outer wait only bounds a
    broken run)."""
    flaky_postgres.set_mode(mode)

    async def scenario() -> None:
        db = Database(flaky_postgres.url, timeout=1.0)
        try:
            with pytest.raises(DatabaseUnavailable):
                await asyncio.wait_for(db.run(save_match, db, record=record()), 30)
        finally:
            db.dispose()

    run_async(scenario())


@pytest.mark.postgres
def test_a_server_falling_silent_mid_conversation_frees_the_call_and_its_thread(flaky_postgres):
    """A pooled connection whose server stops answering (no statement timeout can fire: the
    server never hears the statement): the call fails at its deadline, the stuck connection is
    cut so its thread is free again, and the database works as soon as it answers."""
    from app.db.database import DB_THREADS
    from app.db.matches import list_matches

    async def scenario() -> None:
        db = Database(flaky_postgres.url, timeout=1.0)
        def nap() -> None:
            with db.engine.connect() as connection:
                connection.execute(text("SELECT pg_sleep(0.3)"))

        try:
            # The pool keeps its five connections open, each on a thread of its own.
            await asyncio.gather(*(db.run(nap) for _ in range(5)))
            assert db.engine.pool.checkedin() == 5
            flaky_postgres.set_mode("freeze")
            # The frozen server never answers: every call ends by its deadline.
            calls = [db.run(list_matches, db) for _ in range(DB_THREADS)]
            results = await asyncio.wait_for(
                asyncio.gather(*calls, return_exceptions=True), 60)
            assert all(isinstance(r, DatabaseUnavailable) for r in results), results
            # The stuck connections were cut: no thread holds one any more.
            await until(lambda: db.engine.pool.checkedout() == 0, timeout=5)
            flaky_postgres.set_mode("forward")
            deadline = time.monotonic() + 10  # the silent spell may still be remembered
            while True:
                try:
                    await db.run(list_matches, db)
                    break
                except DatabaseUnavailable:
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.2)
            # Every database thread is free again: as many calls at once all succeed.
            again = await asyncio.gather(*(db.run(list_matches, db) for _ in range(DB_THREADS)))
            assert again == [[]] * DB_THREADS
        finally:
            db.dispose()

    run_async(scenario())


def test_a_match_ending_as_the_server_stops_reaches_the_outbox(tmp_path):
    """The room's save task starts, the writer is stopped at once (a shutdown): the match is on
    disk for the next start."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(url)

    async def scenario() -> None:
        db = Database(url)
        writer = writer_of(db, tmp_path)
        writer.database_down = True  # as during an outage: no first attempt
        await writer.start()
        saving = asyncio.get_running_loop().create_task(writer.save(record()))
        await writer.stop()
        saving.cancel()
        db.dispose()

    run_async(scenario())
    assert len(Outbox(tmp_path / "outbox").keys()) == 1


def test_the_outbox_writes_as_soon_as_the_journal_sees_the_database_back(tmp_path):
    """Issue 25, item 10: the matches waiting in the outbox are written when the rooms' journal
    sees the database answer again, not at the end of the writer's backoff (here a minute; up
    to ``OUTBOX_RETRY_MAX_SECONDS`` on a site), as the app wires them (``journal.on_back``)."""
    from app.db.rooms import SaveRoom
    from app.realtime.durable.journal import Journal

    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(url)
    # check_same_thread=False: the scenario runs in a loop of its own thread (tests.live.run_async)
    lock = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None, check_same_thread=False)
    lock.execute("BEGIN EXCLUSIVE")
    states: list[str] = []

    async def scenario() -> int:
        db = Database(url, timeout=0.3)
        writer = MatchWriter(db, Outbox(tmp_path / "outbox"), first_delay=60, max_delay=60)
        journal = Journal(db, retry_max=0.2)
        journal.on_back = writer.retry_now
        await writer.start()
        journal.start()
        try:
            saving = asyncio.create_task(writer.save(record(), states.append))
            await until(lambda: states == ["retrying"])
            journal.write(SaveRoom(code="ABCD", game="panika", options={}, host=1, public=True,
                                   status="finished", match_number=1, next_member=2,
                                   banned={"nonces": [], "names": []}, members=()))
            await until(lambda: journal.failing_since is not None)
            lock.execute("COMMIT")
            return await asyncio.wait_for(saving, 10)
        finally:
            await journal.stop()
            await writer.stop()
            db.dispose()

    try:
        match_id = run_async(scenario())
    finally:
        lock.close()
    assert isinstance(match_id, int) and stored(url) == (1, 2)


def test_the_app_wires_the_journal_to_the_outbox(tmp_path):
    """Issue 25, item 10: with durable rooms the journal tells the match writer when the
    database is back."""
    from tests.live import LiveServer

    with LiveServer(tmp_path / "var") as live:
        assert live.registry.journal.on_back == live.app.state.writer.retry_now
