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
  pass: a few thousand objects) and freezes what survived (``gc.freeze()`` splices lists: no
  walk). An object that lives past one young pass is long-lived: it is walked once in its life.
  No full pass walks generation 2 (decision 0035): such a pass walks what is in flight (the
  rooms' current states, their armed timers, the connections' last frames: some 60,000 objects,
  30-55 ms at 4,000 connections) and, measured in steady play, freed nothing; on a busy server
  its pause became a queue of 160-260 ms. A cycle that dies after a young pass waits for a thaw
  pass, which the question below asks for once there are enough of them;
- ``full_seconds`` above 0 brings the older schedule back (for an operator comparing them): the
  survivors of young passes wait in generation 2, every ``full_seconds`` a full pass collects
  it and freezes what survived, and early once ``EARLY_PASS_CONNECTIONS`` connections opened
  since the last one (``note_connection``: a burst of joins made one long walk otherwise);
- every ``thaw_seconds`` it asks whether a thaw pass is worth its pause. Thawing everything and
  collecting it all once is the one long pass (its length grows with the heap, hundreds of
  milliseconds at thousands of connections) and the only one that frees reference cycles that
  die among frozen objects. Measured, the site's objects leave almost none (connections, rooms,
  matches and their saves are freed by their reference counts or die young;
  docs/performance.md). So the question goes to a forked copy of the server
  (``count_frozen_garbage``): the child thaws and collects everything, writes how many objects
  it found dead among the frozen ones, and exits; the server pays for the fork only (a few
  milliseconds: the page tables, copied on write) and goes on serving while the child walks.
  Below ``THAW_WORTH_OBJECTS`` the server logs the count and thaws nothing; at or above it (or
  where fork is missing, or the child gave no answer) a thaw pass is wanted, and it logs how many
  objects it freed so that a change that starts to leak shows. Since its length follows the heap,
  a wanted thaw pass waits for a quiet moment: the frozen objects at most ``QUIET_HEAP_RATIO``
  times what start-up froze (few players connected, say at night; counted at most every
  ``QUIET_CHECK_SECONDS``, at a full pass on the older schedule); a server
  that is never quiet runs it anyway once ``THAW_OVERDUE_RATIO`` times ``thaw_seconds`` have
  passed since the last thaw or answer that none was needed.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import select
import signal
import time
import warnings
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
THAW_WORTH_OBJECTS = 20_000
"""Objects dead in cycles among the frozen ones (as a forked child counts them) that make a thaw
pass worth its pause: some megabytes held; fewer are left until the next count."""
QUIET_CHECK_SECONDS = 60.0
"""How often a wanted thaw pass counts the frozen objects to see whether the server is quiet
(the count walks their list: about a millisecond per 100,000)."""
PROBE_TIMEOUT_SECONDS = 120.0
"""A forked child that has not answered by then is killed, and a thaw pass is wanted."""
PROBE_NICENESS = 19
"""The forked child's niceness: it takes no CPU time the server wants."""


def note_connection() -> None:
    """A client connection opened (the WebSocket endpoint calls this once per connection)."""
    global _new_connections
    _new_connections += 1


def thaw_due(since_last: float, thaw_seconds: float, quiet: Callable[[], bool]) -> bool:
    """Whether a wanted thaw pass runs now: ``thaw_seconds`` (0: never) have passed since the
    last one, and it is overdue (``THAW_OVERDUE_RATIO`` times ``thaw_seconds``) or the server is
    ``quiet()`` (asked only then: counting the frozen objects walks a list of them)."""
    if thaw_seconds <= 0 or since_last < thaw_seconds:
        return False
    return since_last >= THAW_OVERDUE_RATIO * thaw_seconds or quiet()


def any_core() -> None:
    """Let this process run on every core the machine lets it use. The probe's child inherits
    the server's pinning: on a server pinned to one busy core (a benchmark, a deployment's CPU
    affinity) its lowest-priority child would get only that core's spare time. (The probe that
    never answered in the 30-minute soak of 2026-12-03 was blamed on this first; the cause was
    the parent's ``select``, see ``_await_child``.) Cores outside the process's cpuset are
    left out by the kernel."""
    try:
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    except (AttributeError, OSError):  # no affinity calls here, or none of those cores allowed
        pass


def _count_in_child(answer: int) -> None:
    """In the forked child: collect what is not frozen (dead young objects do not count), thaw,
    collect everything, write how many objects that found to ``answer``, and exit without
    running any of the server's exit handlers. The child's finalizers run on copies of the
    server's objects; its logging and warnings are silenced so they print nothing twice, and
    it runs at the lowest priority so that it takes no time the server wants, on any core
    (``any_core``)."""
    try:
        os.nice(PROBE_NICENESS)
        any_core()
        logging.disable(logging.CRITICAL)
        warnings.simplefilter("ignore")
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        gc.collect()
        gc.unfreeze()
        os.write(answer, str(gc.collect()).encode())
    finally:
        os._exit(0)


