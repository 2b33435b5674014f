"""Run one benchmark server in this process: the real app or the bare broadcast app.

    .venv/bin/python bench/serve.py --app real --port 8765
    .venv/bin/python bench/serve.py --app bare --port 8765

Both are served with the same uvicorn settings as the real server (``app/server.py``):
permessage-deflate off, 64 KB frames, uvloop + httptools + websockets-sansio (uvicorn's "auto").

For ``real`` the environment configures the app (``DATABASE_URL``, ``SECRET_KEY``, ``VAR_DIR``,
``WS_MESSAGES_PER_SECOND``, ``PING_INTERVAL_SECONDS``, ``MAX_ROOMS``; see app/config.py). The one
change made here, for the benchmark only: the room-creation limit (30 per minute per client IP,
``app.api.rooms._create_limit``) is lifted, since every bot comes from 127.0.0.1.

``BENCH_APP_ROOT=/some/copy`` serves the ``app`` package of another tree (to measure a change
made in a scratch copy, never in this repository).

``--census FILE`` (diagnostics): on SIGUSR1, the objects the collector tracks, by type (the
heap a full collection walks; the start-up objects frozen for good are not in it), and how long
one full collection of them takes, written to FILE.

``--gc-log FILE`` writes, at exit, how long the collector ran per generation (gc.callbacks): the
benchmark reads it to tell a GC pause from other stalls; with it, the lines the app's collector
schedule logged (thaw probes' answers, thaw passes). ``--gc-threshold a,b,c`` sets
``gc.set_threshold`` after the app's start-up, to try a tuning without touching app/.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import os
import resource
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(os.environ.get("BENCH_APP_ROOT") or Path(__file__).resolve().parent.parent)
"""The tree whose ``app`` package is served: this repository, or a scratch copy to try a change."""
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(Path(__file__).resolve().parent))


def raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class GcLog:
    """Times every collection, per generation."""

    def __init__(self) -> None:
        self.started = 0.0
        self.stats = {g: {"count": 0, "total_ms": 0.0, "max_ms": 0.0, "max_collected": 0}
                      for g in (0, 1, 2)}
        self.started_cpu = 0.0
        self.timeline: list[tuple[float, int, float, float, int, int]] = []
        """(wall-clock end, generation, ms, CPU ms of this thread, objects freed, objects walked
        by a full pass) of every collection, to sum them over a window."""
        self.walked = 0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            if info["generation"] == 2:  # what the full pass is about to walk (not timed)
                self.walked = sum(len(gc.get_objects(g)) for g in (0, 1, 2))
            self.started = time.perf_counter()
            self.started_cpu = time.thread_time()
            return
        ms = (time.perf_counter() - self.started) * 1000
        cpu_ms = (time.thread_time() - self.started_cpu) * 1000
        s = self.stats[info["generation"]]
        self.timeline.append((time.time(), info["generation"], ms, cpu_ms,
                              info.get("collected", 0),
                              self.walked if info["generation"] == 2 else 0))
        s["count"] += 1
        s["total_ms"] += ms
        if ms > s["max_ms"]:
            s["max_ms"] = ms
            s["max_collected"] = info.get("collected", 0)
        if info["generation"] == 2:
            s["frozen"] = gc.get_freeze_count()


class CollectorLines(logging.Handler):
    """What the app's collector schedule logged (its thaw probes' answers, its thaw and full
    passes), each with its wall-clock time, for the benchmark to report."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[tuple[float, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.created, record.getMessage()))


def install_census(path: Path) -> None:
    """On SIGUSR1: the objects the collector tracks now, by type, then one timed full collection
    (what the app's full pass walks: docs/performance.md, "What the full collection walks")."""
    import collections
    import signal

    def census(*_: object) -> None:
        tracked = gc.get_objects()
        by_type = collections.Counter(type(o).__name__ for o in tracked)
        count = len(tracked)
        del tracked
        started = time.perf_counter()
        gc.collect(2)
        took = (time.perf_counter() - started) * 1000
        lines = [f"tracked {count}  frozen since start-up {gc.get_freeze_count()}  "
                 f"full collection {took:.0f} ms"]
        lines += [f"{n:10d}  {n / count:6.1%}  {name}" for name, n in by_type.most_common(40)]
        path.write_text("\n".join(lines) + "\n")

    signal.signal(signal.SIGUSR1, census)


