"""The collector schedule (app/collector.py): start-up objects are frozen for good, young passes
and the full pass collect what the rooms left as cyclic garbage, and the full pass never thaws
the start-up objects."""

from __future__ import annotations

import asyncio
import gc

from app.collector import run_collector_schedule


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_schedule_frees_cycles_and_keeps_start_up_frozen():
    async def scenario() -> tuple[int, int, bool, bool, bool]:
        task = asyncio.get_running_loop().create_task(run_collector_schedule(0.01, 0.2))
        await asyncio.sleep(0.05)
        frozen = gc.get_freeze_count()
        enabled_during = gc.isenabled()
        young = _Cycle()
        young_ref = [young]
        del young
        old = _Cycle()
        old_id = id(old)
        await asyncio.sleep(0.05)  # young passes: ``old`` survives into generation 2
        in_gen2 = any(id(o) == old_id for o in gc.get_objects(2))
        del old
        young_ref.clear()
        await asyncio.sleep(0.4)  # a full pass
        freed = not any(id(o) == old_id and isinstance(o, _Cycle) for o in gc.get_objects())
        frozen_after = gc.get_freeze_count()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        return frozen, frozen_after, enabled_during, in_gen2, freed

    frozen, frozen_after, enabled_during, in_gen2, freed = asyncio.run(scenario())
    # Never thawed by the full pass (a frozen object may still die by its reference count).
    assert frozen > 1000 and frozen - 100 <= frozen_after <= frozen
    assert not enabled_during and gc.isenabled() and gc.get_freeze_count() == 0
    assert in_gen2 and freed
