"""The collector schedule (app/collector.py): start-up objects are frozen, young passes free
what the rooms left as cyclic garbage and (by default, decision 0035) freeze what survived; on
the older schedule a full pass frees what died in the old generation and freezes what it walked
and survived. Only the thaw pass walks frozen objects again.

A due thaw pass first asks a forked child whether it is worth its pause (the count of objects
dead among the frozen ones); the tests that need the thaw itself lower that bar to one object.

The tests wait for what the schedule logs (each full or thaw pass, each probe), count its young passes
(``gc.callbacks``) and poll for the objects' states rather than sleep fixed times, and those
that need a pass to be due give the schedule a clock they move themselves (its ``clock``): in a
long suite the heap is large, building a crowd or walking it takes a good part of a second, and
a fixed sleep then saw a pass too early or too late."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
import weakref
from collections.abc import Awaitable, Callable

import pytest

from app import collector
from app.collector import run_collector_schedule
from tests.clock import ManualClock
from tests.live import run_async


@pytest.fixture(autouse=True)
def _probe_child_not_niced(monkeypatch):
    """A thaw probe's child walks the whole test process (a quarter of a million objects); at
    the server's niceness it got no CPU beside a loaded suite's workers and never answered."""
    monkeypatch.setattr(collector, "PROBE_NICENESS", 0)


class _Cycle:
    def __init__(self) -> None:
        self.me = self


class _Passes(logging.Handler):
    """The schedule's full and thaw passes and its thaw probes, in the order it logged them."""

    def __init__(self) -> None:
        super().__init__()
        self.kinds: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        self.kinds.append("thaw" if message.startswith("thawed") else
                          "probe" if message.startswith("thaw probe") else "full")


