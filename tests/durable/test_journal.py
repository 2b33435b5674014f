"""The journal of open rooms (app/realtime/durable/journal.py; docs/architecture.md, "Durable rooms"):
group commit, order, the frame gate, and a database that goes away and comes back, on SQLite and
PostgreSQL."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import UTC, datetime

import pytest

from app.db.database import Database, migrate
from app.db.rooms import AddMove, DeleteRoom, MemberRecord, SaveRoom, StartMatch, load_rooms
from app.engine import LogEntry, Move
from app.realtime.transport.connection import Connection
from app.realtime.durable.journal import FrameGate, Journal
from tests.clock import ManualClock, until
from tests.live import run_async

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def _room(code: str = "ABCD", status: str = "playing", members: int = 2) -> SaveRoom:
    return SaveRoom(code=code, game="panika", options={"x": 1}, host=1, public=False,
                    status=status, match_number=1, next_member=members + 1,
                    banned={"nonces": [], "names": []},
                    members=tuple(MemberRecord(i, f"P{i}", i - 1, True, f"n{i}")
                                  for i in range(1, members + 1)))


def _start(code: str = "ABCD") -> StartMatch:
    return StartMatch(code=code, match_number=1, seed="00" * 32, players=2, options={"x": 1},
                      started_at=NOW)


def _move(seq: int, code: str = "ABCD") -> AddMove:
    return AddMove(code, seq, LogEntry.of(Move(seq % 2, {"type": "tap", "n": seq}, seq * 10, 5)),
                   NOW)


def _seqs(match) -> list[int]:  # type: ignore[no-untyped-def]
    """The numbers of a stored match's moves (``_move`` writes its seq into the action)."""
    return [m.action["n"] for m in match.moves]


class Recorder(Connection):
    """A connection that keeps what the gate lets out."""

    def __init__(self) -> None:
        super().__init__()
        self.out: list[str] = []

    def _write(self, message):  # type: ignore[no-untyped-def]
        text = message.get("text")  # a control frame arrives encoded, as the socket takes it
        text = text.decode() if isinstance(text, bytes) else text
        self.out.append(text or f"close {message['code']}")


def _db(url: str) -> Database:
    migrate(url)
    return Database(url, timeout=2.0)


async def _settled(journal: Journal) -> None:
    assert await journal.flush(10.0)


