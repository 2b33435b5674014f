"""The timers a room runs for its game: exactly those the engine's ``timers(state)`` asks for.

A timer is known by its key: while the engine keeps listing a key, that timer keeps running (its
deadline stays; its seats, label and action are the engine's latest: the heirs still to roll
for Panique's first turn, say); a key that disappears is dropped; a new key starts a new timer.
The board is pure bookkeeping (deadlines on the monotonic clock, the time always passed in): the
room's core asks it which timers are ``due`` when the room wakes, and tells the actor
(``WakeAt``) when the soonest one falls due.

The actor keeps one event-loop timer per room, armed for the soonest deadline. Most changes push
deadlines later (a tap restarts Panika's 8 s auto-tap timer, a move restarts a turn timer), and
those need no re-arming: the loop timer wakes at the old deadline, the core finds nothing due,
and the loop timer is armed for the new soonest one. So a move costs no cancelled loop timer
(cancelled handles pile up in the event loop's heap until it is rebuilt).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.engine import Timer


@dataclass(frozen=True, slots=True)
class RunningTimer:
    timer: Timer
    deadline: float
    """On the monotonic clock, in seconds."""


class TimerBoard:
    """The running timers of one room."""

    def __init__(self) -> None:
        self._running: dict[str, RunningTimer] = {}

    def sync(self, wanted: Iterable[Timer], now: float,
             elapsed: Mapping[str, float] | None = None) -> None:
        """Run exactly ``wanted``: drop the keys no longer asked for, start the new ones (a
        restored room passes the seconds each has run already: ``elapsed``), and keep the
        deadline of a kept key with the engine's latest timer (seats, label, action)."""
        by_key = {t.key: t for t in wanted}
        for key in [k for k in self._running if k not in by_key]:
            del self._running[key]
        for key, timer in by_key.items():
            running = self._running.get(key)
            if running is None:
                ran = elapsed.get(key, 0.0) if elapsed else 0.0
                self._running[key] = RunningTimer(timer, now + timer.seconds - ran)
            elif running.timer != timer:
                self._running[key] = RunningTimer(timer, running.deadline)

    def clear(self) -> None:
        self._running.clear()

    def keys(self) -> set[str]:
        """The keys running now."""
        return set(self._running)

    def pop_due(self, now: float) -> Timer | None:
        """The soonest timer whose deadline has come, taken off the board (None if none is
        due). One at a time: the move a timer makes may drop or keep the others."""
        entry = min((e for e in self._running.values() if e.deadline <= now),
                    key=lambda e: e.deadline, default=None)
        if entry is None:
            return None
        del self._running[entry.timer.key]
        return entry.timer

    def soonest(self) -> float | None:
        """The next deadline (None with no timer running)."""
        return min((e.deadline for e in self._running.values()), default=None)

    def visible(self, now: float) -> list[dict[str, Any]]:
        """The timers players see, with the milliseconds left (for the state frame)."""
        return [
            {"key": key, "label": e.timer.label, "seats": list(e.timer.seats),
             "remaining_ms": max(0, int((e.deadline - now) * 1000))}
            for key, e in self._running.items() if e.timer.visible
        ]
