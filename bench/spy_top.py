"""Summarise a py-spy ``--format raw`` (collapsed stacks) file: the functions with the most
samples, by self time and by inclusive time, then the samples by part of the server (the first
part, in the order of ``PARTS``, whose marker a stack holds).

    .venv/bin/python bench/spy_top.py profile.txt [N]
"""

from __future__ import annotations

import sys
from collections import Counter

PARTS = [
    ("frames out (uvicorn WebSocket send)", ("Connection._write", "WebSocket.send",
                                             "websockets_sansio_impl.py:506")),
    ("database thread (journal, saves)", ("app/db/", "sqlalchemy", "concurrent/futures")),
    ("garbage collector", ("collector.py", "GcLog")),
    ("rules (MatchRun.play)", ("MatchRun.play",)),
    ("views, legal actions, encoding", ("broadcast_state", "_state_head", "spliced")),
    ("journal on the loop (records, frame gate)", ("journal.py",)),
    ("rest of the room (timers, log, metrics)", ("app/realtime/actor.py", "app/realtime/room/")),
    ("frames in (uvicorn, parsing, endpoint)", ("data_received", "app/realtime/endpoint.py",
                                                "app/realtime/room/protocol.py", "websockets_sansio")),
]


def main() -> None:
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    self_c: Counter[str] = Counter()
    parts: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    total = 0
    for line in open(path):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack:
            continue
        k = int(count)
        total += k
        frames = stack.split(";")
        self_c[frames[-1]] += k
        parts[next((name for name, marks in PARTS if any(m in stack for m in marks)),
                   "other (event loop, asyncio, uvicorn)")] += k
        for f in set(frames):
            incl[f] += k
    print(f"{total} samples")
    print("-- self --")
    for f, k in self_c.most_common(n):
        print(f"{100 * k / total:5.1f}%  {f}")
    print("-- inclusive --")
    for f, k in incl.most_common(n):
        print(f"{100 * k / total:5.1f}%  {f}")
    print("-- by part --")
    for name, k in parts.most_common():
        print(f"{100 * k / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
