"""The room actor shares the event loop (app/realtime/actor.py, ``MESSAGES_PER_TURN``): a room
with a backlog hands the loop on every few messages, so one flooded room does not hold up the
other rooms, the pings and the HTTP requests until its whole backlog is handled."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from app.engine import get_game
from app.games import load_all
from app.realtime.actor import MESSAGES_PER_TURN, Room
from app.realtime.room.effects import CloseRoom, TakeoverCheck
from app.realtime.room.tokens import SeatTokens
from tests.clock import until
from tests.live import run_async


def test_a_room_with_a_backlog_lets_the_other_tasks_run_between_its_turns():
    load_all()

    async def save(*_args):  # type: ignore[no-untyped-def]
        return 1

    async def scenario() -> list[int]:
        room = Room(code="TURN", game=get_game("panika"), public=False, tokens=SeatTokens("k"),
                    save_match=save)
        backlog = 10 * MESSAGES_PER_TURN
        for _ in range(backlog):  # queued: a room not yet started handles nothing at once
            room.post(TakeoverCheck())  # a cheap input: is a seat's grace over?
        room.start(lambda _room: None)  # its actor runs first: it was created first
        seen: list[int] = []

        async def other_task() -> None:
            for _ in range(3):
                seen.append(room.queued())
                await asyncio.sleep(0)

        other = asyncio.get_running_loop().create_task(other_task())
        await other
        room.post(CloseRoom())
        assert room.task is not None
        await room.task
        return [backlog - left for left in seen]

    handled_when_the_other_task_ran = run_async(scenario())
    # The other task ran while the room still had most of its backlog, one turn at a time.
    assert handled_when_the_other_task_ran == [MESSAGES_PER_TURN, 2 * MESSAGES_PER_TURN,
                                               3 * MESSAGES_PER_TURN]


def test_rooms_started_together_tick_at_phases_of_their_own(monkeypatch):
    """Rooms started in one turn of the loop (a restart restoring them, a burst of creations)
    do not all tick, and ping all their connections, in one later turn: each first waits a
    phase of its own within the ping interval (``Room._ticker``), then ticks every interval."""
    load_all()
    waits: list[float] = []
    sleep = asyncio.sleep

    async def recorded_sleep(delay, *args):  # type: ignore[no-untyped-def]
        waits.append(delay)
        return await sleep(delay, *args)

    async def save(*_args):  # type: ignore[no-untyped-def]
        return 1

    async def scenario() -> None:
        rooms = [Room(code=f"PH{i:02d}", game=get_game("panika"), public=False,
                      tokens=SeatTokens("k"), save_match=save, ping_seconds=0.2)
                 for i in range(20)]
        monkeypatch.setattr(asyncio, "sleep", recorded_sleep)
        for room in rooms:
            room.start(lambda _room: None)
        for _ in range(3):  # the actors and their tickers start
            await sleep(0)
        monkeypatch.setattr(asyncio, "sleep", sleep)
        for room in rooms:
            room.post(CloseRoom())
        await asyncio.gather(*(room.task for room in rooms if room.task is not None))

    run_async(scenario())
    phases = sorted(waits)
    assert len(phases) == 20 and all(0 <= w < 0.2 for w in phases), phases
    # Twenty phases drawn over 0.2 s spread over most of it (all twenty within 0.05 s of each
    # other has a chance below 1e-10); started together, the rooms used to share each tick's turn.
    assert phases[-1] - phases[0] > 0.05, phases


@dataclass(frozen=True)
class _Chain:
    """The test's own message: handling it posts a ``_Chained``."""


@dataclass(frozen=True)
class _Chained:
    """The test's own message, posted while a ``_Chain`` is handled."""


class _RecordingRoom(Room):
    """A room that records each message it handles (its class's name, the room its log lines
    name, and whether the actor's task was running it) and, for a ``_Chain``, posts a
    ``_Chained`` meanwhile."""

    def __init__(self, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.handled: list[tuple[str, object, bool]] = []

    def _handle(self, message, now):  # type: ignore[no-untyped-def]
        from app import logs

        running = asyncio.current_task() is self.task
        self.handled.append((type(message).__name__, logs._room.get(), running))
        if isinstance(message, _Chain):
            self.post(_Chained())  # type: ignore[arg-type]
            self.handled.append(("chain ends", logs._room.get(), running))
        if not isinstance(message, (_Chain, _Chained)):
            super()._handle(message, now)


def _recording_room(code: str) -> _RecordingRoom:
    load_all()

    async def save(*_args):  # type: ignore[no-untyped-def]
        return 1

    return _RecordingRoom(code=code, game=get_game("panika"), public=False,
                          tokens=SeatTokens("k"), save_match=save)


def test_a_message_that_finds_the_room_idle_is_handled_before_post_returns():
    """Decision 0034: an idle room (started, its queue empty, nothing being handled) handles a
    message at once, in its actor's context (its log lines name the room), not a turn later."""

    async def scenario() -> _RecordingRoom:
        room = _recording_room("IDLE")
        room.start(lambda _room: None)  # started, its queue empty: idle
        room.post(TakeoverCheck())
        assert [kind for kind, *_ in room.handled] == ["TakeoverCheck"]  # handled already
        room.post(CloseRoom())
        assert room.state.closed  # at once too; the actor, woken, stops the room
        assert room.task is not None
        await asyncio.wait_for(room.task, 5)
        return room

    room = run_async(scenario())
    assert room.handled == [("TakeoverCheck", room.state, False),
                            ("CloseRoom", room.state, False)]


def test_a_message_posted_while_the_room_handles_one_waits_its_turn():
    """A message posted while the room handles another (here by the input itself) is queued and
    handled after it by the actor, never inside it: one input at a time, in arrival order."""

    async def scenario() -> _RecordingRoom:
        room = _recording_room("CHAI")
        room.start(lambda _room: None)
        room.post(_Chain())  # type: ignore[arg-type]
        assert room.queued() == 1
        room.post(TakeoverCheck())  # arrives behind what is queued
        assert room.queued() == 2
        await until(lambda: room.queued() == 0, what="the actor to handle its queue")
        room.post(CloseRoom())
        assert room.task is not None
        await asyncio.wait_for(room.task, 5)
        return room

    room = run_async(scenario())
    assert room.handled == [("_Chain", room.state, False), ("chain ends", room.state, False),
                            ("_Chained", room.state, True), ("TakeoverCheck", room.state, True),
                            ("CloseRoom", room.state, False)]


def test_a_rooms_tick_keeps_its_phase_after_a_stall():
    """``next_tick``: a room's ticks stay on the grid of its own phase. After the event loop
    stalled, the rooms whose tick fell in the stall tick late together once, then each returns
    to its phase (counted from the late tick, they would have gone on ticking together: a
    burst of pings every interval, docs/performance.md "Pings"); missed ticks are not made up."""
    from app.realtime.actor import next_tick

    assert next_tick(10.0, 1.0, 10.004) == 11.0  # on time: the next on the grid
    # Two rooms with phases 0.25 s apart, both due during a stall that ended at 13.3 s:
    first, second = next_tick(12.0, 1.0, 13.3), next_tick(12.25, 1.0, 13.3)
    assert (first, second) == (14.0, 14.25)  # apart again, not both at 14.3
    assert next_tick(10.0, 1.0, 11.0) == 12.0  # exactly on the next: that one has passed
    # A grid point that floating point puts a hair later than ``now`` stays in the future.
    later = next_tick(0.1, 0.2, 0.7)
    assert 0.7 < later < 0.9 + 1e-9
