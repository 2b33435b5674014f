"""Time for the tests without sleeping: a clock the test moves by hand (for the ``clock``
parameter of ``Journal``, ``MatchWriter``, ``Leases`` and the collector's schedule), and waiting
for a condition itself rather than for a fixed time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator


class ManualClock:
    """A monotonic clock that stands still until the test moves it (``advance``)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


FIRST_POLL = 0.005
"""The first wait between two looks at a condition; each next one is half as long again, up to
the longest below. A condition that holds soon is seen within milliseconds; one that takes
seconds (a match played out, a page's next state) is looked at a few times a second, not 200:
a look at a page is a round trip through Playwright's driver and Chromium, and 200 of them a
second kept a core busy while a test waited (docs/testing.md, "Time")."""
LONGEST_POLL = 0.05


def poll_delays() -> Iterator[float]:
    """The waits between the looks at a condition: 5 ms, growing by half each time to 50 ms."""
    delay = FIRST_POLL
    while True:
        yield delay
        delay = min(delay * 1.5, LONGEST_POLL)


async def until(condition: Callable[[], bool], timeout: float = 10.0,
                what: str = "the condition") -> None:
    """Wait (yielding to the event loop) until ``condition()`` holds; fail after ``timeout``
    seconds, a bound for a broken run, not a time the test relies on."""
    deadline = time.monotonic() + timeout
    delays = poll_delays()
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not come about in {timeout} s")
        await asyncio.sleep(next(delays))


def wait_until(condition: Callable[[], bool], timeout: float = 10.0,
               what: str = "the condition") -> None:
    """``until`` for a test outside an event loop (a live server's thread does the work)."""
    deadline = time.monotonic() + timeout
    delays = poll_delays()
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not come about in {timeout} s")
        time.sleep(next(delays))
