"""The longest stall of the event loop during a thaw pass, and during the probe that replaces it.

Builds a heap like a server's with CONNECTIONS connections (about OBJECTS_PER_CONNECTION
long-lived objects each, a few dead reference cycles among them), freezes it as the collector
does, then measures with a 1 ms ticker on the loop: (1) ``count_frozen_garbage()`` (the parent
forks; a child walks), (2) the thaw pass itself (``collect_and_freeze(thaw=True)``).
app/collector.py says why; docs/performance.md records the figures.

    .venv/bin/python bench/thaw_probe.py --connections 4000
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from collections.abc import Awaitable, Callable

from app.collector import collect_and_freeze, count_frozen_garbage

OBJECTS_PER_CONNECTION = 150


class _Thing:
    def __init__(self, i: int) -> None:
        self.i = i
        self.attrs = {"name": f"player {i}", "seat": i % 10, "tags": [i, i + 1]}


def build_heap(connections: int) -> list[object]:
    """About ``OBJECTS_PER_CONNECTION`` tracked objects per connection (a _Thing holds 3)."""
    return [[_Thing(c * 50 + k) for k in range(OBJECTS_PER_CONNECTION // 3)]
            for c in range(connections)]


async def longest_stall(work: Callable[[], Awaitable[object]]) -> tuple[float, float, object]:
    """(longest gap between 1 ms ticks in ms, the work's own time in ms, its result)."""
    gaps: list[float] = []
    stop = False

    async def tick() -> None:
        last = time.perf_counter()
        while not stop:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.01)
    started = time.perf_counter()
    result = await work()
    took = time.perf_counter() - started
    await asyncio.sleep(0.01)
    stop = True
    await ticker
    return max(gaps) * 1000, took * 1000, result


async def main(connections: int) -> None:
    heap = build_heap(connections)
    dying = []
    for _ in range(1000):
        a, b = _Thing(0), _Thing(1)
        a.other, b.other = b, a  # type: ignore[attr-defined]
        dying.append(a)
    gc.collect()
    gc.freeze()
    gc.disable()
    del dying
    frozen = gc.get_freeze_count()

    async def nothing() -> None:
        await asyncio.sleep(0.5)

    stall, _, _ = await longest_stall(nothing)
    print(f"idle: loop's longest stall {stall:.1f} ms over 0.5 s (the machine's noise)")
    stall, took, found = await longest_stall(count_frozen_garbage)
    print(f"probe: {frozen:,} frozen objects ({connections:,} connections); "
          f"the child found {found} dead; loop's longest stall {stall:.1f} ms "
          f"(answer after {took:.0f} ms)")

    async def thaw() -> int:
        return collect_and_freeze(thaw=True)

    stall, took, found = await longest_stall(thaw)
    print(f"thaw pass: freed {found}; loop's longest stall {stall:.1f} ms (took {took:.0f} ms)")
    del heap
    gc.unfreeze()
    gc.enable()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=4000)
    asyncio.run(main(parser.parse_args().connections))
