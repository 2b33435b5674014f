"""The room actor: one asyncio task per room, its queue the only door to the room's state.

Every input (a client's frame, a new or closed connection, a timer, the periodic tick, a saved
match) is a message on the queue, handled one at a time in arrival order: arrival order at the
actor is the arbitration order. The actor is a thin shell around the room's core
(``RoomCore``, app/realtime/room/core.py), which makes every decision: for each message the actor
reads the clocks once, hands the core the input and the time, and performs the effects it gets
back, in order (app/realtime/room/effects.py): frames through the connections (and the durable
room's frame gate), closes, messages posted back after a delay, the one loop timer for the
room's timers, the save of a finished match, the metrics (docs/architecture.md, "The room's
core").
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from app import logs, metrics
from app.db.matches import MatchRecord
from app.engine import Game
from app.realtime.durable.journal import RoomRecorder
from app.realtime.room.core import CLOSE_ROOM_CLOSED, CLOSE_SERVER_RESTARTING, RoomCore
from app.realtime.room.effects import (
    BadJoin,
    Cancel,
    Close,
    Control,
    Counted,
    Effect,
    Later,
    Listed,
    Now,
    Save,
    Send,
    SendEach,
    WakeAt,
)
from app.realtime.room.match import MatchRun
from app.realtime.room.state import SocketPolicy
from app.realtime.room.tokens import SeatTokens
from app.realtime.transport.guard import TokenBucket

log = logging.getLogger(__name__)

__all__ = ["CLOSE_ROOM_CLOSED", "CLOSE_SERVER_RESTARTING", "Room", "SaveMatch"]

RECOVERY_ATTEMPTS = 5
RECOVERY_DELAY_SECONDS = 1.0
MESSAGES_PER_TURN = 32
"""A room with a backlog hands the event loop on after this many messages in a row: awaiting
a queue that is not empty does not yield, so a flooded room would otherwise hold the loop (every
other room, every HTTP request) until its whole backlog was handled."""

SaveMatch = Callable[[MatchRecord, Callable[[str], None]], Awaitable[int]]
"""Writes a finished match (through the outbox, app/db/outbox.py) and returns its id once the
database has it; told ``"retrying"`` while the match waits for the database."""


def next_tick(due: float, interval: float, now: float) -> float:
    """The next time on the grid ``due + k * interval`` (k >= 1) that is later than ``now``:
    a tick that came late keeps its phase, and the ticks missed meanwhile are not made up."""
    following = due + interval
    if following <= now:
        following += ((now - following) // interval + 1) * interval
        while following <= now:  # floating point's division may fall one interval short
            following += interval
    return following


class Room(RoomCore):
    """A room: its core (state and decisions) and the actor that feeds it and performs its
    effects."""

    def __init__(
        self,
        *,
        code: str,
        game: Game,
        public: bool,
        tokens: SeatTokens,
        save_match: SaveMatch,
        idle_seconds: float = 600.0,
        ping_seconds: float = 5.0,
        policy: SocketPolicy | None = None,
    ) -> None:
        self._queue: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self._later: dict[Any, asyncio.TimerHandle] = {}
        """Messages posted back after a delay, under their key (``Later``)."""
        self._wake: asyncio.TimerHandle | None = None
        self._wake_at = 0.0
        self._wake_seq = 0
        """Numbers the loop timers armed: a ``timer`` message says which one fired."""
        super().__init__(code=code, game=game, public=public, tokens=tokens, now=Now.read(),
                         idle_seconds=idle_seconds, ping_seconds=ping_seconds, policy=policy)
        self.close_code = CLOSE_ROOM_CLOSED
        self._save_match = save_match
        self._ping_seconds = ping_seconds
        self.inbox = TokenBucket(self.policy.room_frames_per_second)
        """The room's share of client frames per second, from all its clients together."""
        self._recoveries = 0
        self._saving: set[asyncio.Task[None]] = set()
        self._task: asyncio.Task[None] | None = None
        self._context: contextvars.Context | None = None
        """The actor's context (its log lines name the room), also entered by a message handled
        at once (``post``)."""
        self._busy = 0
        """Inputs and effects being handled or performed: a message posted meanwhile waits."""
        self._on_close: Callable[[Room], None] | None = None
        self.recorder: RoomRecorder | None = None
        """Durable rooms: records every change before its frames go out (journal.py)."""
        self.on_listed: Callable[[Room], None] | None = None
        """Told when the room's place in the lobby changed (``Listed``): with several processes
        the registry writes its directory entry at once."""
        self._pending = self.take()  # an open table's first match, performed once started

    # --- the actor ---------------------------------------------------------------------------
    def start(self, on_close: Callable[[Room], None]) -> None:
        self._on_close = on_close
        self._context = contextvars.copy_context()
        self._context.run(logs.bind_room, self)
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"room-{self.code}", context=self._context)
        pending, self._pending = self._pending + self.take(), []
        self.perform(pending)

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The room's actor (done once the room has closed)."""
        return self._task

    def queued(self) -> int:
        """Messages waiting for the actor."""
        return self._queue.qsize()

    def post(self, *message: Any) -> None:
        """Hand the room one message (the only way in). It goes on the room's queue, unless
        it finds the room idle (started, nothing queued, nothing being handled): then it is
        handled at once, in the actor's context, as the actor would have handled it a turn of
        the event loop later. Nothing is ahead of it either way, so the order of arrival is
        the order handled; what it saves is a task step per input (decision 0034)."""
        if self.closed:
            return
        context = self._context
        if self._busy or context is None or self._queue.qsize():
            self._queue.put_nowait(message)
            return
        try:
            context.run(self._take, message)
        except Exception:  # noqa: BLE001 - what ended the actor ends the room, not the caller
            log.exception("room %s: stopped after %s", self.code, message[0])
            self.closed = True
        if self.closed:  # the actor waits on its empty queue: woken, it sees and stops
            self._queue.put_nowait(("stop",))

    async def _run(self) -> None:
        tick = asyncio.get_running_loop().create_task(self._ticker())
        in_a_row = 0
        try:
            while not self.closed:
                if self._queue.empty():
                    in_a_row = 0  # the get below waits: the other tasks run meanwhile
                elif in_a_row >= MESSAGES_PER_TURN:
                    in_a_row = 0
                    await asyncio.sleep(0)
                message = await self._queue.get()
                if self.closed:  # closed by a message handled at once (``post``)
                    break
                in_a_row += 1
                self._take(message)
        finally:
            tick.cancel()
            self._shutdown()

    def _take(self, message: tuple[Any, ...]) -> None:
        """Handle one message: the recorder's batch opened around it, the clocks read once."""
        self._busy += 1
        recorder = self.recorder
        if recorder is not None:
            recorder.begin()
        try:
            self._handle(Now.read(), *message)
        except Exception:  # noqa: BLE001 - a bug costs one message, never the room
            log.exception("room %s: failed to handle %s", self.code, message[0])
            self.perform(self.take())  # what the input did before it failed
            self._recover()
        finally:
            try:
                if recorder is not None:
                    recorder.end(self.state)
            finally:
                self._busy -= 1

    async def _ticker(self) -> None:
        """The room's tick (``RoomCore.tick``: its pings, presence, idle close) every
        ``ping_seconds``, at a phase of its own: rooms started together (a restart restoring
        them, a burst of creations) would otherwise all tick, and ping all their connections, in
        the same turn of the event loop, a pause for every other room (docs/performance.md,
        "Pings"). The phase is kept on a grid of its own (``next_tick``), not counted from the
        last tick: after the loop stalled, every room whose tick fell in the stall ticks late in
        the same turn, and would have gone on ticking together every interval after it."""
        loop = asyncio.get_running_loop()
        due = loop.time() + random.random() * self._ping_seconds
        while True:
            await asyncio.sleep(max(0.0, due - loop.time()))
            self.post("tick")
            due = next_tick(due, self._ping_seconds, loop.time())

    def _handle(self, now: Now, kind: str, *args: Any) -> None:
        """One message, handled at ``now``: the clocks are read once per input, by ``_run``;
        the core, the loop timer (``_arm``) and the journal's record of the move take that
        time (docs/performance.md, "Where one move's time goes")."""
        if kind == "frame":
            conn, message = args
            logs.handling(conn)
            recorder = self.recorder
            if recorder is not None:
                if conn.gate is None:
                    conn.gate = recorder.gate
                self.journal_full = recorder.gate.full
            self.perform(self.frame(conn, message, now))
            return
        logs.handling(None)
        if kind == "closed":
            self.perform(self.closed_connection(args[0], now))
        elif kind == "timer":
            if args and args[0] == self._wake_seq:
                self._wake = None  # the armed one fired: the next ``WakeAt`` arms anew
            self.perform(self.timers_due(now))
        elif kind == "tick":
            self.perform(self.tick(now))
        elif kind == "saved":
            match, state, *match_id = args
            self.perform(self.saved(match, state, match_id[0] if match_id else None, now))
        elif kind == "bot":
            seat, generation, action = args
            self.perform(self.bot_decision(seat, generation, action, now))
        elif kind == "bots":
            self.perform(self.takeover_check(now))
        elif kind == "recover":
            self._recover()
        elif kind == "close":
            self.close_code = args[0] if args else CLOSE_ROOM_CLOSED
            self.closed = True

    def _recover(self) -> None:
        """After an input failed half-way: the core puts the room right (``recover``); if that
        fails too (the engine fails again), it is tried again a moment later."""
        try:
            self.perform(self.recover(Now.read()))
        except Exception:  # noqa: BLE001 - try again shortly rather than stay frozen
            log.exception("room %s: recovery failed; trying again", self.code)
            self.out.clear()
            self._recoveries += 1
            if self._recoveries <= RECOVERY_ATTEMPTS:
                asyncio.get_running_loop().call_later(
                    RECOVERY_DELAY_SECONDS * self._recoveries, self.post, "recover")
        else:
            self._recoveries = 0

    def _shutdown(self) -> None:
        """Every connection is closed; the registry forgets the room."""
        try:
            self.perform(self.shutdown(self.close_code, self.recorder is not None, Now.read()))
        finally:
            for handle in self._later.values():
                handle.cancel()
            self._later.clear()
            if self._wake is not None:
                self._wake.cancel()
                self._wake = None
            if self._on_close is not None:
                self._on_close(self)

    def resumed(self, elapsed: Mapping[str, float]) -> None:
        """A restored room, just started: its timers run on, its bots play, or its ended match
        is finished (app/realtime/durable/stored.py)."""
        self.perform(self.resume(elapsed, Now.read()))

    def on_saving(self, waiting: bool) -> None:
        """The journal waits for the database (or is through): every page hears it at once
        (docs/protocol.md, "Saving")."""
        self.perform(self.saving(waiting))

    # --- effects -----------------------------------------------------------------------------
    def perform(self, effects: list[Effect]) -> None:
        """Carry out the core's effects, in order (a message they post waits for the queue)."""
        self._busy += 1
        try:
            self._perform(effects)
        finally:
            self._busy -= 1

    def _perform(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, SendEach):
                for conn, text in effect.frames:
                    conn.send_text(text)
            elif isinstance(effect, Send):
                for conn in effect.conns:
                    conn.send_text(effect.text)
            elif isinstance(effect, Control):
                for conn in effect.conns:
                    conn.send_control(effect.text)
            elif isinstance(effect, WakeAt):
                self._arm(effect.at)
            elif isinstance(effect, Counted):
                if effect.frame is not None:
                    metrics.player_move(effect.game, effect.frame)
                else:
                    metrics.system_move(effect.game)
            elif isinstance(effect, Close):
                effect.conn.close(effect.code, effect.why)
            elif isinstance(effect, Later):
                self._post_later(effect)
            elif isinstance(effect, Cancel):
                handle = self._later.pop(effect.key, None)
                if handle is not None:
                    handle.cancel()
            elif isinstance(effect, Save):
                task = asyncio.get_running_loop().create_task(self._save(effect.record,
                                                                         effect.match))
                self._saving.add(task)
                task.add_done_callback(self._saving.discard)
            elif isinstance(effect, BadJoin):
                if effect.conn.on_bad_join is not None:
                    effect.conn.on_bad_join()
            elif isinstance(effect, Listed):
                if self.on_listed is not None:
                    self.on_listed(self)

    def _post_later(self, effect: Later) -> None:
        loop = asyncio.get_running_loop()
        if effect.key is None:
            loop.call_later(effect.delay, self.post, *effect.message)
            return
        old = self._later.pop(effect.key, None)
        if old is not None:
            old.cancel()
        self._later[effect.key] = loop.call_later(effect.delay, self.post, *effect.message)

    def _arm(self, at: float) -> None:
        """One loop timer for all the room's timers, armed for the soonest deadline; a later
        deadline needs no re-arming (see app/realtime/room/timers.py). The delay counts from the
        time of the input being handled (``state.now``, read once per input): the loop timer
        fires at most that input's handling time late, never early."""
        if self._wake is not None and self._wake_at <= at:
            return
        if self._wake is not None:
            self._wake.cancel()
        self._wake_at = at
        self._wake_seq += 1
        self._wake = asyncio.get_running_loop().call_later(
            max(0.0, at - self.state.now.mono), self.post, "timer", self._wake_seq)

    async def _save(self, record: MatchRecord, match: MatchRun) -> None:
        """Hand the match to the writer; the room hears "retrying" while the database is away
        and "saved" (with the id) once the database has it (docs/protocol.md, ``save_state``)."""
        try:
            match_id = await self._save_match(record, lambda state: self.post("saved", match, state))
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a failure must not kill the room; the outbox keeps it
            log.exception("room %s: could not save the match", self.code)
            self.post("saved", match, "retrying")
            return
        self.post("saved", match, "saved", match_id)
