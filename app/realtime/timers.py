"""The timers a room runs for its game: exactly those the engine's ``timers(state)`` asks for.

A timer is known by its key: while the engine keeps listing a key, that timer keeps running; a
key that disappears is dropped; a new key starts a new timer. When one expires, ``fire(key)`` is
called (the room posts it to its own queue, so a timer is just another message) and the room
takes it back with ``expire(key)``.

One event-loop timer per room serves them all, armed for the soonest deadline. Most changes push
deadlines later (a tap restarts Panika's 8 s auto-tap timer, a move restarts a turn timer), and
those need no re-arming: the loop timer wakes at the old deadline, finds nothing due, and arms
itself for the new soonest one. So a move costs no cancelled loop timer (cancelled handles pile
up in the event loop's heap until it is rebuilt).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.engine import Timer


@dataclass(frozen=True, slots=True)
class RunningTimer:
    timer: Timer
    deadline: float
    """On the event loop's clock."""


class TimerBoard:
    """The running timers of one room."""

    def __init__(self, fire: Callable[[str], None]) -> None:
        self._fire = fire
        self._running: dict[str, RunningTimer] = {}
        self._fired: dict[str, Timer] = {}
        """Expired timers the room has not taken back yet."""
        self._handle: asyncio.TimerHandle | None = None
        self._armed_for = 0.0

    def sync(self, wanted: Iterable[Timer], elapsed: Mapping[str, float] | None = None) -> None:
        """Run exactly ``wanted``: drop the keys no longer asked for, start the new ones (a
        restored room passes the seconds each has run already: ``elapsed``)."""
        by_key = {t.key: t for t in wanted}
        for key in [k for k in self._running if k not in by_key]:
            del self._running[key]
        for key in [k for k in self._fired if k not in by_key]:
            del self._fired[key]
        now = asyncio.get_running_loop().time()
        for key, timer in by_key.items():
            if key not in self._running and key not in self._fired:
                ran = elapsed.get(key, 0.0) if elapsed else 0.0
                self._running[key] = RunningTimer(timer, now + timer.seconds - ran)
        self._arm()

    def clear(self) -> None:
        self._running.clear()
        self._fired.clear()
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def expire(self, key: str) -> Timer | None:
        """The room takes back the timer ``key`` that fired (None if it was dropped since)."""
        return self._fired.pop(key, None)

    def visible(self) -> list[dict[str, Any]]:
        """The timers players see, with the milliseconds left (for the state frame)."""
        now = asyncio.get_running_loop().time()
        return [
            {"key": key, "label": e.timer.label, "seats": list(e.timer.seats),
             "remaining_ms": max(0, int((e.deadline - now) * 1000))}
            for key, e in self._running.items() if e.timer.visible
        ]

    def _arm(self) -> None:
        if not self._running:
            return
        soonest = min(e.deadline for e in self._running.values())
        if self._handle is not None and self._armed_for <= soonest:
            return
        if self._handle is not None:
            self._handle.cancel()
        self._armed_for = soonest
        self._handle = asyncio.get_running_loop().call_at(soonest, self._wake)

    def _wake(self) -> None:
        self._handle = None
        now = asyncio.get_running_loop().time()
        due = [key for key, e in self._running.items() if e.deadline <= now]
        for key in due:
            self._fired[key] = self._running.pop(key).timer
            self._fire(key)
        self._arm()
