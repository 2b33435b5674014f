"""The journal of open rooms: every change a room needs to be rebuilt, recorded before any client
sees its effects (docs/architecture.md, "Durable rooms").

Three parts:

- ``Journal``, one per process: takes operations (app/db/rooms.py) from every room, never
  blocking the caller, and writes everything the rooms queued in one turn of the event loop in
  one transaction on a database thread (group commit, through ``Database.run``); while that is
  written, the next batch gathers, so a busy server writes bigger batches. Batches are written
  in order, one at a time, so "durable up to ticket N" only ever grows. A failed batch (the
  database down or silent) is retried, whole and in order, with capped backoff; the rooms in it
  are told they are waiting ("saving") and told again once it is written.
- ``FrameGate``, one per room: every frame the room sends passes through it. Frames made while
  handling one input are tagged with the room's last ticket and go out only once the journal has
  that ticket durable; frames wait behind earlier frames of the room, in order. Pings and pongs
  (``Connection.send_control``) pass at once: they show no move, and holding them would falsify
  the round trips that a game's fairness may use (docs/fairness.md).
- ``RoomRecorder``, one per room: after each input the room handled, it queues what changed:
  the room and its members (rare, written whole; compared only when the input moved the room's
  ``revision``, which the parts of the room's core move whenever they change what is stored), a
  new match, and the match's new moves, each queued as itself. The room itself only calls
  ``begin``/``end``.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import deque
from collections.abc import Callable
from itertools import islice
from typing import TYPE_CHECKING, Any

from app.db.database import Database
from app.db.rooms import AddMove, DeleteRoom, RoomOp, write_ops
from app.realtime.durable.stored import fingerprint, save_room, start_match

if TYPE_CHECKING:
    from app.realtime.room.match import MatchRun
    from app.realtime.room.state import RoomState
    from app.realtime.transport.connection import Connection, Frame

log = logging.getLogger(__name__)

HOLD_SECONDS = 3.0
"""How long frames wait for a database that does not answer before the rooms play on unrecorded
(see ``Journal``)."""
MAX_BATCH = 2000
"""Operations in one transaction, at most (a backlog after an outage goes in several)."""
MAX_QUEUED = 100_000
"""Operations kept while the database is away; past this, they are dropped and every room is
written again whole once it is back."""
MAX_UNSAVED = 200
"""A room with more changes than this waiting for the database refuses further actions
(``saving``) while its frames are held."""
CAUGHT_UP_SECONDS = 0.5
"""An open journal closes again once its oldest waiting operation is younger than this."""
RETRY_FIRST_SECONDS = 0.05
RETRY_MAX_SECONDS = 2.0

_Entry = tuple[int, RoomOp, "FrameGate | None", float]
"""A queued operation: its ticket, the operation, the room's gate, when it was queued."""