def _await_child(pid: int, answer: int, timeout: float) -> int | None:
    """The number the child ``pid`` wrote to ``answer`` within ``timeout`` seconds (None if it
    did not: it is killed); the child is reaped either way. ``poll``, not ``select``: a server
    with a thousand sockets open hands the pipe a descriptor above ``select``'s limit (1024),
    where ``select`` raised and the probe never answered (the 30-minute soak of 2026-12-03)."""
    try:
        waiting = select.poll()
        waiting.register(answer, select.POLLIN)
        ready = waiting.poll(timeout * 1000)
        data = os.read(answer, 32) if ready else b""
        if not data:
            os.kill(pid, signal.SIGKILL)
        return int(data) if data else None
    except (OSError, ValueError):
        return None
    finally:
        os.close(answer)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


async def count_frozen_garbage(timeout: float = PROBE_TIMEOUT_SECONDS) -> int | None:
    """How many frozen objects are dead in reference cycles (what a thaw pass would free),
    counted by a forked child while this process goes on; None where fork is missing or the
    child gave no answer within ``timeout`` seconds. This process pays for the fork only."""
    if not hasattr(os, "fork"):
        return None
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # pragma: no cover - the child; its answer is what the tests check
        os.close(read_end)
        _count_in_child(write_end)
    os.close(write_end)
    return await asyncio.get_running_loop().run_in_executor(
        None, _await_child, pid, read_end, timeout)


def collect_and_freeze(thaw: bool) -> int:
    """Collect generation 2 (everything when ``thaw``), then freeze what survived; the number
    of unreachable objects found."""
    if thaw:
        gc.unfreeze()
    found = gc.collect(2)
    gc.freeze()
    return found


async def run_collector_schedule(young_seconds: float, full_seconds: float = 0.0,
                                 thaw_seconds: float = 0.0,
                                 clock: Callable[[], float] = time.monotonic) -> None:
    """Collect the young generations every ``young_seconds`` and freeze what survived (with
    ``full_seconds`` above 0: collect what became long-lived every ``full_seconds`` instead and
    freeze what survived that), and ask every ``thaw_seconds`` (0: never) whether a thaw pass
    is worth its pause, running one when it is; ``young_seconds <= 0`` leaves CPython's
    automatic collector alone. ``clock`` (seconds, monotonic) says when a pass or the question
    is due (a test moves one by hand)."""
    global _new_connections
    if young_seconds <= 0:
        return
    gc.collect()
    gc.freeze()
    quiet_heap = QUIET_HEAP_RATIO * gc.get_freeze_count()
    _new_connections = 0
    gc.disable()
    last_full = last_thaw = clock()
    last_quiet_check = float("-inf")
    probe: asyncio.Task[int | None] | None = None
    wanted = False

    def quiet() -> bool:
        """Whether the frozen heap is small again, asked at a full pass (older schedule) or at
        most every ``QUIET_CHECK_SECONDS``."""
        nonlocal last_quiet_check
        if full_seconds > 0:
            if not due:
                return False
        elif now - last_quiet_check < QUIET_CHECK_SECONDS:
            return False
        last_quiet_check = now
        return gc.get_freeze_count() <= quiet_heap

    try:
        while True:
            await asyncio.sleep(young_seconds)
            now = clock()
            if thaw_seconds > 0 and not wanted and probe is None and now - last_thaw >= thaw_seconds:
                probe = asyncio.get_running_loop().create_task(count_frozen_garbage())
            if probe is not None and probe.done():
                garbage, probe = probe.result(), None
                wanted = garbage is None or garbage >= THAW_WORTH_OBJECTS
                (log.warning if wanted and garbage is not None else log.info)(
                    "thaw probe: %s objects dead in cycles among %d frozen; %s",
                    "unknown" if garbage is None else garbage, gc.get_freeze_count(),
                    "a thaw pass is wanted" if wanted else "no thaw pass needed")
                if not wanted:
                    last_thaw = now
            due = full_seconds > 0 and (now - last_full >= full_seconds
                                        or _new_connections >= EARLY_PASS_CONNECTIONS)
            thaw = wanted and thaw_due(now - last_thaw, thaw_seconds, quiet)
            if thaw or due:
                started = time.perf_counter()
                found = collect_and_freeze(thaw)
                log.info("%s collection: %d unreachable objects freed in %.0f ms; %d frozen",
                         "thawed full" if thaw else "full", found,
                         (time.perf_counter() - started) * 1000, gc.get_freeze_count())
                last_full = clock()
                _new_connections = 0
                if thaw:
                    last_thaw, wanted = last_full, False
            else:
                gc.collect(1)
                if full_seconds <= 0:
                    gc.freeze()
    finally:
        if probe is not None:
            probe.cancel()
        gc.unfreeze()
        gc.enable()
