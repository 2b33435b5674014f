"""The timers a room runs for its game: exactly those the engine's ``timers(state)`` asks for.

A timer is known by its key: while the engine keeps listing a key, that timer keeps running (its
deadline stays; its seats, label and action are the engine's latest: the players still to roll
for a first turn, say); a key that disappears is dropped; a new key starts a new timer.
The board is pure bookkeeping (deadlines on the monotonic clock, the time always passed in): the
room's core asks it which timers are ``due`` when the room wakes, and tells the actor
(``WakeAt``) when the soonest one falls due.

A paused board (``pause``: a running match that no person is connected to, docs/protocol.md,
"Computer players") stops the clock for every timer: none falls due, each keeps the time it had
left (read as of the pause), and ``resume`` moves every deadline on by the pause's length.

The actor keeps one event-loop timer per room, armed for the soonest deadline. Most changes push
deadlines later (a tap restarts an 8 s auto-tap timer, a move restarts a turn timer), and
those need no re-arming: the loop timer wakes at the old deadline, the core finds nothing due,
and the loop timer is armed for the new soonest one. So a move costs no cancelled loop timer
(cancelled handles pile up in the event loop's heap until it is rebuilt).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.engine import Timer


@dataclass(slots=True)
class RunningTimer:
    """One timer on the board: the engine's latest ``Timer`` of its key and its deadline.
    Changed in place (the board's own: nothing else holds one), so a move that keeps a key
    costs one attribute set, no new object and no comparison."""

    timer: Timer
    deadline: float
    """On the monotonic clock, in seconds."""


class TimerBoard:
    """The running timers of one room."""

    def __init__(self) -> None:
        self._running: dict[str, RunningTimer] = {}
        self._paused_at: float | None = None
        """When the board was paused (None while its clock runs)."""

    @property
    def paused(self) -> bool:
        return self._paused_at is not None

    def pause(self, now: float) -> None:
        """Stop every timer's clock at ``now``: none falls due until ``resume``."""
        if self._paused_at is None:
            self._paused_at = now

    def resume(self, now: float) -> None:
        """Each timer runs on from the time it had left when the board was paused."""
        if self._paused_at is None:
            return
        shift = now - self._paused_at
        self._paused_at = None
        for entry in self._running.values():
            entry.deadline += shift

    def sync(self, wanted: Iterable[Timer], now: float,
             elapsed: Mapping[str, float] | None = None) -> None:
        """Run exactly ``wanted``: drop the keys no longer asked for, start the new ones (a
        restored room passes the seconds each has run already: ``elapsed``), and keep the
        deadline of a kept key with the engine's latest timer (seats, label, action). A paused
        board starts a new timer as of the pause."""
        # Compared by key, nothing rebuilt (docs/performance.md, "Where one move's time goes"):
        # each wanted key found on the board takes the engine's latest timer in place; only
        # when some were not found, or some on the board are no longer wanted, does the board
        # change (a move usually swaps one key for the next: one deletion, one timer).
        # The engine lists each key once (tests/conformance/test_room.py compares every game's
        # timers with the frames' one by one).
        board = self._running
        timers = wanted if isinstance(wanted, list) else list(wanted)
        kept = 0
        for timer in timers:
            entry = board.get(timer.key)
            if entry is not None:
                entry.timer = timer
                kept += 1
        if kept != len(board):  # keys no longer wanted
            keys = {t.key for t in timers}
            for key in [k for k in board if k not in keys]:
                del board[key]
        if kept != len(timers):  # new keys, started in the order the engine lists them
            at = self._paused_at if self._paused_at is not None else now
            for timer in timers:
                if timer.key not in board:
                    ran = elapsed.get(timer.key, 0.0) if elapsed else 0.0
                    board[timer.key] = RunningTimer(timer, at + timer.seconds - ran)

    def clear(self) -> None:
        """No timer any more (the board's clock runs again)."""
        self._running.clear()
        self._paused_at = None

    def keys(self) -> set[str]:
        """The keys running now."""
        return set(self._running)

    def pop_due(self, now: float) -> Timer | None:
        """The soonest timer whose deadline has come, taken off the board (None if none is
        due). One at a time: the move a timer makes may drop or keep the others."""
        if self._paused_at is not None:
            return None
        entry = min((e for e in self._running.values() if e.deadline <= now),
                    key=lambda e: e.deadline, default=None)
        if entry is None:
            return None
        del self._running[entry.timer.key]
        return entry.timer

    def soonest(self) -> float | None:
        """The next deadline (None with no timer running, or the board paused)."""
        if self._paused_at is not None:
            return None
        return min((e.deadline for e in self._running.values()), default=None)

    def visible(self, now: float) -> list[dict[str, Any]]:
        """The timers players see, with the milliseconds left (for the state frame); while the
        board is paused, the time each had left at the pause and ``"paused": true``."""
        paused = self._paused_at is not None
        at = self._paused_at if self._paused_at is not None else now
        shown = []
        for key, e in self._running.items():
            if not e.timer.visible:
                continue
            timer = {"key": key, "label": e.timer.label, "seats": list(e.timer.seats),
                     "remaining_ms": max(0, int((e.deadline - at) * 1000))}
            if paused:
                timer["paused"] = True
            shown.append(timer)
        return shown
