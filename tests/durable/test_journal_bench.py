"""bench/journal_write.py compares like with like, and the journal's two ways of writing moves
store the same rows: the driver's statements (``write_ops`` → ``_write_driver``) and
SQLAlchemy Core's (``_write_core``), on SQLite and on PostgreSQL."""

from __future__ import annotations

import orjson
import pytest

from app.db.database import Database, migrate
from app.db.rooms import load_rooms
from tests.bench_scripts import load_bench_script


@pytest.fixture(scope="module")
def bench():
    return load_bench_script("journal_write")


def test_the_raw_path_writes_the_rows_the_journal_writes(bench, database_url):
    migrate(database_url)
    db = Database(database_url, timeout=2.0)
    try:
        bench._setup(db)
        batches = bench.Batches(3)
        first, second = batches.next(), batches.next()
        bench.write_core(db, first)
        bench.write_raw(db, second)
        (room,) = load_rooms(db, bench.CODE)
        assert room.match is not None
        stored = [(m.seat, m.action, m.at_ms, m.rtt_ms) for m in room.match.moves]
        assert stored == [(op.move.seat, orjson.loads(op.move.action), op.move.at_ms,
                           op.move.rtt_ms)
                          for op in first + second]
    finally:
        db.dispose()
