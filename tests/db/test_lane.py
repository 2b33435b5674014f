"""The journal's writer thread (app/db/lane.py, ``Database.write``): calls run one at a time in
the order handed over, each answered on the loop; an abandoned call is never run late; a call
stuck on a silent server is cut at its deadline and the calls behind it go on."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from sqlalchemy import text

from app.db.database import Database, DatabaseUnavailable
from app.db.lane import CallLane
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


def test_a_call_abandoned_before_it_started_is_never_run():
    """The caller gave up (its deadline) while an earlier call held the thread: when the thread
    comes to it, it is skipped, not run late (a late journal batch would write old rows)."""
    lane = CallLane("test-lane")
    release = threading.Event()
    ran: list[str] = []

    async def scenario() -> None:
        first = lane.submit(lambda: (release.wait(10), ran.append("first")), ())
        second = lane.submit(ran.append, ("second",))
        second.cancel()
        release.set()
        await first
        await lane.submit(ran.append, ("third",))

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