class WatchedDatabase(Database):
    """A database that notes when each call of the journal starts, and how many failed."""

    def __init__(self, url: str, timeout: float = 2.0) -> None:
        super().__init__(url, timeout=timeout)
        self.starts: list[float] = []
        self.failures = 0

    async def run(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        return await self._watched(super().run(fn, *args, **kwargs))

    async def write(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        return await self._watched(super().write(fn, *args, **kwargs))

    async def _watched(self, call):  # type: ignore[no-untyped-def]
        self.starts.append(time.monotonic())
        try:
            return await call
        except Exception:
            self.failures += 1
            raise


def test_group_commit_writes_many_moves_in_few_transactions_in_order(database_url):
    db = _db(database_url)

    async def scenario() -> None:
        journal = Journal(db)
        journal.start()
        journal.write(_room())
        journal.write(_start())
        for seq in range(1, 301):
            journal.write(_move(seq))
        await _settled(journal)
        assert journal.batches == 1  # everything queued in one turn of the loop: one transaction
        await journal.stop()

    run_async(scenario())
    (room,) = load_rooms(db)
    assert room.match is not None
    assert _seqs(room.match) == list(range(1, 301))
    assert [m.at_ms for m in room.match.moves] == [seq * 10 for seq in range(1, 301)]
    assert [m.id for m in room.members] == [1, 2]
    db.dispose()


def test_operations_apply_in_order_a_new_match_replaces_the_old_and_delete_removes(database_url):
    db = _db(database_url)

    async def scenario() -> None:
        journal = Journal(db)
        journal.start()
        journal.write(_room())
        journal.write(_start())
        for seq in (1, 2, 3):
            journal.write(_move(seq))
        await _settled(journal)
        journal.write(_room(members=3))
        journal.write(StartMatch("ABCD", 2, "11" * 32, 3, {}, NOW))
        journal.write(_move(1))
        journal.write(_room("WXYZ", status="waiting"))
        await _settled(journal)
        rooms = {r.code: r for r in load_rooms(db)}
        assert rooms["ABCD"].match is not None and rooms["ABCD"].match.match_number == 2
        assert _seqs(rooms["ABCD"].match) == [1]
        assert len(rooms["ABCD"].members) == 3 and rooms["WXYZ"].match is None
        journal.write(DeleteRoom("ABCD"))
        await _settled(journal)
        assert [r.code for r in load_rooms(db)] == ["WXYZ"]
        await journal.stop()

    run_async(scenario())
    db.dispose()


def test_a_batch_written_twice_stores_each_move_once(database_url):
    """A commit whose answer was lost is retried whole: every operation is idempotent."""
    from app.db.rooms import write_ops

    db = _db(database_url)
    ops = [_room(), _start(), _move(1), _move(2)]
    write_ops(db, ops)
    write_ops(db, ops + [_move(3)])
    (room,) = load_rooms(db)
    assert room.match is not None and _seqs(room.match) == [1, 2, 3]
    db.dispose()


def test_moves_read_back_exactly_as_they_were_written(database_url):
    """Moves go to the driver as JSON text and a formatted time (app/db/rooms.py); read back
    through the column types they are the same values: a system move (no seat), text outside
    ASCII, nested values, and a time given in another zone is the same instant."""
    from datetime import timedelta, timezone

    from app.db.rooms import write_ops

    db = _db(database_url)
    berlin = timezone(timedelta(hours=1))
    logged = [Move(None, {"type": "timeout"}, 30_000, 0),
              Move(1, {"type": "say", "text": "Grüße, ☃ \"quoted\"", "cards": [3, 7],
                       "pick": {"a": None, "b": 1.5}}, 31_250, 48)]
    moves = [
        AddMove("ABCD", 1, LogEntry.of(logged[0]), NOW),
        AddMove("ABCD", 2, LogEntry.of(logged[1]),
                datetime(2026, 12, 1, 1, 0, 1, 250_000, tzinfo=berlin)),
    ]
    write_ops(db, [_room(), _start(), *moves])
    (room,) = load_rooms(db)
    assert room.match is not None
    assert list(room.match.moves) == logged
    assert room.match.last_move_at == datetime(2026, 12, 1, 0, 0, 1, 250_000, tzinfo=UTC)
    db.dispose()


class HeldDatabase:
    """The journal's database, answering each write only when the test lets it: what each
    transaction was given, and a write kept in flight for as long as the test likes."""

    deadline = 5.0

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.answer = asyncio.Event()

    async def write(self, fn, db, ops, fences=None):  # type: ignore[no-untyped-def]
        self.batches.append([op.seq for op in ops])
        await self.answer.wait()
        return set()


async def _turns(n: int) -> None:
    """Let the event loop go round ``n`` times (no time passes)."""
    for _ in range(n):
        await asyncio.sleep(0)


def test_the_journal_batches_by_the_loops_turn_and_gathers_while_a_write_is_in_flight():
    """No time window (docs/decisions/0032-journal-batched-by-the-loop.md): what the rooms
    queue in one turn of the event loop goes in one transaction, at once; what comes while it
    is written goes in the next, whatever the clock says."""
    db = HeldDatabase()

    async def scenario() -> None:
        journal = Journal(db)  # type: ignore[arg-type]
        journal.start()
        await _turns(2)
        for seq in (1, 2, 3):  # one turn of the loop: three rooms' moves
            journal.write(_move(seq))
        await _turns(2)
        assert db.batches == [[1, 2, 3]]  # written at once, not after a window
        journal.write(_move(4))
        await _turns(3)
        journal.write(_move(5))
        journal.write(_move(6))
        await _turns(3)
        assert db.batches == [[1, 2, 3]] and journal.durable == 0  # the first is in flight
        db.answer.set()
        await _turns(5)
        assert db.batches == [[1, 2, 3], [4, 5, 6]] and journal.durable == 6
        journal.write(_move(7))
        await _turns(3)
        assert db.batches[-1] == [7] and journal.durable == 7
        await journal.stop()

    run_async(scenario())


def test_the_gate_holds_frames_until_their_moves_are_durable_in_order():
    gate = FrameGate()
    conn = Recorder()
    conn.gate = gate
    saving: list[bool] = []
    gate.on_saving = saving.append
    # Nothing recorded: frames go out at once.
    gate.begin()
    conn.send_text("a")
    gate.end()
    assert conn.out == ["a"]
    # A move recorded (ticket 1, not durable): its frames wait.
    gate.begin()
    conn.send_text("b")
    gate.ticket = 1
    gate.end()
    conn.send_text("c")  # outside an input: behind "b"
    conn.send_control("ping")  # pings pass at once
    gate.begin()
    conn.send_text("d")
    gate.ticket = 2
    gate.end()
    assert conn.out == ["a", "ping"] and gate.unsaved == 2
    gate.release(1)
    assert conn.out == ["a", "ping", "b", "c"]
    conn.close(1012)  # the close waits behind "d" too
    assert conn.out == ["a", "ping", "b", "c"]
    gate.release(2)
    assert conn.out == ["a", "ping", "b", "c", "d", "close 1012"]
    assert gate.held == 0 and gate.unsaved == 0 and saving == []


def test_the_saving_threshold_counts_only_the_rooms_own_unsaved_operations():
    """Issue 25, item 12 (docs/protocol.md, "Saving"): tickets are numbered across every room of
    the process, so a room's backlog is its own operations not yet written, not the distance
    from the last ticket it heard was durable. A quiet room beside a busy one is not refused
    with ``saving``; the busy one, past 200 of its own, is; what is written no longer counts."""
    from app.realtime.durable.journal import MAX_UNSAVED

    journal = Journal(None)  # type: ignore[arg-type]  # never started: nothing is written
    quiet, busy = FrameGate(journal), FrameGate(journal)
    quiet.ticket = journal.write(_room("QUIE"), quiet)
    for seq in range(1, MAX_UNSAVED + 2):
        busy.ticket = journal.write(_move(seq, "BUSY"), busy)
    quiet.ticket = journal.write(_move(1, "QUIE"), quiet)
    assert quiet.unsaved == 2 and not quiet.full
    assert busy.unsaved == MAX_UNSAVED + 1 and busy.full
    # The journal has the first 150 operations: the busy room's first 149 are written.
    busy.release(150)
    quiet.release(150)
    assert busy.unsaved == MAX_UNSAVED + 1 - 149 and not busy.full
    assert quiet.unsaved == 1


def test_the_journal_releases_gates_and_never_blocks_the_caller(database_url):
    db = _db(database_url)

    async def scenario() -> None:
        journal = Journal(db)
        journal.start()
        gate = FrameGate()
        conn = Recorder()
        conn.gate = gate
        gate.begin()
        gate.ticket = journal.write(_room(), gate)
        gate.ticket = journal.write(_start(), gate)
        gate.ticket = journal.write(_move(1), gate)
        conn.send_text("state 1")
        gate.end()
        assert conn.out == []  # the move is not in the database yet
        await _settled(journal)
        assert conn.out == ["state 1"]
        await journal.stop()

    run_async(scenario())
    db.dispose()


def _lock_sqlite(path: str) -> sqlite3.Connection:
    """Another writer holds the SQLite file: writes fail after the busy timeout."""
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    return holder


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_database_down_then_back_moves_wait_in_order_and_nothing_is_lost(backend, tmp_path,
                                                                       request):
    if backend == "sqlite":
        path = tmp_path / "down.sqlite3"
        url = f"sqlite:///{path}"
        migrate(url)
        db = WatchedDatabase(url, timeout=0.3)
        holder: list[sqlite3.Connection] = []

        def down() -> None:
            holder.append(_lock_sqlite(str(path)))

        def up() -> None:
            holder.pop().execute("ROLLBACK")
    else:
        proxy = request.getfixturevalue("flaky_postgres")
        db = WatchedDatabase(proxy.url, timeout=1.0)

        def down() -> None:
            proxy.set_mode("refuse")

        def up() -> None:
            proxy.set_mode("forward")

    async def scenario() -> None:
        clock = ManualClock()  # it stands still: the hold never runs out here
        journal = Journal(db, retry_max=0.2, clock=clock)
        journal.start()
        gate = FrameGate()
        conn = Recorder()
        conn.gate = gate
        saving: list[bool] = []
        gate.on_saving = saving.append
        gate.ticket = journal.write(_room(), gate)
        gate.ticket = journal.write(_start(), gate)
        await _settled(journal)
        down()
        for seq in range(1, 21):
            gate.begin()
            gate.ticket = journal.write(_move(seq), gate)
            conn.send_text(f"state {seq}")
            gate.end()
        await until(lambda: db.failures >= 2, what="a failed write and its retry")
        assert conn.out == [] and gate.held == 20 and journal.failing_since is not None
        assert saving == [True] and journal.pending == 20
        up()
        assert await journal.flush(15.0)
        assert conn.out == [f"state {seq}" for seq in range(1, 21)]
        assert saving == [True, False] and journal.failing_since is None
        await journal.stop()

    run_async(scenario())
    (room,) = load_rooms(db)
    assert room.match is not None and _seqs(room.match) == list(range(1, 21))
    db.dispose()


def _sqlite_outage(tmp_path):  # type: ignore[no-untyped-def]
    path = tmp_path / "outage.sqlite3"
    url = f"sqlite:///{path}"
    migrate(url)
    db = WatchedDatabase(url, timeout=0.2)
    holder: list[sqlite3.Connection] = []
    return db, (lambda: holder.append(_lock_sqlite(str(path)))), \
        (lambda: holder.pop().execute("ROLLBACK"))


def test_after_the_hold_the_rooms_play_on_and_the_moves_are_written_when_it_is_back(tmp_path):
    """A long outage: frames wait ``hold`` seconds, then go out; the moves stay queued, in
    order, and reach the database when it is back; then frames wait for it again."""
    db, down, up = _sqlite_outage(tmp_path)

    async def scenario() -> None:
        clock = ManualClock()
        journal = Journal(db, hold=0.8, retry_max=0.2, clock=clock)
        journal.start()
        gate = FrameGate(journal)
        conn = Recorder()
        conn.gate = gate
        saving: list[bool] = []
        gate.on_saving = saving.append
        from app.realtime.durable.journal import RoomRecorder

        recorder = RoomRecorder(journal, "ABCD")
        recorder.gate = gate
        journal.write(_room(), gate)
        gate.ticket = journal.write(_start(), gate)
        await _settled(journal)
        down()
        gate.begin()
        gate.ticket = journal.write(_move(1), gate)
        conn.send_text("state 1")
        gate.end()
        clock.advance(0.5)  # within the hold
        failed = db.failures
        await until(lambda: db.failures >= failed + 2, what="failed writes")
        assert conn.out == [] and saving == [True] and not journal.open
        clock.advance(0.5)  # past the hold: the journal opens
        await until(lambda: journal.open, what="the journal opening")
        assert conn.out == ["state 1"] and saving == [True, False]
        for seq in (2, 3):
            gate.begin()
            gate.ticket = journal.write(_move(seq), gate)
            conn.send_text(f"state {seq}")
            gate.end()
        assert conn.out == ["state 1", "state 2", "state 3"]  # no waiting while open
        assert journal.pending == 3
        up()
        assert await journal.flush(10.0)
        assert not journal.open
        gate.begin()
        gate.ticket = journal.write(_move(4), gate)
        conn.send_text("state 4")
        gate.end()
        assert conn.out[-1] == "state 3"  # waiting for the database again
        await _settled(journal)
        assert conn.out[-1] == "state 4"
        await journal.stop()

    run_async(scenario())
    (room,) = load_rooms(db)
    assert room.match is not None and _seqs(room.match) == [1, 2, 3, 4]
    db.dispose()


def test_an_overflowing_queue_is_dropped_and_each_room_written_again_whole(tmp_path):
    from app.engine import get_game
    from app.games import load_all
    from app.realtime.durable.journal import RoomRecorder
    from app.realtime.actor import Room
    from app.realtime.room.tokens import SeatTokens

    load_all()
    db, down, up = _sqlite_outage(tmp_path)

    async def scenario() -> None:
        async def save(*_args):  # type: ignore[no-untyped-def]
            return 1

        journal = Journal(db, hold=0.1, retry_max=0.2, max_queued=10)
        journal.start()
        room = Room(code="QRST", game=get_game("panika_counter"), public=True,
                    tokens=SeatTokens("k"), save_match=save)
        room.add_member("Ann")
        room.recorder = RoomRecorder(journal, room.state.code)
        room.recorder.record(room.state)
        await _settled(journal)
        down()
        room.state.match.play(0, {"type": "tap"}, now=time.monotonic())
        room.recorder.record(room.state)
        while journal.failing_since is None:  # the database is found away
            await asyncio.sleep(0.05)
        for i in range(1, 25):  # up and down by one: the counter never bursts
            room.state.match.play(0, {"type": "tap" if i % 2 == 0 else "back"}, now=time.monotonic())
            room.recorder.record(room.state)
        assert journal.pending <= 10  # dropped at 10; the room waits for the database
        up()
        assert await journal.flush(10.0)
        # the room's next input: written again whole
        room.state.match.play(0, {"type": "back"}, now=time.monotonic())
        room.recorder.record(room.state)
        assert await journal.flush(10.0)
        await journal.stop()
        room.state.timers.clear()

    run_async(scenario())
    (stored,) = load_rooms(db)
    assert stored.code == "QRST" and stored.match is not None
    assert len(stored.match.moves) == 26 and stored.match.moves[-1].action == {"type": "back"}
    assert [m.nickname for m in stored.members] == ["Ann"]
    db.dispose()
