"""The journal's transaction, alone: what writing a batch costs, and where it goes.

    .venv/bin/python bench/journal_write.py [--url URL] [--moves 4] [--transactions 1500]
    .venv/bin/python bench/journal_write.py --rooms 50 --transactions 40    # a burst of joins
    .venv/bin/python bench/journal_write.py --match-moves 120 --transactions 300   # matches

Writes ``--transactions`` batches of ``--moves`` moves each into one room's running match, one
transaction a batch (with ``--rooms N``: each batch writes N rooms whole, four members each,
and starts their matches: what a burst of joins or a restart's new matches queue; with
``--match-moves N`` each is a finished match of N moves and four players, ``save_match``, which
on SQLite runs on the journal's thread), on a fresh
database (``--url``: a SQLite file in a temporary folder by
default; a PostgreSQL URL is migrated and used as given: point it at a scratch database; the
room ``BNCH`` it writes starts a new match, so its earlier moves go). Two ways, alternated over
``--rounds`` rounds:

- ``core``: SQLAlchemy Core's connection, transaction and statements (``app.db.rooms._write_core``,
  ``app.db.matches._insert_match``: the journal's way before decision 0036, and still the way
  for a database the site does not run on);
- ``raw``: ``app.db.rooms.write_ops``, the journal's own write: the driver's statements
  (app/db/driver_sql.py) and the commit on the driver's connection taken from the same pool
  (``_write_driver``), without SQLAlchemy's connection, transaction and statement objects.

Printed per way and round: wall time and this process's CPU time per transaction (the database
server's own CPU is not counted: on PostgreSQL it is another process). The journal writes what
the rooms queued in one turn of the event loop, and while a write is in flight gathers the next
batch, so ``--moves`` is the batch a server writes: one when quiet, more the busier it is
(docs/performance.md, "The cost of durable rooms").
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.db.database import Database, migrate  # noqa: E402
from app.db.matches import MatchRecord, PlayerResult, _insert_match, save_match  # noqa: E402
from app.db.rooms import (  # noqa: E402
    AddMove,
    MemberRecord,
    RoomOp,
    SaveRoom,
    StartMatch,
    _write_core,
    write_ops,
)
from app.engine import LogEntry, Move, MoveLog  # noqa: E402

CODE = "BNCH"


def _setup(db: Database) -> None:
    now = datetime.now(UTC)
    write_ops(db, [
        SaveRoom(code=CODE, game="panika", options={}, host=1, public=False, status="playing",
                 match_number=1, next_member=3, banned={"nonces": [], "names": []},
                 members=tuple(MemberRecord(i, f"P{i}", i - 1, True, f"n{i}") for i in (1, 2))),
        StartMatch(code=CODE, match_number=1, seed="00" * 32, players=2, options={},
                   started_at=now),
    ])


class Batches:
    """Consecutive batches of moves for the one room (every move a new ``seq``)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.seq = 0

    def next(self) -> list[AddMove]:
        now = datetime.now(UTC)
        batch = [AddMove(CODE, self.seq + i + 1,
                         LogEntry((self.seq + i) % 2, '{"type":"tap"}', 10 * (self.seq + i), 5), now)
                 for i in range(self.size)]
        self.seq += self.size
        return batch


class RoomBursts:
    """Consecutive batches of ``size`` rooms, each written whole and starting a match."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.number = 0

    def next(self) -> list[RoomOp]:
        now = datetime.now(UTC)
        batch: list[RoomOp] = []
        for _ in range(self.size):
            self.number += 1
            code = f"R{self.number % 5000:04d}"
            batch.append(SaveRoom(
                code=code, game="panika", options={}, host=1, public=False, status="playing",
                match_number=1, next_member=5, banned={"nonces": [], "names": []},
                members=tuple(MemberRecord(i, f"P{i}", i - 1, True, f"n{i}") for i in range(1, 5)),
                at=now))
            batch.append(StartMatch(code=code, match_number=1, seed="00" * 32, players=4,
                                    options={}, started_at=now))
        return batch


class FinishedMatches:
    """Consecutive finished matches of ``size`` moves (a one-element batch: one a transaction)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.number = 0
        self.log = MoveLog()
        """One log for every match (the room hands over its own, built as it played)."""
        for seq in range(size):
            self.log.append(Move(seq % 4, {"type": "tap", "n": seq}, 250 * seq, 20))

    def next(self) -> list[MatchRecord]:
        self.number += 1
        now = datetime.now(UTC)
        log = self.log
        return [MatchRecord(
            game="panika", room_code=CODE, options={"turn_seconds": 30}, seed="0f" * 32,
            seed_hash=f"{self.number:064x}", started_at=now, ended_at=now, summary="{seat:0} wins",
            players=[PlayerResult(seat, f"P{seat}", seat, seat + 1, seat == 0) for seat in range(4)],
            log=log)]


def write_core(db: Database, ops: Sequence[Any]) -> None:
    if ops and isinstance(ops[0], MatchRecord):
        _insert_match(db, ops[0])
    else:
        _write_core(db, list(ops), None)


def write_raw(db: Database, ops: Sequence[Any]) -> None:
    if ops and isinstance(ops[0], MatchRecord):
        save_match(db, record=ops[0])
    else:
        write_ops(db, list(ops))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--url", default="", help="database URL (default: SQLite, a temporary file)")
    ap.add_argument("--moves", type=int, default=4, help="moves per transaction")
    ap.add_argument("--rooms", type=int, default=0,
                    help="rooms written whole (and their matches started) a transaction, "
                         "instead of moves")
    ap.add_argument("--match-moves", type=int, default=0,
                    help="a finished match of this many moves a transaction, instead of moves")
    ap.add_argument("--transactions", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    url = args.url or f"sqlite:///{tempfile.mkdtemp()}/journal.db"
    migrate(url)
    db = Database(url)
    try:
        _setup(db)
        batches: Batches | RoomBursts | FinishedMatches = Batches(args.moves)
        what, per, unit = f"moves/transaction={args.moves}", args.moves, "move"
        if args.rooms:
            batches = RoomBursts(args.rooms)
            what, per, unit = f"rooms/transaction={args.rooms}", args.rooms, "room"
        elif args.match_moves:
            batches = FinishedMatches(args.match_moves)
            what, per, unit = f"match of {args.match_moves} moves", 1, "match"
        for round_number in range(1, args.rounds + 1):
            for name, write in (("core", write_core), ("raw", write_raw)):
                for _ in range(100):  # warm-up
                    write(db, batches.next())
                wall, cpu = time.perf_counter(), time.process_time()
                for _ in range(args.transactions):
                    write(db, batches.next())
                wall = time.perf_counter() - wall
                cpu = time.process_time() - cpu
                print(f"{db.engine.dialect.name} round={round_number} {name:4} "
                      f"{what} "
                      f"wall={1e6 * wall / args.transactions:.0f}us "
                      f"cpu={1e6 * cpu / args.transactions:.0f}us "
                      f"cpu_per_{unit}="
                      f"{1e6 * cpu / args.transactions / per:.0f}us")
    finally:
        db.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
