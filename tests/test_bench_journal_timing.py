"""bench/journal_timing.py (``BENCH_JOURNAL``): it times a real journal's transactions and each
operation's wait for durable, and sums them over the window."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.db.database import Database, migrate
from app.db.rooms import AddMove
from app.engine import LogEntry
from app.realtime.durable.journal import Journal
from tests.bench_scripts import load_bench_script
from tests.durable.test_journal import _room, _start
from tests.live import run_async


@pytest.fixture(scope="module")
def timing():
    return load_bench_script("journal_timing")


def test_a_journals_transactions_and_waits_are_recorded(timing, tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(url)
    db = Database(url)
    timer = timing.JournalTimer(tmp_path / "journal.txt")
    timer.install(monkeypatch.setattr)

    async def scenario() -> None:
        journal = Journal(db)
        journal.start()
        journal.write(_room())
        journal.write(_start())
        assert await journal.flush(5)
        for seq in range(1, 6):
            journal.write(AddMove("ABCD", seq, LogEntry(0, '{"type":"tap"}', seq, 1),
                                  datetime.now(UTC)))
            assert await journal.flush(5)
        await journal.stop()

    try:
        run_async(scenario())
    finally:
        db.dispose()
    timer.write()
    text = (tmp_path / "journal.txt").read_text()
    transactions = [line.split() for line in text.splitlines() if line.startswith("tx ")]
    waits = [line.split() for line in text.splitlines() if line.startswith("op ")]
    assert sum(int(row[5]) for row in transactions) == 7 and len(waits) == 7
    assert all(float(row[2]) >= float(row[3]) > 0 for row in transactions)  # loop >= thread
    report = timing.summary(text, 0)
    assert report[0].startswith(f"{len(transactions)} transactions, 7 operations")


def test_the_summary_keeps_the_last_seconds(timing):
    text = "\n".join(["tx 1.0 50.0 40.0 1.0 9", "op 1.0 60.0",
                      "tx 20.0 2.0 1.0 0.5 2", "tx 21.0 4.0 3.0 0.5 2",
                      "op 20.0 3.0", "op 21.0 5.0"])
    report = timing.summary(text, 5)
    assert report[0] == "2 transactions, 4 operations (2.0 each), 2 waits"
    assert "max 3.00" in report[1] and "max 4.00" in report[3] and "max 5.00" in report[4]
    assert timing.summary(text, 0)[0].startswith("3 transactions, 13 operations")