class Journal:
    """Group-committed writes of every room's operations, in order, off the event loop.

    When the database does not answer, the rooms' frames wait for it, at most ``hold`` seconds
    (the oldest unwritten operation's age): past that the journal *opens*: frames go out without
    waiting (the games play on, as they did before rooms were recorded) while the operations stay
    queued and are written, in order, once the database is back; then the journal closes again.
    A crash while it is open loses the moves not yet written (docs/architecture.md, "Durable
    rooms"). Past ``max_queued`` operations the queue is dropped and every room is written again
    whole (every operation is idempotent) on its next input.
    """

    def __init__(self, db: Database, *,
                 hold: float = HOLD_SECONDS, retry_max: float = RETRY_MAX_SECONDS,
                 max_queued: int = MAX_QUEUED,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._db = db
        self._clock = clock
        """Seconds on a monotonic clock: how old a waiting operation is (the hold, the
        catch-up; a test passes a clock it moves by hand)."""
        self._hold = hold
        self._retry_max = retry_max
        self._max_queued = max_queued
        self._queue: deque[_Entry] = deque()
        self._generation = 0
        """Bumped when the queue is dropped (a batch in flight then no longer heads it)."""
        self._ok_generation = 0
        """The generation in which the database last took a write (or answered a ping)."""
        self._dropped = False
        self._issued = 0
        self.durable = 0
        """Every operation with a ticket up to this one is in the database (or was superseded)."""
        self.open = False
        """The database has kept the frames waiting too long: they go out without waiting."""
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self.failing_since: float | None = None
        """The clock's time of the first failure of the batch being retried, else None."""
        self._waiting_gates: set[FrameGate] = set()
        self._recorders: weakref.WeakSet[RoomRecorder] = weakref.WeakSet()
        self.batches = 0
        """Transactions written so far (for tests and measurements)."""
        self.on_back: Callable[[], None] | None = None
        """Told when the database answers again after failing (the match writer retries its
        outbox at once)."""

    @property
    def pending(self) -> int:
        """Operations queued, not yet durable (the "saves pending" of the metrics)."""
        return len(self._queue)

    @property
    def accepting(self) -> bool:
        """False after the queue was dropped, until the database answers again: the rooms then
        wait to write themselves again whole."""
        return self._ok_generation == self._generation

    def attach(self, recorder: RoomRecorder) -> None:
        self._recorders.add(recorder)

    def write(self, op: RoomOp, gate: FrameGate | None = None) -> int:
        """Queue ``op``; returns its ticket. ``gate`` hears when it is durable. Never blocks."""
        if len(self._queue) >= self._max_queued and self.failing_since is not None:
            self._drop_queue()
        self._issued += 1
        self._queue.append((self._issued, op, gate, self._clock()))
        self._wake.set()
        return self._issued

    async def wait(self, ticket: int, timeout: float) -> bool:
        """Whether ``ticket`` became durable within ``timeout`` seconds."""
        if self.durable >= ticket:
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((ticket, future))
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout)
            return True
        except TimeoutError:
            return False

    async def flush(self, timeout: float) -> bool:
        """Wait until everything queued so far is durable (at most ``timeout`` seconds)."""
        return await self.wait(self._issued, timeout)

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._run(), name="room-journal"),
                       loop.create_task(self._watch(), name="room-journal-watch")]

    async def stop(self, timeout: float = 3.0) -> None:
        """Write what is queued (within ``timeout``), then stop."""
        if not self._tasks:
            return
        if not await self.flush(timeout):
            log.error("journal: %d operations could not be written before the stop",
                      len(self._queue))
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except asyncio.CancelledError:
                pass
        self._tasks = []

    async def _run(self) -> None:
        """Write what is queued, batch after batch. No time window: woken by the first write of
        a turn of the event loop, the task runs in the next turn, after every room that handled
        an input in this one has queued its operations; and while a batch is being written,
        whatever comes in waits and goes in the next one. A quiet server writes each move at
        once (no wait added to its frames); a busy one writes a batch per transaction's time
        (docs/decisions/0032-journal-batched-by-the-loop.md)."""
        delay = RETRY_FIRST_SECONDS
        while True:
            if not self._queue:
                self._wake.clear()
                if self.accepting and not self.open:
                    await self._wake.wait()
                else:  # nothing to write, but the database is to be watched
                    try:
                        await asyncio.wait_for(self._wake.wait(), self._retry_max)
                    except TimeoutError:
                        await self._probe()
                        continue
            generation = self._generation
            batch = list(islice(self._queue, MAX_BATCH))
            if not batch:
                continue
            ops, fences = _writable(batch)
            try:
                gone = await self._db.write(write_ops, self._db, ops, fences)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - retried until the database has it
                self._failed(batch, error)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._retry_max)
                continue
            delay = RETRY_FIRST_SECONDS
            if generation == self._generation:
                self._ok_generation = generation
                for _ in batch:
                    self._queue.popleft()
            self.batches += 1
            if gone:
                _fence(batch, gone)
            self._written(batch[-1][0], {entry[2] for entry in batch if entry[2] is not None})

    async def _probe(self) -> None:
        """With nothing queued: whether the database answers again."""
        generation = self._generation
        if await self._db.ping_within(self._db.deadline) and generation == self._generation:
            self._ok_generation = generation
            self._written(self._issued, set())

    async def _watch(self) -> None:
        """Open the journal when the oldest waiting operation has waited ``hold`` seconds."""
        period = min(0.25, self._hold / 4)
        while True:
            await asyncio.sleep(period)
            if not self.open and self._queue \
                    and self._clock() - self._queue[0][3] > self._hold:
                self._open()

    def _open(self) -> None:
        log.error("journal: the database has not answered for %.1f s; rooms play on while %d "
                  "operations wait for it", self._hold, len(self._queue))
        self.open = True
        for recorder in list(self._recorders):
            recorder.gate.let_out(recorder.gate.ticket)
            if recorder.gate in self._waiting_gates:
                self._waiting_gates.discard(recorder.gate)
                recorder.gate.saving(False)

    def _drop_queue(self) -> None:
        log.error("journal: %d operations waiting; dropped, every room will be written again "
                  "whole", len(self._queue))
        self._queue.clear()
        self._generation += 1
        self._dropped = True
        for recorder in list(self._recorders):
            recorder.reset()

    def _failed(self, batch: list[_Entry],
                error: Exception) -> None:
        if self.failing_since is None:
            self.failing_since = self._clock()
            log.error("journal: the database did not take %d operations (%s); retrying",
                      len(batch), str(error).splitlines()[0] if str(error) else type(error))
        if self.open:
            return
        for entry in batch:
            gate = entry[2]
            if gate is not None and gate not in self._waiting_gates:
                self._waiting_gates.add(gate)
                gate.saving(True)

    def _written(self, ticket: int, gates: set[FrameGate]) -> None:
        self.durable = max(self.durable, ticket)
        if self.failing_since is not None:
            log.warning("journal: the database is back after %.1f s",
                        self._clock() - self.failing_since)
            self.failing_since = None
            if self.on_back is not None:
                self.on_back()
        if not self._queue:  # all written (or dropped and superseded): every ticket is clear
            self.durable = self._issued
            if self._dropped:  # gates whose operations were dropped hear it here
                self._dropped = False
                gates = gates | {r.gate for r in list(self._recorders)}
        if self.open and (not self._queue
                          or self._clock() - self._queue[0][3] < CAUGHT_UP_SECONDS):
            log.warning("journal: the database has caught up; frames wait for it again")
            self.open = False
        for gate in gates:
            if gate in self._waiting_gates:
                self._waiting_gates.discard(gate)
                gate.saving(False)
            gate.release(self.durable)
        if self._waiters:
            still = []
            for wanted, future in self._waiters:
                if wanted <= self.durable:
                    if not future.done():
                        future.set_result(None)
                else:
                    still.append((wanted, future))
            self._waiters = still


