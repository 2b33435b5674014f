"""Time for the tests without sleeping: a clock the test moves by hand (for the ``clock``
parameter of ``Journal``, ``MatchWriter``, ``Leases`` and the collector's schedule), and waiting
for a condition itself rather than for a fixed time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class ManualClock:
    """A monotonic clock that stands still until the test moves it (``advance``)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


async def until(condition: Callable[[], bool], timeout: float = 10.0,
                what: str = "the condition") -> None:
    """Wait (yielding to the event loop) until ``condition()`` holds; fail after ``timeout``
    seconds, a bound for a broken run, not a time the test relies on."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not come about in {timeout} s")
        await asyncio.sleep(0.005)


def wait_until(condition: Callable[[], bool], timeout: float = 10.0,
               what: str = "the condition") -> None:
    """``until`` for a test outside an event loop (a live server's thread does the work)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not come about in {timeout} s")
        time.sleep(0.005)
