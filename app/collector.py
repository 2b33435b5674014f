"""Keeping garbage-collection pauses short with thousands of open sockets.

CPython's cyclic collector walks every object of the generations it collects. A server with
4,000 connections holds some 600,000 long-lived objects, so a full collection of them paused it
for half a second to a second (docs/performance.md, "The collector freezes what it has walked").
Worse, in steady play the youngest generation is not what its threshold suggests: each move frees
old objects (which lowers the allocation count) while the new ones that replace them pile up in
generation 0, so a "young" collection could walk 100,000 objects, 100 ms and more.

So the server runs the collector itself, on a schedule, with automatic collection off:

- at start-up (the app built, its modules, routes and settings loaded) one full collection, then
  ``gc.freeze()``: no pass but the rare thaw below walks those objects again;
- every ``young_seconds`` it collects generations 0 and 1 (everything allocated since the last
  pass: a few thousand objects); the survivors move to generation 2, which no young pass walks;
- every ``full_seconds`` it collects generation 2, which holds only what became long-lived since
  the previous full pass, frees the reference cycles among it that died, and freezes the
  survivors. Each long-lived object (a connection, a room) is walked by one full pass in its
  life, not by every one, so the pass walks what changed in the last period (the rooms' current
  states, the new connections), not the whole heap.
- it runs that pass early when ``EARLY_PASS_CONNECTIONS`` connections opened since the last
  one (``note_connection``): a burst of joins makes many long-lived objects at once (about a
  hundred per connection), and one pass over thousands of them stopped the server for a third
  of a second; passes every few hundred joins split that walk into short ones;
- every ``thaw_seconds`` it thaws everything and collects it all once (the one long pass: its
  length grows with the heap, hundreds of milliseconds at thousands of connections), then
  freezes the survivors again. That pass is the safety net for reference cycles that die among
  frozen objects, which no other pass would free. Measured, the site's objects leave almost
  none (connections, rooms, matches and their saves are freed by their reference counts or die
  young; docs/performance.md), and the thaw pass logs how many objects it freed so that a change
  that starts to leak shows. Since its length follows the heap, a due thaw pass waits for a
  quiet moment: a full pass at which the frozen objects are at most ``QUIET_HEAP_RATIO`` times
  what start-up froze (few players connected, say at night); a server that is never quiet runs
  it anyway once ``THAW_OVERDUE_RATIO`` times ``thaw_seconds`` have passed.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

EARLY_PASS_CONNECTIONS = 250
"""New connections since the last full pass that make the next young pass a full one."""
_new_connections = 0
QUIET_HEAP_RATIO = 1.5
"""A due thaw pass runs at a full pass once the frozen objects are at most this many times those
frozen at start-up (its length follows the heap)."""
THAW_OVERDUE_RATIO = 4.0
"""...or, quiet or not, once this many times ``thaw_seconds`` have passed since the last one."""


def note_connection() -> None:
    """A client connection opened (the WebSocket endpoint calls this once per connection)."""
    global _new_connections
    _new_connections += 1


def thaw_due(since_last: float, thaw_seconds: float, quiet: Callable[[], bool]) -> bool:
    """Whether the thaw pass runs now: ``thaw_seconds`` (0: never) have passed since the last
    one, and it is overdue (``THAW_OVERDUE_RATIO`` times ``thaw_seconds``) or the server is
    ``quiet()`` (asked only then: counting the frozen objects walks a list of them)."""
    if thaw_seconds <= 0 or since_last < thaw_seconds:
        return False
    return since_last >= THAW_OVERDUE_RATIO * thaw_seconds or quiet()


def collect_and_freeze(thaw: bool) -> int:
    """Collect generation 2 (everything when ``thaw``), then freeze what survived; the number
    of unreachable objects found."""
    if thaw:
        gc.unfreeze()
    found = gc.collect(2)
    gc.freeze()
    return found


async def run_collector_schedule(young_seconds: float, full_seconds: float,
                                 thaw_seconds: float = 0.0,
                                 clock: Callable[[], float] = time.monotonic) -> None:
    """Collect the young generations every ``young_seconds``, what became long-lived every
    ``full_seconds`` and everything every ``thaw_seconds`` (0: never); ``young_seconds <= 0``
    leaves CPython's automatic collector alone. ``clock`` (seconds, monotonic) says when a
    full or thaw pass is due (a test moves one by hand)."""
    global _new_connections
    if young_seconds <= 0:
        return
    gc.collect()
    gc.freeze()
    quiet_heap = QUIET_HEAP_RATIO * gc.get_freeze_count()
    _new_connections = 0
    gc.disable()
    last_full = last_thaw = clock()
    try:
        while True:
            await asyncio.sleep(young_seconds)
            now = clock()
            due = full_seconds > 0 and now - last_full >= full_seconds
            thaw = thaw_due(now - last_thaw, thaw_seconds, lambda: (  # noqa: B023 - called here
                (due or full_seconds <= 0) and gc.get_freeze_count() <= quiet_heap))
            if thaw or due or _new_connections >= EARLY_PASS_CONNECTIONS:
                started = time.perf_counter()
                found = collect_and_freeze(thaw)
                log.info("%s collection: %d unreachable objects freed in %.0f ms; %d frozen",
                         "thawed full" if thaw else "full", found,
                         (time.perf_counter() - started) * 1000, gc.get_freeze_count())
                last_full = clock()
                _new_connections = 0
                if thaw:
                    last_thaw = last_full
            else:
                gc.collect(1)
    finally:
        gc.unfreeze()
        gc.enable()