def _writable(batch: list[_Entry]) -> tuple[list[RoomOp], dict[str, int] | None]:
    """The operations of ``batch`` to write, and the fencing tokens of their rooms (several
    processes; None with none). A fenced room's operations (its lease went to another node) are
    never written, and with several processes the database refuses those of an owner it knows
    is gone."""
    ops: list[RoomOp] = []
    fences: dict[str, int] | None = None
    for _, op, gate, _ in batch:
        if gate is None:
            ops.append(op)
            continue
        if gate.lease_fence is not None:
            if fences is None:
                fences = {}
            fences[op.code] = gate.lease_fence
        if not gate.fenced:
            ops.append(op)
    return ops, fences


def _fence(batch: list[_Entry], gone: set[str]) -> None:
    """The database refused these rooms' operations: another node owns them now, so their
    frames never go out."""
    for _, op, gate, _ in batch:
        if gate is not None and not gate.fenced and op.code in gone:
            gate.fence()
            if gate.on_fenced is not None:
                gate.on_fenced()


class FrameGate:
    """Holds a room's frames until the journal has every change they show (in order)."""

    __slots__ = ("_ticket", "_own", "durable", "_held", "_batch", "on_saving", "journal",
                 "fenced", "lease_fence", "on_fenced", "__weakref__")

    def __init__(self, journal: Journal | None = None) -> None:
        self._ticket = 0
        self._own: deque[int] = deque()
        """The room's own tickets not yet durable, oldest first (``unsaved``)."""
        self.durable = 0
        """The journal's durable ticket as this gate last heard it."""
        self._held: deque[tuple[int, Connection, Frame]] = deque()
        """Frames waiting for the journal, each with the ticket it waits for: a text frame's
        bytes, or a message (a close)."""
        self._batch: list[tuple[Connection, Frame]] | None = None
        self.on_saving: Callable[[bool], None] | None = None
        """Told True when the room's changes wait for the database, False when they are in."""
        self.journal = journal
        self.fenced = False
        """The room's lease went to another node (several processes): nothing it did since
        is written, and no frame of it goes out but the closes (``fence``)."""
        self.lease_fence: int | None = None
        """Several processes: the room's fencing token from its lease (``lease.py``); the
        database writes the room's operations only while no higher token is recorded."""
        self.on_fenced: Callable[[], None] | None = None
        """Told when the database refused the room's operations (a higher token is recorded:
        another node took the room over before this one noticed): the room stops."""

    @property
    def held(self) -> int:
        """Frames waiting for the journal."""
        return len(self._held)

    @property
    def ticket(self) -> int:
        """The room's last ticket."""
        return self._ticket

    @ticket.setter
    def ticket(self, ticket: int) -> None:
        """The room wrote an operation with this ticket (``Journal.write``'s answer)."""
        if ticket > self._ticket:
            self._ticket = ticket
            self._own.append(ticket)

    @property
    def unsaved(self) -> int:
        """The room's own operations not yet durable. Tickets are numbered across every room of
        the process, so the distance from the last durable ticket would count the other rooms'
        operations too."""
        return len(self._own)

    @property
    def full(self) -> bool:
        """Too many of the room's changes wait, with their frames held: refuse more actions."""
        journal = self.journal
        return self.unsaved > MAX_UNSAVED and not (journal is not None and journal.open)

    def fence(self) -> None:
        """The room lost its lease (docs/architecture.md, "Several processes"): its frames not
        yet out may show moves that will never be written (the journal skips a fenced room's
        operations), so they are dropped; from now on only closes go out (the pages reconnect
        to the room's new owner, whose state is the truth)."""
        self.fenced = True
        held, self._held = self._held, deque()
        for _, conn, frame in held:
            if _is_close(frame):
                conn.write_now(frame)

    def send(self, conn: Connection, frame: Frame) -> None:
        if self.fenced:
            if _is_close(frame):
                conn.write_now(frame)
            return
        if self._batch is not None:
            self._batch.append((conn, frame))
        elif self._held:
            self._held.append((self._ticket, conn, frame))
        else:
            conn.write_now(frame)

    def begin(self) -> None:
        """The room starts handling an input: its frames are gathered."""
        self._batch = []

    def end(self) -> None:
        """The input is handled (and its changes queued): its frames go out when durable."""
        batch, self._batch = self._batch, None
        if not batch:
            return
        if self.fenced:
            for conn, frame in batch:
                if _is_close(frame):
                    conn.write_now(frame)
            return
        journal = self.journal
        tag = self._ticket
        if not self._held and (self.durable >= tag or (journal is not None and journal.open)):
            for conn, frame in batch:
                conn.write_now(frame)
            return
        held = self._held
        for conn, frame in batch:
            held.append((tag, conn, frame))

    def release(self, durable: int) -> None:
        """The journal has everything up to ``durable``: the frames waiting for it go out."""
        if durable > self.durable:
            self.durable = durable
        own = self._own
        while own and own[0] <= durable:
            own.popleft()
        self.let_out(durable)

    def let_out(self, upto: int) -> None:
        """The frames tagged up to ``upto`` go out (also when the journal opens: they no longer
        wait, though their operations are not written yet and still count as unsaved)."""
        held = self._held
        while held and held[0][0] <= upto:
            _, conn, frame = held.popleft()
            conn.write_now(frame)

    def saving(self, waiting: bool) -> None:
        if self.on_saving is not None:
            self.on_saving(waiting)