class _YoungPasses:
    """Counts the collections of generation 1 (the schedule's young passes) while entered."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "stop" and info.get("generation") == 1:
            self.count += 1

    def __enter__(self) -> _YoungPasses:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


async def _young_passes(count: int) -> bool:
    """Whether ``count`` more young passes ran (the schedule's clock does not move them)."""
    with _YoungPasses() as young:
        return await _until(lambda: young.count >= count)


def _in_generation_2(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects(2))


async def _until(condition: Callable[[], bool], seconds: float = 60.0) -> bool:
    """Whether ``condition()`` became true within ``seconds`` (polled every 5 ms)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.005)
    return True


def _with_schedule(young: float, full: float, thaw: float,
                   body: Callable[[_Passes], Awaitable[dict]],
                   clock: ManualClock | None = None) -> dict:
    passes = _Passes()
    logger = logging.getLogger(collector.__name__)
    level = logger.level

    async def scenario() -> dict:
        task = asyncio.get_running_loop().create_task(
            run_collector_schedule(young, full, thaw, clock=clock or time.monotonic))
        await asyncio.sleep(0)  # the schedule starts: its start-up collection and freeze
        try:
            return await body(passes)
        finally:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass

    logger.addHandler(passes)
    logger.setLevel(logging.INFO)
    try:
        seen = run_async(scenario())
    finally:
        logger.removeHandler(passes)
        logger.setLevel(level)
    assert gc.isenabled() and gc.get_freeze_count() == 0  # the schedule gives the collector back
    return seen


def _burst() -> None:
    for _ in range(collector.EARLY_PASS_CONNECTIONS):
        collector.note_connection()


def test_the_full_pass_frees_dead_cycles_and_freezes_the_survivors():
    async def body(passes: _Passes) -> dict:
        frozen_at_start = gc.get_freeze_count()
        enabled_during = gc.isenabled()
        young = _Cycle()
        young_dead = weakref.ref(young)
        del young
        old, keeper = _Cycle(), _Cycle()
        old_dead = weakref.ref(old)
        seen = {"young freed by a young pass": await _until(lambda: young_dead() is None),
                "old and keeper reach generation 2 by young passes": await _until(
                    lambda: _in_generation_2(old_dead()) and _in_generation_2(keeper)),
                "no full pass yet": not passes.kinds}
        del old
        _burst()  # the full pass now (its clock is an hour away)
        seen.update({"a full pass": await _until(lambda: passes.kinds == ["full"]),
                     "old freed by the full pass": old_dead() is None,
                     "keeper frozen": not _in_generation_2(keeper) and keeper.me is keeper,
                     "start-up still frozen": gc.get_freeze_count() >= frozen_at_start - 100,
                     "collector off while scheduled": not enabled_during,
                     "frozen at start": frozen_at_start})
        return seen

    seen = _with_schedule(0.01, 3600, 0, body)
    assert seen.pop("frozen at start") > 1000
    assert all(seen.values()), seen


async def _passes_after(clock: ManualClock, seconds: float, passes: _Passes,
                        count: int = 1) -> bool:
    """Move the schedule's clock on by ``seconds`` ``count`` times, each time waiting for the
    pass that makes due; whether each came."""
    for _ in range(count):
        before = len(passes.kinds)
        clock.advance(seconds)
        if not await _until(lambda: len(passes.kinds) > before):  # noqa: B023 - awaited here
            return False
    return True


def test_the_full_pass_runs_on_its_clock_and_a_cycle_that_dies_frozen_waits_for_the_thaw(
        monkeypatch):
    monkeypatch.setattr(collector, "THAW_WORTH_OBJECTS", 1)
    clock = ManualClock()

    async def body(passes: _Passes) -> dict:
        frozen = _Cycle()
        dead = weakref.ref(frozen)
        seen = {"young passes": await _young_passes(5),  # the clock has not moved
                "no full pass before its time": not passes.kinds,
                "a full pass on the clock": await _passes_after(clock, 0.06, passes),
                "frozen": not _in_generation_2(frozen) and dead() is not None}
        del frozen
        await _passes_after(clock, 0.06, passes, count=2)
        seen["kept by the full passes"] = dead() is not None and passes.kinds == ["full"] * 3
        clock.advance(2.0)  # the question is due: a probe, which wants a thaw...
        seen["a probe"] = await _until(lambda: passes.kinds[-1:] == ["probe"])
        seen["a thaw pass at the next full pass"] = (
            await _passes_after(clock, 0.06, passes) and passes.kinds[-2:] == ["probe", "thaw"])
        seen["freed by the thaw pass"] = dead() is None
        return seen

    seen = _with_schedule(0.01, 0.05, 2.0, body, clock)
    assert all(seen.values()), seen


def test_a_burst_of_connections_brings_the_full_pass_forward():
    async def body(passes: _Passes) -> dict:
        keeper = _Cycle()
        seen = {"in generation 2 before": await _until(lambda: _in_generation_2(keeper))}
        for _ in range(collector.EARLY_PASS_CONNECTIONS - 1):
            collector.note_connection()
        seen["young passes one short of the burst"] = await _young_passes(5)
        seen["still in generation 2 one short"] = _in_generation_2(keeper) and not passes.kinds
        collector.note_connection()
        seen["an early pass"] = await _until(lambda: passes.kinds == ["full"])
        seen["frozen by the early pass"] = not _in_generation_2(keeper) and keeper.me is keeper
        return seen

    for _ in range(3 * collector.EARLY_PASS_CONNECTIONS):  # before the schedule: not counted
        collector.note_connection()
    seen = _with_schedule(0.01, 3600, 0, body)
    assert all(seen.values()), seen


def test_a_due_thaw_pass_waits_for_a_quiet_heap_unless_overdue():
    from app.collector import THAW_OVERDUE_RATIO, thaw_due

    asked: list[bool] = []

    def busy() -> bool:
        asked.append(True)
        return False

    assert not thaw_due(3599, 3600, busy) and not asked  # not due: the heap is not counted
    assert not thaw_due(10**9, 0, busy) and not asked  # 0: never
    assert thaw_due(3600, 3600, lambda: True)  # due, and quiet
    assert not thaw_due(3600, 3600, busy) and asked  # due, busy: it waits
    assert not thaw_due(THAW_OVERDUE_RATIO * 3600 - 1, 3600, busy)
    assert thaw_due(THAW_OVERDUE_RATIO * 3600, 3600, busy)  # overdue: it runs, busy or not


def test_the_thaw_pass_runs_once_the_crowd_has_gone(monkeypatch):
    monkeypatch.setattr(collector, "THAW_WORTH_OBJECTS", 1)
    clock = ManualClock()
    thaw_seconds = 0.3

    async def body(passes: _Passes) -> dict:
        crowd = [[i] for i in range(int(collector.QUIET_HEAP_RATIO * gc.get_freeze_count()))]
        frozen = _Cycle()
        dead = weakref.ref(frozen)
        seen = {"a full pass freezes them": await _passes_after(clock, 0.06, passes)}
        del frozen
        clock.advance(thaw_seconds)  # the probe is due: it wants a thaw...
        seen["probed"] = await _until(lambda: "probe" in passes.kinds)
        await _passes_after(clock, 0.06, passes, count=2)
        seen["...but the heap is big: kept"] = dead() is not None and "thaw" not in passes.kinds
        del crowd  # the players leave: freed by their reference counts
        seen["a thaw pass once quiet"] = await _passes_after(clock, 0.06, passes)
        seen["it was the thaw"] = passes.kinds[-1] == "thaw"
        seen["freed by it"] = dead() is None
        return seen

    seen = _with_schedule(0.01, 0.05, thaw_seconds, body, clock)
    assert all(seen.values()), seen


def test_a_forked_child_counts_the_cycles_that_died_frozen_and_this_process_keeps_them():
    keep = [_Cycle() for _ in range(500)]
    dead = [weakref.ref(c) for c in keep]
    gc.collect()
    gc.freeze()
    try:
        del keep
        found = run_async(collector.count_frozen_garbage(timeout=60))
        assert found is not None and found >= 500, found
        assert all(d() is not None for d in dead), "the parent's frozen objects are untouched"
    finally:
        gc.unfreeze()
        gc.collect()
    assert all(d() is None for d in dead)


def test_a_thaw_not_worth_its_pause_is_not_run_and_is_asked_again_later(monkeypatch):
    monkeypatch.setattr(collector, "THAW_WORTH_OBJECTS", 10**9)
    clock = ManualClock()
    thaw_seconds = 2.0

    async def body(passes: _Passes) -> dict:
        frozen = _Cycle()
        dead = weakref.ref(frozen)
        seen = {"frozen by a full pass": await _passes_after(clock, 0.06, passes)}
        del frozen
        clock.advance(thaw_seconds)
        seen["a probe"] = await _until(lambda: passes.kinds.count("probe") == 1)
        await _passes_after(clock, 0.06, passes, count=2)
        seen["no thaw: the cycle stays"] = "thaw" not in passes.kinds and dead() is not None
        clock.advance(thaw_seconds)
        seen["asked again a period later"] = await _until(
            lambda: passes.kinds.count("probe") == 2)
        return seen

    seen = _with_schedule(0.01, 0.05, thaw_seconds, body, clock)
    assert all(seen.values()), seen


def test_without_an_answer_from_a_child_the_thaw_pass_runs_as_before(monkeypatch):
    async def no_answer(timeout: float = 0) -> None:
        return None

    monkeypatch.setattr(collector, "count_frozen_garbage", no_answer)
    clock = ManualClock()

    async def body(passes: _Passes) -> dict:
        frozen = _Cycle()
        dead = weakref.ref(frozen)
        seen = {"frozen by a full pass": await _passes_after(clock, 0.06, passes)}
        del frozen
        clock.advance(2.0)
        seen["an unanswered probe"] = await _until(lambda: passes.kinds[-1:] == ["probe"])
        seen["a thaw at the next full pass"] = (
            await _passes_after(clock, 0.06, passes) and passes.kinds[-2:] == ["probe", "thaw"])
        seen["freed by it"] = dead() is None
        return seen

    seen = _with_schedule(0.01, 0.05, 2.0, body, clock)
    assert all(seen.values()), seen


def test_the_probes_child_is_not_held_to_the_servers_pinned_core():
    """A server pinned to one core passes that pinning to its forked probe, which at the lowest
    priority then starved beside a busy server and never answered (an overdue thaw pass came
    instead): ``any_core`` lets the child run on every allowed core. Checked in a forked
    process pinned to one core first, as the server would be."""
    allowed = os.sched_getaffinity(0)  # every core this process may use (two here, CI's too)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child writes what it found and exits
        try:
            os.sched_setaffinity(0, {min(allowed)})
            pinned = len(os.sched_getaffinity(0))
            collector.any_core()
            os.write(write_end, f"{pinned} {len(os.sched_getaffinity(0))}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        answer = os.read(read_end, 64).decode()
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    assert answer == f"1 {len(allowed)}", answer


def _frozen(obj: object) -> bool:
    """Whether ``obj`` is in none of the three generations (so frozen: it is tracked)."""
    return gc.is_tracked(obj) and not any(
        any(o is obj for o in gc.get_objects(generation)) for generation in range(3))


def test_by_default_what_survives_a_young_pass_is_frozen_at_once_and_no_full_pass_runs():
    """Decision 0035: the default schedule (``full_seconds`` 0) freezes the survivors of each
    young pass; a cycle that dies young is freed by a young pass, one that dies after it was
    frozen stays until a thaw, and no full pass walks the old generation, however much time or
    how many connections pass."""
    clock = ManualClock()

    async def body(passes: _Passes) -> dict:
        young = _Cycle()
        young_dead = weakref.ref(young)
        del young
        keeper = _Cycle()
        later = weakref.ref(keeper)
        seen = {"young freed by a young pass": await _until(lambda: young_dead() is None),
                "keeper frozen by a young pass": await _until(lambda: _frozen(later())),
                "generation 2 holds nothing of ours": not gc.get_objects(2) or not any(
                    isinstance(o, _Cycle) for o in gc.get_objects(2))}
        del keeper
        _burst()
        clock.advance(3600)
        seen["young passes go on"] = await _young_passes(5)
        seen["no full pass, even after an hour and a burst of joins"] = not passes.kinds
        seen["a cycle that died frozen is kept"] = later() is not None
        return seen

    seen = _with_schedule(0.01, 0, 0, body, clock)
    assert all(seen.values()), seen


def test_by_default_a_cycle_that_died_frozen_is_counted_and_thawed_once_the_heap_is_quiet(
        monkeypatch):
    """The probe counts what a young-pass freeze kept; the wanted thaw pass waits for a quiet
    heap, counted at most every ``QUIET_CHECK_SECONDS`` (the count walks the frozen list)."""
    monkeypatch.setattr(collector, "THAW_WORTH_OBJECTS", 1)
    clock = ManualClock()
    thaw_seconds = 2.0
    counts: list[int] = []
    real_count = gc.get_freeze_count

    def counted() -> int:
        counts.append(1)
        return real_count()

    async def body(passes: _Passes) -> dict:
        crowd = [[i] for i in range(int(collector.QUIET_HEAP_RATIO * gc.get_freeze_count()))]
        frozen = _Cycle()
        dead = weakref.ref(frozen)
        seen = {"frozen by a young pass": await _until(lambda: _frozen(dead()))}
        del frozen
        monkeypatch.setattr(collector.gc, "get_freeze_count", counted)
        clock.advance(thaw_seconds)
        seen["a probe that wants a thaw"] = await _until(lambda: passes.kinds == ["probe"])
        asked = len(counts)
        seen["its log line and one look at the heap (busy)"] = asked == 2
        await _young_passes(10)
        seen["the busy heap not counted again every young pass"] = len(counts) == asked
        seen["kept while the crowd is here"] = dead() is not None and passes.kinds == ["probe"]
        del crowd  # the players leave: freed by their reference counts
        await _young_passes(5)
        seen["not counted again before a minute"] = len(counts) == asked and dead() is not None
        clock.advance(collector.QUIET_CHECK_SECONDS)
        seen["a thaw pass at the next count"] = await _until(
            lambda: passes.kinds == ["probe", "thaw"])
        seen["freed by it"] = dead() is None
        return seen

    seen = _with_schedule(0.01, 0, thaw_seconds, body, clock)
    assert all(seen.values()), seen


def test_the_probe_answers_through_a_pipe_numbered_above_selects_limit(monkeypatch):
    """A server with thousands of sockets open gets a pipe numbered above 1024, where
    ``select`` raised: the probe never answered at 4,000 connections and a thaw pass was wanted
    every time (the 30-minute soak of 2026-12-03). The pipe here is moved above that limit."""
    import fcntl

    real_pipe = os.pipe

    def high_pipe() -> tuple[int, int]:
        read_end, write_end = real_pipe()
        try:
            return (fcntl.fcntl(read_end, fcntl.F_DUPFD, 1100),
                    fcntl.fcntl(write_end, fcntl.F_DUPFD, 1100))
        finally:
            os.close(read_end)
            os.close(write_end)

    import resource

    limits = resource.getrlimit(resource.RLIMIT_NOFILE)
    if limits[0] < 1200:  # a machine whose default allows fewer descriptors: raised for the test
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (1200, max(limits[1], 1200)))
        except (ValueError, OSError):
            pytest.skip("this process may not open a descriptor above 1024, so it cannot reach "
                        "select's limit either")
    monkeypatch.setattr(collector.os, "pipe", high_pipe)
    keep = [_Cycle() for _ in range(50)]
    gc.collect()
    gc.freeze()
    try:
        del keep
        found = run_async(collector.count_frozen_garbage(timeout=60))
    finally:
        gc.unfreeze()
        gc.collect()
        resource.setrlimit(resource.RLIMIT_NOFILE, limits)
    assert found is not None and found >= 50, found