class StallSampler:
    """Diagnostics (``BENCH_STALLS=FILE``): what the event loop was running while it was late.
    A callback on the loop stamps the time every 2 ms; a thread looks every millisecond and,
    while the stamp is over ``late`` seconds old, samples the loop thread's Python stack. At exit
    the stacks are written in py-spy's collapsed form (``bench/spy_top.py FILE`` reads them),
    with the stalls' count and lengths on the first line."""

    def __init__(self, path: Path, late: float = 0.008) -> None:
        self.path = path
        self.late = late
        self.stamp = 0.0
        self.stacks: Counter[str] = Counter()
        self.stalls: list[tuple[float, float]] = []
        """(when it began, seconds after the start; how long it lasted)"""
        self.thread_id = threading.get_ident()
        self.started = time.monotonic()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        def beat() -> None:
            self.stamp = time.monotonic()
            loop.call_later(0.002, beat)

        loop.call_soon(beat)
        sys.setswitchinterval(0.001)  # the sampler gets in within a millisecond of Python code
        threading.Thread(target=self._watch, daemon=True, name="stall-sampler").start()

    def _watch(self) -> None:
        stalled_since = 0.0
        while True:
            time.sleep(0.001)
            now = time.monotonic()
            if not self.stamp or now - self.stamp < self.late:
                if stalled_since:
                    self.stalls.append((stalled_since - self.started, now - stalled_since))
                    stalled_since = 0.0
                continue
            stalled_since = stalled_since or self.stamp
            frame = sys._current_frames().get(self.thread_id)
            names = []
            while frame is not None:
                code = frame.f_code
                names.append(f"{code.co_name} ({code.co_filename}:{frame.f_lineno})")
                frame = frame.f_back
            self.stacks[";".join(reversed(names))] += 1

    def write(self) -> None:
        lines = [f"# {len(self.stalls)} stalls over {self.late * 1000:.0f} ms (at s: ms): "
                 + ", ".join(f"{at:.1f}: {length * 1000:.0f}" for at, length in self.stalls)]
        lines += [f"{stack} {n}" for stack, n in self.stacks.most_common()]
        self.path.write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--app", choices=("real", "bare"), default="real")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--gc-log", default="")
    ap.add_argument("--gc-threshold", default="", help="e.g. 50000,50,100")
    ap.add_argument("--tracemalloc", default="",
                    help="diagnostics: trace allocations; on SIGUSR1 write the top sites here")
    ap.add_argument("--census", default="",
                    help="diagnostics: on SIGUSR1 write the tracked objects by type here")
    args = ap.parse_args()
    raise_nofile()
    if args.census:
        install_census(Path(args.census))
    if args.tracemalloc:
        import signal
        import tracemalloc

        tracemalloc.start(1)

        def dump(*_: object) -> None:
            snap = tracemalloc.take_snapshot()
            lines = [f"total {sum(s.size for s in snap.statistics('filename')) / 1e6:.1f} MB"]
            for kind in ("filename", "lineno"):
                lines.append(f"-- by {kind} --")
                lines += [str(st) for st in snap.statistics(kind)[:40]]
            Path(args.tracemalloc).write_text("\n".join(lines) + "\n")

        signal.signal(signal.SIGUSR1, dump)

    import uvicorn

    from app.config import Settings
    from app.http_protocol import http_protocol

    if args.app == "real":
        from limits import RateLimitItemPerMinute

        import app.api.rooms as rooms_api

        rooms_api._create_limit = RateLimitItemPerMinute(1_000_000)
        target = "app.main:create_app"
    else:
        target = "bare_broadcast:create_bare_app"

    gclog = GcLog()
    probes = CollectorLines()
    if args.gc_log:
        gc.callbacks.append(gclog)
        collector_log = logging.getLogger("app.collector")
        collector_log.addHandler(probes)
        collector_log.setLevel(logging.INFO)
    if args.gc_threshold:
        # Applied once the app has started (its lifespan calls gc.freeze()); see bench/README.md.
        thresholds = tuple(int(x) for x in args.gc_threshold.split(","))
        gc.set_threshold(*thresholds)

    stalls = StallSampler(Path(os.environ["BENCH_STALLS"])) if os.environ.get("BENCH_STALLS") \
        else None
    if stalls is not None:
        import uvloop

        make_loop = uvloop.new_event_loop

        def new_event_loop() -> asyncio.AbstractEventLoop:
            loop = make_loop()
            stalls.attach(loop)
            return loop

        uvloop.new_event_loop = new_event_loop  # type: ignore[assignment]

    timing = None
    if os.environ.get("BENCH_JOURNAL") and args.app == "real":
        from journal_timing import JournalTimer  # bench/journal_timing.py

        timing = JournalTimer(Path(os.environ["BENCH_JOURNAL"]))
        timing.install()

    uvicorn.run(
        target,
        factory=True,
        host="127.0.0.1",
        port=args.port,
        ws_per_message_deflate=False,
        ws_max_size=65536,
        log_level="warning",
        http=http_protocol(Settings()),  # the site's (app/server.py), for the bare server too
    )
    if stalls is not None:
        stalls.write()
    if timing is not None:
        timing.write()
    if args.gc_log:
        Path(args.gc_log).write_text(json.dumps({"gc": gclog.stats, "timeline": gclog.timeline, "pid": os.getpid(),
                                                 "threshold": gc.get_threshold(),
                                                 "collector_lines": probes.lines}))


if __name__ == "__main__":
    main()