def _is_close(frame: Frame) -> bool:
    """Whether a held frame is a close (a text frame is its bytes)."""
    return isinstance(frame, dict) and frame["type"] == "websocket.close"


class RoomRecorder:
    """Records one room's changes in the journal and gates its frames (see the module doc)."""

    def __init__(self, journal: Journal, code: str) -> None:
        self.journal = journal
        self.code = code
        self.gate = FrameGate(journal)
        self._fingerprint: tuple[Any, ...] | None = None
        self._revision = -1
        """The room's ``revision`` when its fingerprint was last compared."""
        self._match: MatchRun | None = None
        self._logged = 0
        self._stale = False
        journal.attach(self)

    def reset(self) -> None:
        """The journal dropped its queue: once the database answers again, the next ``record``
        writes the room whole again (until then the room plays on unrecorded)."""
        self._fingerprint = None
        self._match = None
        self._logged = 0
        self._stale = True

    def begin(self) -> None:
        self.gate.begin()

    def end(self, state: RoomState) -> None:
        """After an input: queue what changed, then let the input's frames follow it."""
        try:
            self.record(state)
        finally:
            self.gate.end()

    def adopt(self, state: RoomState) -> None:
        """A restored room: what the database holds already is not written again; but a match
        that lost moves the rules now refuse (``state.dropped_moves``) is written again whole,
        so its rows lose them too (a new match start replaces the match and its moves)."""
        self._fingerprint = fingerprint(state)
        self._revision = state.revision
        self._match = state.match if not state.dropped_moves else None
        self._logged = len(state.match.log) if state.match is not None else 0

    def record(self, state: RoomState) -> int:
        """Queue the room's changes since the last call (converted by
        app/realtime/durable/stored.py); returns the room's last ticket."""
        if self._stale:
            if not self.journal.accepting:
                return self.gate.ticket
            self._stale = False
        if state.revision != self._revision or self._fingerprint is None:
            # Only after an input that touched the room (``RoomState.revision``): a move of the
            # match is what most inputs are, and it is queued as itself below.
            self._revision = state.revision
            now_fingerprint = fingerprint(state)
            if now_fingerprint != self._fingerprint:
                self._fingerprint = now_fingerprint
                self._write(save_room(state))
        match = state.match
        if match is not None and match is not self._match:
            self._match, self._logged = match, 0
            self._write(start_match(state, match))
        if match is not None and len(match.log) > self._logged:
            now = state.now.wall  # the input's time, read once by the actor
            for seq in range(self._logged + 1, len(match.log) + 1):
                self._write(AddMove(self.code, seq, match.log.entry(seq - 1), now))
            self._logged = len(match.log)
        return self.gate.ticket

    def forget(self) -> None:
        """The room closed for good: its rows go."""
        self.journal.write(DeleteRoom(self.code))

    def _write(self, op: RoomOp) -> None:
        self.gate.ticket = self.journal.write(op, self.gate)
