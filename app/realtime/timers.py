"""The timers a room runs for its game: exactly those the engine's ``timers(state)`` asks for.

A timer is known by its key: while the engine keeps listing a key, that timer keeps running; a
key that disappears is cancelled; a new key starts a new timer. When one expires, ``fire(key)``
is called (the room posts it to its own queue, so a timer is just another message).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from app.engine import Timer


@dataclass(frozen=True, slots=True)
class RunningTimer:
    timer: Timer
    deadline: float
    handle: asyncio.TimerHandle


class TimerBoard:
    """The running timers of one room."""

    def __init__(self, fire: Callable[[str], None]) -> None:
        self._fire = fire
        self._running: dict[str, RunningTimer] = {}

    def sync(self, wanted: Iterable[Timer]) -> None:
        """Run exactly ``wanted``: cancel the keys no longer asked for, start the new ones."""
        by_key = {t.key: t for t in wanted}
        for key in [k for k in self._running if k not in by_key]:
            self._running.pop(key).handle.cancel()
        loop = asyncio.get_running_loop()
        for key, timer in by_key.items():
            if key not in self._running:
                handle = loop.call_later(timer.seconds, self._fire, key)
                self._running[key] = RunningTimer(timer, time.monotonic() + timer.seconds, handle)

    def clear(self) -> None:
        for entry in self._running.values():
            entry.handle.cancel()
        self._running.clear()

    def expire(self, key: str) -> Timer | None:
        """The timer ``key`` has fired: forget it and return it (None if it was cancelled)."""
        entry = self._running.pop(key, None)
        return entry.timer if entry is not None else None

    def visible(self) -> list[dict[str, Any]]:
        """The timers players see, with the milliseconds left (for the state frame)."""
        now = time.monotonic()
        return [
            {"key": key, "label": e.timer.label, "seats": list(e.timer.seats),
             "remaining_ms": max(0, int((e.deadline - now) * 1000))}
            for key, e in self._running.items() if e.timer.visible
        ]
