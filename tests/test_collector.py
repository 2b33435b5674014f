"""The collector schedule (app/collector.py): start-up objects are frozen, young passes and the
full pass free what the rooms left as cyclic garbage, the full pass freezes what it walked and
survived, and only the thaw pass walks frozen objects again."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Awaitable, Callable

from app.collector import run_collector_schedule


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def _in_generation_2(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects(2))


def _with_schedule(young: float, full: float, thaw: float,
                   body: Callable[[], Awaitable[dict]]) -> dict:
    async def scenario() -> dict:
        task = asyncio.get_running_loop().create_task(
            run_collector_schedule(young, full, thaw))
        await asyncio.sleep(0.05)
        try:
            return await body()
        finally:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass

    seen = asyncio.run(scenario())
    assert gc.isenabled() and gc.get_freeze_count() == 0  # the schedule gives the collector back
    return seen


def test_the_full_pass_frees_dead_cycles_and_freezes_the_survivors():
    async def body() -> dict:
        frozen_at_start = gc.get_freeze_count()
        enabled_during = gc.isenabled()
        young = _Cycle()
        young_dead = weakref.ref(young)
        del young
        old, keeper = _Cycle(), _Cycle()
        old_dead = weakref.ref(old)
        await asyncio.sleep(0.05)  # young passes: ``old`` and ``keeper`` reach generation 2
        seen = {"young freed by a young pass": young_dead() is None,
                "old in generation 2": _in_generation_2(old),
                "keeper in generation 2": _in_generation_2(keeper)}
        del old
        await asyncio.sleep(0.4)  # a full pass
        seen.update({"old freed by the full pass": old_dead() is None,
                     "keeper frozen": not _in_generation_2(keeper) and keeper.me is keeper,
                     "start-up still frozen": gc.get_freeze_count() >= frozen_at_start - 100,
                     "collector off while scheduled": not enabled_during,
                     "frozen at start": frozen_at_start})
        return seen

    seen = _with_schedule(0.01, 0.2, 0, body)
    assert seen.pop("frozen at start") > 1000
    assert all(seen.values()), seen


def test_a_cycle_that_dies_frozen_is_freed_by_the_thaw_pass_only():
    async def body() -> dict:
        frozen = _Cycle()
        dead = weakref.ref(frozen)
        await asyncio.sleep(0.15)  # at least one full pass: ``frozen`` is frozen now
        was_frozen = not _in_generation_2(frozen) and dead() is not None
        del frozen
        await asyncio.sleep(0.12)  # full passes, no thaw yet: it waits
        alive_after_full_passes = dead() is not None
        await asyncio.sleep(1.2)  # the thaw pass
        return {"frozen": was_frozen, "kept by the full passes": alive_after_full_passes,
                "freed by the thaw pass": dead() is None}

    seen = _with_schedule(0.01, 0.05, 1.2, body)
    assert all(seen.values()), seen



def test_a_burst_of_connections_brings_the_full_pass_forward():
    from app import collector

    async def body() -> dict:
        keeper = _Cycle()
        await asyncio.sleep(0.05)  # young passes: ``keeper`` reaches generation 2
        seen = {"in generation 2 before": _in_generation_2(keeper)}
        for _ in range(collector.EARLY_PASS_CONNECTIONS - 1):
            collector.note_connection()
        await asyncio.sleep(0.05)  # one short of the burst: no full pass (it is an hour away)
        seen["still in generation 2 one short"] = _in_generation_2(keeper)
        collector.note_connection()
        await asyncio.sleep(0.05)
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


def test_the_thaw_pass_runs_once_the_crowd_has_gone():
    from app.collector import QUIET_HEAP_RATIO

    async def body() -> dict:
        crowd = [[i] for i in range(int(QUIET_HEAP_RATIO * gc.get_freeze_count()))]
        frozen = _Cycle()
        dead = weakref.ref(frozen)
        await asyncio.sleep(0.15)  # full passes freeze ``frozen`` and the crowd
        del frozen
        await asyncio.sleep(0.35)  # the thaw pass is due (0.3 s), but the heap is big
        kept_while_busy = dead() is not None
        del crowd  # the players leave: freed by their reference counts
        await asyncio.sleep(0.2)  # the next full pass finds the heap quiet: the thaw pass
        return {"kept while busy": kept_while_busy, "freed once quiet": dead() is None}

    seen = _with_schedule(0.01, 0.05, 0.3, body)  # overdue only at 4 x 0.3 s: after the body
    assert all(seen.values()), seen
