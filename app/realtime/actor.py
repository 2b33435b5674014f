"""The room actor: one asyncio task per room, its queue the only door to the room's state.

Every input (a client's frame, a closed connection, a timer, the periodic tick, a saved match)
is a message on the queue (``Message``, app/realtime/room/effects.py: one class per kind),
handled one at a time in arrival order: arrival order at the actor is the arbitration order.
The actor holds the room's core (``RoomCore``, app/realtime/room/core.py), which makes every
decision: for each message the actor reads the clocks once, hands the core the input and the
time, and performs the effects it gets back, in order: frames through the connections (and the
durable room's frame gate), closes, messages posted back after a delay, the one loop timer for
the room's timers, the save of a finished match, the metrics (docs/architecture.md, "The room's
core"). Messages and effects are dispatched by ``match`` on their class alone, their fields
read as attributes: positional sub-patterns would make CPython 3.11 build a string and look up
``__match_args__`` each time one matches, on every move (docs/decisions/0055).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

from app import logs, metrics
from app.db.matches import MatchRecord
from app.engine import Game
from app.realtime.durable.journal import RoomRecorder
from app.realtime.room.core import CLOSE_ROOM_CLOSED, CLOSE_SERVER_RESTARTING, RoomCore
from app.realtime.room.effects import (
    BadJoin,
    BotDecision,
    Cancel,
    Close,
    Closed,
    CloseRoom,
    Control,
    Counted,
    Effect,
    Frame,
    Later,
    Listed,
    Message,
    Now,
    Recover,
    Save,
    Saved,
    Send,
    SendEach,
    TakeoverCheck,
    Tick,
    TimerFired,
    WakeAt,
)
from app.realtime.room.match import MatchRun
from app.realtime.room.members import Member
from app.realtime.room.state import RoomState, SocketPolicy
from app.realtime.room.tokens import SeatTokens
from app.realtime.transport.connection import Connection
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


class Room:
    """A room: the actor that holds its core (``core``: the state and every decision), feeds
    it one message at a time and performs its effects."""

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
        self._queue: asyncio.Queue[Message | None] = asyncio.Queue()
        """The messages waiting; ``None`` only wakes the actor to see its room closed."""
        self._later: dict[Any, asyncio.TimerHandle] = {}
        """Messages posted back after a delay, under their key (``Later``)."""
        self._wake: asyncio.TimerHandle | None = None
        self._wake_at = 0.0
        self._wake_seq = 0
        """Numbers the loop timers armed: a ``TimerFired`` says which one fired."""
        self.core = RoomCore(code=code, game=game, public=public, tokens=tokens, now=Now.read(),
                             idle_seconds=idle_seconds, ping_seconds=ping_seconds, policy=policy)
        self.close_code = CLOSE_ROOM_CLOSED
        self._save_match = save_match
        self._ping_seconds = ping_seconds
        self.inbox = TokenBucket(self.core.state.policy.room_frames_per_second)
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
        self._pending = self.core.take()  # an open table's first match, performed once started

    @property
    def state(self) -> RoomState:
        """The room's state (the core's: app/realtime/room/state.py), for those who read it."""
        return self.core.state

    # --- what the registry and the pages ask of the room ----------------------------------------
    def room_frame(self) -> dict[str, Any]:
        """The room as its ``room`` frame shows it (docs/protocol.md)."""
        return self.core.room_frame()

    def add_member(self, nickname: str) -> Member:
        """A new member: the host of a room being created, before the room starts."""
        return self.core.add_member(nickname)

    def token_for(self, member: Member) -> str:
        """The seat token that brings ``member`` back to this room."""
        return self.core.token_for(member)

    # --- the actor ---------------------------------------------------------------------------
    def start(self, on_close: Callable[[Room], None]) -> None:
        self._on_close = on_close
        self._context = contextvars.copy_context()
        self._context.run(logs.bind_room, self.core.state)
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"room-{self.core.state.code}", context=self._context)
        pending, self._pending = self._pending + self.core.take(), []
        self.perform(pending)

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The room's actor (done once the room has closed)."""
        return self._task

    def queued(self) -> int:
        """Messages waiting for the actor."""
        return self._queue.qsize()

    def post(self, message: Message) -> None:
        """Hand the room one message (the only way in). It goes on the room's queue, unless
        it finds the room idle (started, nothing queued, nothing being handled): then it is
        handled at once, in the actor's context, as the actor would have handled it a turn of
        the event loop later. Nothing is ahead of it either way, so the order of arrival is
        the order handled; what it saves is a task step per input (decision 0034)."""
        state = self.core.state
        if state.closed:
            return
        context = self._context
        if self._busy or context is None or self._queue.qsize():
            self._queue.put_nowait(message)
            return
        try:
            context.run(self._take, message)
        except Exception:  # noqa: BLE001 - what ended the actor ends the room, not the caller
            log.exception("room %s: stopped after %s", state.code, type(message).__name__)
            state.closed = True
        if state.closed:  # the actor waits on its empty queue: woken, it sees and stops
            self._queue.put_nowait(None)

    async def _run(self) -> None:
        tick = asyncio.get_running_loop().create_task(self._ticker())
        state = self.core.state
        in_a_row = 0
        try:
            while not state.closed:
                if self._queue.empty():
                    in_a_row = 0  # the get below waits: the other tasks run meanwhile
                elif in_a_row >= MESSAGES_PER_TURN:
                    in_a_row = 0
                    await asyncio.sleep(0)
                message = await self._queue.get()
                if state.closed or message is None:  # closed by a message handled at once
                    break
                in_a_row += 1
                self._take(message)
        finally:
            tick.cancel()
            self._shutdown()

    def _take(self, message: Message) -> None:
        """Handle one message: the recorder's batch opened around it, the clocks read once."""
        self._busy += 1
        recorder = self.recorder
        if recorder is not None:
            recorder.begin()
        try:
            self._handle(message, Now.read())
        except Exception:  # noqa: BLE001 - a bug costs one message, never the room
            log.exception("room %s: failed to handle %s", self.core.state.code,
                          type(message).__name__)
            self.perform(self.core.take())  # what the input did before it failed
            self._recover()
        finally:
            try:
                if recorder is not None:
                    recorder.end(self.core.state)
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
            self.post(Tick())
            due = next_tick(due, self._ping_seconds, loop.time())

    def _handle(self, message: Message, now: Now) -> None:
        """One message, handled at ``now``: the clocks are read once per input, by ``_take``;
        the core, the loop timer (``_arm``) and the journal's record of the move take that
        time (docs/performance.md, "Where one move's time goes")."""
        match message:
            case Frame():
                conn = message.conn
                logs.handling(conn)  # the lines logged meanwhile name its member
                core = self.core
                recorder = self.recorder
                if recorder is not None:
                    gated = cast(Connection, conn)  # the endpoint's, or the relay's
                    if gated.gate is None:
                        gated.gate = recorder.gate
                    core.state.journal_full = recorder.gate.full
                self._perform(core.frame(conn, message.message, now))
            case _:
                logs.handling(None)
                self._perform(self._input(message, now))

    def _input(self, message: Message, now: Now) -> list[Effect]:
        """The core's input for a message other than a client's frame (``_handle``), and the
        effects it returns; the two messages that are the actor's own (``Recover``,
        ``CloseRoom``) return none."""
        core = self.core
        match message:
            case Closed():
                return core.closed_connection(message.conn, now)
            case TimerFired():
                if message.armed == self._wake_seq:
                    self._wake = None  # the armed one fired: the next ``WakeAt`` arms anew
                return core.timers_due(now)
            case Tick():
                return core.tick(now)
            case Saved():
                return core.saved(message.match, message.news, message.match_id, now)
            case BotDecision():
                return core.bot_decision(message.seat, message.generation, message.action, now)
            case TakeoverCheck():
                return core.takeover_check(now)
            case Recover():
                self._recover()
            case CloseRoom():
                self.close_code = message.code
                core.state.closed = True
        return []

    def _recover(self) -> None:
        """After an input failed half-way: the core puts the room right (``recover``); if that
        fails too (the engine fails again), it is tried again a moment later."""
        try:
            self.perform(self.core.recover(Now.read()))
        except Exception:  # noqa: BLE001 - try again shortly rather than stay frozen
            log.exception("room %s: recovery failed; trying again", self.core.state.code)
            self.core.out.clear()
            self._recoveries += 1
            if self._recoveries <= RECOVERY_ATTEMPTS:
                asyncio.get_running_loop().call_later(
                    RECOVERY_DELAY_SECONDS * self._recoveries, self.post, Recover())
        else:
            self._recoveries = 0

    def _shutdown(self) -> None:
        """Every connection is closed; the registry forgets the room."""
        try:
            self.perform(self.core.shutdown(self.close_code, self.recorder is not None,
                                            Now.read()))
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
        self.perform(self.core.resume(elapsed, Now.read()))

    def on_saving(self, waiting: bool) -> None:
        """The journal waits for the database (or is through): every page hears it at once
        (docs/protocol.md, "Saving")."""
        self.perform(self.core.saving(waiting))

    # --- effects -----------------------------------------------------------------------------
    def perform(self, effects: list[Effect]) -> None:
        """Carry out the core's effects, in order, outside an input (a message they post waits
        for the queue)."""
        self._busy += 1
        try:
            self._perform(effects)
        finally:
            self._busy -= 1

    def _perform(self, effects: list[Effect]) -> None:
        """Carry out the effects of the input being handled, in order (``_busy`` is already
        counted: a message they post waits for the queue). A move's own come first: its frames,
        the loop timer, the count; the rest are the room's life (``_perform_other``)."""
        for effect in effects:
            match effect:
                case SendEach():
                    for conn, data in effect.frames:
                        conn.send_text(data)
                case Send():
                    data = effect.text
                    for conn in effect.conns:
                        conn.send_text(data)
                case WakeAt():
                    self._arm(effect.at)
                case Counted():
                    _count(effect)
                case _:
                    self._perform_other(effect)

    def _perform_other(self, effect: Effect) -> None:
        """An effect of the room's life rather than of a move: pings and pongs, a close, a
        message to post back later (or no longer), a finished match to save, a failed join,
        the room's place in the lobby."""
        match effect:
            case Control():
                text = effect.text
                for conn in effect.conns:
                    conn.send_control(text)
            case Close():
                effect.conn.close(effect.code, effect.why)
            case Later():
                self._post_later(effect)
            case Cancel():
                self._cancel(effect.key)
            case Save():
                self._start_save(effect.record, effect.match)
            case BadJoin():
                if effect.conn.on_bad_join is not None:
                    effect.conn.on_bad_join()
            case Listed():
                if self.on_listed is not None:
                    self.on_listed(self)

    def _post_later(self, effect: Later) -> None:
        loop = asyncio.get_running_loop()
        if effect.key is None:
            loop.call_later(effect.delay, self.post, effect.message)
            return
        self._cancel(effect.key)
        self._later[effect.key] = loop.call_later(effect.delay, self.post, effect.message)

    def _cancel(self, key: Any) -> None:
        """Drop the message pending under ``key``, if one is."""
        handle = self._later.pop(key, None)
        if handle is not None:
            handle.cancel()

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
            max(0.0, at - self.core.state.now.mono), self.post, TimerFired(self._wake_seq))

    def _start_save(self, record: MatchRecord, match: MatchRun) -> None:
        task = asyncio.get_running_loop().create_task(self._save(record, match))
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    async def _save(self, record: MatchRecord, match: MatchRun) -> None:
        """Hand the match to the writer; the room hears "retrying" while the database is away
        and "saved" (with the id) once the database has it (docs/protocol.md, ``save_state``)."""
        try:
            match_id = await self._save_match(record,
                                              lambda news: self.post(Saved(match, news)))
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a failure must not kill the room; the outbox keeps it
            log.exception("room %s: could not save the match", self.core.state.code)
            self.post(Saved(match, "retrying"))
            return
        self.post(Saved(match, "saved", match_id))


def _count(counted: Counted) -> None:
    """A move in the metrics: a player's, timed from its frame's arrival, or the rules' own."""
    if counted.frame is not None:
        metrics.player_move(counted.game, counted.frame)
    else:
        metrics.system_move(counted.game)
