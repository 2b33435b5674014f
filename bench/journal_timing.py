"""The journal's commit wait by part (docs/performance.md, "What the runs say"): a diagnostic of
the real server, on with ``BENCH_JOURNAL=FILE`` (``load.py --env BENCH_JOURNAL=FILE``), then

    .venv/bin/python bench/journal_timing.py FILE [--last 12]

prints, over the last ``--last`` seconds of the server's life (the window, when the server
stopped right after it; 0: all of it):

- ``transaction, writer thread``: ``write_ops`` on the journal's thread, wall and CPU time (its
  fsync included), and its operations;
- ``transaction, loop side``: from the batch handed to the thread to its answer on the loop
  (``Database.write``): the thread's own time plus the hand-offs and the waits for the core;
- ``move wait``: each operation from ``Journal.write`` to durable (``Journal._written``): what
  a move's frames wait for the journal.

``JournalTimer.install`` wraps those four functions of the app in the server's process
(bench/serve.py); the app itself has no hook. At exit one line a record: ``tx <end s> <loop ms>
<thread ms> <thread cpu ms> <operations>`` and ``op <durable s> <wait ms>``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any


class JournalTimer:
    """Records the journal's transactions and waits in the server's process (see the module)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.started = time.perf_counter()
        self.thread: deque[tuple[float, float, int]] = deque()
        """(wall, CPU, operations) of each ``write_ops`` on the writer thread, in order."""
        self.transactions: list[tuple[float, float, float, float, int]] = []
        self.queued: deque[tuple[int, float]] = deque()
        self.waits: list[tuple[float, float]] = []

    def install(self, patch: Any = setattr) -> None:
        """Wrap the journal's functions (``patch(owner, name, value)``: a test passes its own,
        which undoes itself)."""
        from app.db.database import Database
        from app.realtime.durable import journal

        timer = self
        write_ops = journal.write_ops

        def timed_write_ops(db: Any, ops: Any, fences: Any = None) -> Any:
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                return write_ops(db, ops, fences)
            finally:
                timer.thread.append((time.perf_counter() - wall, time.thread_time() - cpu,
                                     len(ops)))

        database_write = Database.write

        async def timed_write(db: Any, call: Any, *args: Any, deadline: Any = None) -> Any:
            if call is not timed_write_ops:
                return await database_write(db, call, *args, deadline=deadline)
            started = time.perf_counter()
            try:
                return await database_write(db, call, *args, deadline=deadline)
            finally:
                timer.answered(started)

        journal_write = journal.Journal.write

        def stamped_write(self: Any, op: Any, gate: Any = None) -> int:
            ticket = journal_write(self, op, gate)
            timer.queued.append((ticket, time.perf_counter()))
            return ticket

        written = journal.Journal._written

        def timed_written(self: Any, ticket: int, gates: Any) -> None:
            written(self, ticket, gates)
            timer.durable(self.durable)

        patch(journal, "write_ops", timed_write_ops)
        patch(Database, "write", timed_write)
        patch(journal.Journal, "write", stamped_write)
        patch(journal.Journal, "_written", timed_written)

    def answered(self, started: float) -> None:
        now = time.perf_counter()
        wall, cpu, ops = self.thread.popleft() if self.thread else (0.0, 0.0, 0)
        self.transactions.append((now - self.started, now - started, wall, cpu, ops))

    def durable(self, ticket: int) -> None:
        now = time.perf_counter()
        while self.queued and self.queued[0][0] <= ticket:
            _, queued = self.queued.popleft()
            self.waits.append((now - self.started, now - queued))

    def write(self) -> None:
        lines = [f"tx {at:.4f} {loop * 1e3:.3f} {wall * 1e3:.3f} {cpu * 1e3:.3f} {ops}"
                 for at, loop, wall, cpu, ops in self.transactions]
        lines += [f"op {at:.4f} {wait * 1e3:.3f}" for at, wait in self.waits]
        self.path.write_text("\n".join(lines) + "\n")


def quantiles(values: list[float]) -> str:
    """p50, p90, p99 and the largest of ``values``."""
    if not values:
        return "none"
    ordered = sorted(values)
    n = len(ordered)
    return (f"p50 {ordered[n // 2]:.2f}  p90 {ordered[int(n * 0.9)]:.2f}  "
            f"p99 {ordered[int(n * 0.99)]:.2f}  max {ordered[-1]:.2f}")


def summary(text: str, last: float) -> list[str]:
    """The report of a ``JournalTimer`` file's text (see the module)."""
    tx: list[list[float]] = []
    ops: list[list[float]] = []
    for line in text.splitlines():
        kind, *values = line.split()
        (tx if kind == "tx" else ops).append([float(v) for v in values])
    end = max([row[0] for row in tx + ops], default=0.0)
    since = end - last if last > 0 else float("-inf")
    tx = [row for row in tx if row[0] >= since]
    ops = [row for row in ops if row[0] >= since]
    operations = sum(row[4] for row in tx)
    return [
        f"{len(tx)} transactions, {operations:.0f} operations "
        f"({operations / len(tx) if tx else 0:.1f} each), {len(ops)} waits",
        f"transaction, writer thread, ms: {quantiles([row[2] for row in tx])}",
        f"  its CPU, ms:                   {quantiles([row[3] for row in tx])}",
        f"transaction, loop side, ms:     {quantiles([row[1] for row in tx])}",
        f"move wait, ms:                  {quantiles([row[1] for row in ops])}",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--last", type=float, default=12.0,
                    help="seconds before the last record (0: all)")
    args = ap.parse_args()
    print("\n".join(summary(Path(args.file).read_text(), args.last)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
