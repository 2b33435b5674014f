"""Keeping garbage-collection pauses short with thousands of open sockets.

CPython's cyclic collector walks every object of the generations it collects. A server with
4,000 connections holds some 700,000 long-lived objects, so a full collection paused it for about
half a second (docs/performance.md). Worse, in steady play the youngest generation is not what
its threshold suggests: each move frees old objects (which lowers the allocation count) while the
new ones that replace them (a room's latest events, a match's new state) pile up in generation 0,
so a "young" collection could walk 100,000 objects, 100 ms and more.

So the server runs the collector itself, on a schedule, with automatic collection off:

- at start-up (the app built, its modules, routes and settings loaded) one full collection, then
  ``gc.freeze()``: what is alive then lives for the whole process and no pass walks it again,
  the full one included (about 110,000 objects: docs/performance.md, "Collector");
- every ``young_seconds`` it collects generations 0 and 1 (everything allocated since the last
  pass: a few thousand objects); the survivors move to generation 2, which no young pass walks;
- every ``full_seconds`` it collects generation 2: the rooms, connections and matches alive now,
  freeing the reference cycles among them that died. That pass is the long one (it walks every
  live object made since start-up), but it comes once in ``full_seconds`` and never walks the
  start-up objects.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger(__name__)


async def run_collector_schedule(young_seconds: float, full_seconds: float) -> None:
    """Collect the young generations every ``young_seconds`` and everything every
    ``full_seconds``; ``young_seconds <= 0`` leaves CPython's automatic collector alone."""
    if young_seconds <= 0:
        return
    gc.collect()
    gc.freeze()
    gc.disable()
    last_full = time.monotonic()
    try:
        while True:
            await asyncio.sleep(young_seconds)
            if full_seconds > 0 and time.monotonic() - last_full >= full_seconds:
                started = time.perf_counter()
                freed = gc.collect(2)
                log.info("full collection: %d objects freed in %.0f ms (%d frozen since "
                         "start-up, not walked)", freed, (time.perf_counter() - started) * 1000,
                         gc.get_freeze_count())
                last_full = time.monotonic()
            else:
                gc.collect(1)
    finally:
        gc.unfreeze()
        gc.enable()
