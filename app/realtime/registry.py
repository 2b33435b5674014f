"""The rooms open in this process, by code; creating a room picks a fresh short code.

With several processes (``REDIS_URL``) the registry also keeps this node's room leases
(``lease.py``): it renews them, stops a room whose lease it lost (1012, nothing more written),
takes over the rooms of nodes that died or stopped (rebuilt from the database by
``durable/stored.py``), and lets its leases go after a graceful stop (docs/architecture.md,
"Several processes").
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from datetime import UTC, datetime
from typing import Any

from app.db.database import Database, DatabaseUnavailable
from app.db.matches import MatchRecord, save_match
from app.db.outbox import MatchWriter, SaveState
from app.db.rooms import StoredRoom
from app.engine import Game
from app.logs import cause
from app.realtime.actor import CLOSE_SERVER_RESTARTING, Room
from app.realtime.cluster.lease import Entry
from app.realtime.cluster.relay import REDIS_DOWN, Cluster
from app.realtime.durable.journal import Journal, RoomRecorder
from app.realtime.room.effects import CloseRoom
from app.realtime.room.members import Member
from app.realtime.room.state import SocketPolicy
from app.realtime.room.tokens import SeatTokens

log = logging.getLogger(__name__)

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ"
"""Capital letters without the look-alikes I, L and O (read as 1 and 0)."""
CODE_LENGTH = 4
CREATE_WAIT_SECONDS = 2.0
"""Durable rooms: how long creating a room waits for its first record (docs/architecture.md)."""


OUTAGES: tuple[type[Exception], ...] = (*REDIS_DOWN, DatabaseUnavailable)
"""Redis or the database away: an expected outage, logged as one line with its cause and no
traceback; any other error is a bug and keeps its traceback (docs/decisions/0045)."""


class RoomLimitReached(Exception):
    """The process holds as many rooms as it is allowed to."""


class RoomRegistry:
    """Creates rooms, finds them by code, and forgets them when their actor stops."""

    def __init__(
        self,
        *,
        db: Database,
        tokens: SeatTokens,
        idle_seconds: float = 600.0,
        ping_seconds: float = 5.0,
        max_rooms: int = 5000,
        cluster: Cluster | None = None,
        policy: SocketPolicy | None = None,
    ) -> None:
        self.rooms: dict[str, Room] = {}
        self.cluster = cluster
        self._lease_tasks: list[asyncio.Task[None]] = []
        self._taking: dict[str, asyncio.Future[Room | None]] = {}
        """Rooms being taken over by this node, until they are ready (or found gone)."""
        self._renewed_at = time.monotonic()
        """When the last renewal of this node's leases that Redis confirmed was sent."""
        self._pending: set[asyncio.Task[None]] = set()
        self._closing = False
        self._database_away = False
        """A takeover could not read its room for a database outage, and none has since: the
        sweep waits for its next pass, and the next failures are logged at debug level."""
        self.tokens = tokens
        self._db = db
        self._idle_seconds = idle_seconds
        self._ping_seconds = ping_seconds
        self._max_rooms = max_rooms
        self.policy = policy or SocketPolicy()

    def new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.rooms:
                return code

    async def create(
        self, *, game: Game, public: bool, host_nickname: str, options: dict[str, Any] | None = None
    ) -> tuple[Room, Member, str]:
        """A new running room with its host member; returns the room, the host and their token.

        With a cluster, the code is also reserved in the shared directory (unique across nodes).
        """
        if len(self.rooms) >= self._max_rooms:
            raise RoomLimitReached()
        parsed = game.parse_options(options).model_dump(mode="json") if options else None
        code = self.new_code()
        fence = None
        if self.cluster is not None:  # the code and its lease, unique across the nodes
            summary = {"game": game.id, "title": game.title, "public": public,
                       "status": "waiting", "players": 1, "max_players": game.max_players,
                       "host": host_nickname}
            # Not in the lobby until a person's page is in the room (docs/decisions/0044).
            while not (fence := await self.cluster.leases.claim(
                    Entry(code, {"code": code, **summary}, False))):
                code = self.new_code()
        room = self._new_room(code=code, game=game, public=public)
        if room.recorder is not None:
            if fence is not None:  # rows of an older room of this code follow the new owner
                try:
                    fence = await self._fence(code, fence)
                except OUTAGES as error:  # the database is away: the journal waits
                    log.warning("could not record the fencing token of room %s (%s)", code,
                                cause(error))
                except Exception:  # noqa: BLE001 - a bug: the room is made all the same
                    log.exception("could not record the fencing token of room %s", code)
            room.recorder.gate.lease_fence = fence
        if parsed is not None:
            room.state.options = parsed
        host = room.add_member(host_nickname)
        self.rooms[code] = room
        if room.recorder is not None:  # the host's token names a member the database has
            assert self.journal is not None
            await self.journal.wait(room.recorder.record(room.state), CREATE_WAIT_SECONDS)
            room.state.last_activity = time.monotonic()  # its idle time counts from now
        room.start(on_close=self._forget)
        return room, host, room.token_for(host)

    def _new_room(self, *, code: str, game: Game, public: bool) -> Room:
        room = Room(
            code=code, game=game, public=public, tokens=self.tokens,
            save_match=self._save, idle_seconds=self._idle_seconds,
            ping_seconds=self._ping_seconds, policy=self.policy,
        )
        if self.journal is not None:
            room.recorder = RoomRecorder(self.journal, code)
            room.recorder.gate.on_saving = room.on_saving
            if self.cluster is not None:
                room.recorder.gate.on_fenced = lambda: self._lose(code, room)
        if self.cluster is not None:
            room.on_listed = self._list_now
        return room

    async def restore(self) -> int:
        """Durable rooms, at start: every recorded room comes back (``durable/stored.py``), except
        those idle past the idle time, which are deleted. With a cluster, only the rooms whose
        lease this node can take (nobody owns them: their node died or stopped) come back here,
        and only those it holds are deleted. Returns the number restored."""
        from app.db.rooms import delete_rooms, load_room, load_rooms

        if self.journal is None:
            return 0
        stored = await self._db.run(load_rooms, self._db, deadline=max(30.0, self._db.deadline))
        stale: list[str] = []
        restored = 0
        for found in stored:
            room_data: StoredRoom | None = found
            fence = None
            if found.code in self.rooms:
                continue
            if self.cluster is not None:
                fence = await self.cluster.leases.acquire(found.code)
                if not fence:
                    continue  # alive on another node
                # Fenced: its last owner writes nothing more; read what it wrote last.
                fence = await self._fence(found.code, fence)
                room_data = await self._db.run(load_room, self._db, found.code)
                if room_data is None:
                    stale.append(found.code)
                    continue
            assert room_data is not None
            if self._is_idle(room_data) or not self._rebuild(room_data, fence):
                stale.append(room_data.code)
                continue
            restored += 1
        if stale:
            await self._db.run(delete_rooms, self._db, stale)
            if self.cluster is not None:
                await self.cluster.leases.release(stale, forget=True)
        log.info("restored %d rooms; deleted %d idle or broken ones", restored, len(stale))
        return restored

    async def _fence(self, code: str, fence: int) -> int:
        """Record this node's fencing token for room ``code`` in the database (``claim_room``);
        the token it ends up with (a higher one if Redis had lost its counter)."""
        from app.db.rooms import claim_room

        assert self.cluster is not None
        recorded = await self._db.run(claim_room, self._db, code, fence)
        if recorded > fence:
            fence = await self.cluster.leases.fence_above(code, recorded)
            await self._db.run(claim_room, self._db, code, fence)
        return fence

    def _is_idle(self, room_data: StoredRoom) -> bool:
        idle = (datetime.now(UTC) - room_data.last_activity).total_seconds()
        return idle > self._idle_seconds

    def _rebuild(self, room_data: StoredRoom, fence: int | None = None) -> Room | None:
        """One recorded room, rebuilt and running in this process (None when it cannot be);
        ``fence``: this process's fencing token for it (several processes)."""
        from app.realtime.durable.stored import restore_room

        try:
            room, elapsed = restore_room(room_data, self._new_room)
        except Exception:  # noqa: BLE001 - one bad room must not keep the site down
            log.exception("could not restore room %s; deleting it", room_data.code)
            return None
        assert room.recorder is not None
        room.recorder.gate.lease_fence = fence
        room.recorder.adopt(room.state)
        self.rooms[room.state.code] = room
        room.start(on_close=self._forget)
        room.resumed(elapsed)
        room.recorder.record(room.state)
        return room

    async def take_over(self, code: str) -> Room | None:
        """With a cluster: the room ``code`` whose lease nobody holds, rebuilt here from the
        database (its owner died or stopped). None when another node took it first, or when it
        is recorded nowhere (then its directory entry goes)."""
        assert self.cluster is not None
        code = code.upper()
        room = self.get(code)
        if room is not None and not room.state.closed:
            return room
        taking = self._taking.get(code)
        if taking is not None:
            return await asyncio.shield(taking)
        if self._closing:
            return None
        fence = await self.cluster.leases.acquire(code)
        if not fence:
            return None
        future: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
        self._taking[code] = future
        self.cluster.hold(code)
        room = None
        try:
            room = await self._take_over(code, fence)
        finally:
            del self._taking[code]
            future.set_result(room)
            self.cluster.unhold(code)
        return room

    async def _take_over(self, code: str, fence: int) -> Room | None:
        from app.db.rooms import delete_rooms, load_room

        assert self.cluster is not None
        stored = None
        if self.journal is not None:
            try:
                # The last owner's writes end here (its journal's later batches are refused);
                # one in progress finishes first, and the read below sees it.
                fence = await self._fence(code, fence)
                stored = await self._db.run(load_room, self._db, code)
            except OUTAGES as error:  # the database is away: let another try later
                # One line for the outage, not one a room and a pass of the sweeper.
                log.log(logging.DEBUG if self._database_away else logging.WARNING,
                        "could not read room %s to take it over (%s); the rooms of stopped "
                        "nodes are taken over once it answers", code, cause(error))
                self._database_away = True
                await self.cluster.leases.release([code], forget=False)
                return None
            except Exception:  # noqa: BLE001 - a bug: let another try later
                log.exception("could not read room %s to take it over", code)
                await self.cluster.leases.release([code], forget=False)
                return None
            self._database_away = False
        room = None
        if stored is not None and not self._is_idle(stored):
            room = self._rebuild(stored, fence)
        if room is None:
            if stored is not None:
                try:
                    await self._db.run(delete_rooms, self._db, [code])
                except OUTAGES as error:  # its rows go at the next restore of any node
                    log.warning("could not delete idle room %s (%s)", code, cause(error))
            await self.cluster.leases.release([code], forget=True)
            return None
        try:  # its directory entry now names this node (else the next renewal writes it)
            await self.cluster.leases.renew([self._entry(room)])
        except REDIS_DOWN as error:  # the renewal loop tries again
            self.cluster.outage.failed(f"writing the directory entry of room {code}", error)
        except Exception:  # noqa: BLE001 - a bug: the renewal loop tries again
            log.exception("could not write the directory entry of room %s", code)
        log.info("took room %s over", code)
        return room

    async def locate(self, code: str) -> tuple[Room | None, str | None]:
        """Where room ``code`` lives: (the room, None) when here, taken over here if nobody
        owned it; (None, the owning node) when elsewhere; (None, None) when nowhere."""
        code = code.upper()
        room = self.get(code)
        if room is not None and not room.state.closed:
            return room, None
        if self.cluster is None:
            return None, None
        owner = await self.cluster.leases.owner(code)
        if owner is None or owner == self.cluster.node:
            room = await self.take_over(code) if owner is None else None
            if owner == self.cluster.node and code in self._taking:
                room = await asyncio.shield(self._taking[code])
            if room is not None:
                return room, None
            owner = await self.cluster.leases.owner(code)  # another node was quicker
            if owner == self.cluster.node:
                return None, None
        return None, owner

    def get(self, code: str) -> Room | None:
        return self.rooms.get(code.upper())

    @staticmethod
    def summary(room: Room) -> dict[str, Any]:
        """What the lobby and the directory show of a room: what anyone who has its code may
        know before joining it (the join page shows it), and nothing of its match
        (docs/decisions/0056)."""
        state = room.state
        return {
            "code": state.code, "game": state.game.id, "title": state.game.title,
            "public": state.public, "status": state.status,
            "players": sum(1 for m in state.members.values() if m.player),
            "max_players": state.game.max_players,
            "host": state.members[state.host].nickname if state.host in state.members else None,
            "members": [{"nickname": m.nickname, "bot": m.bot is not None}
                        for m in state.members.values() if not (m.left and not state.keeps_place(m))],
        }

    @classmethod
    def _entry(cls, room: Room) -> Entry:
        """The room as the directory holds it (the lobby lists it while public, waiting and
        with a person in it: ``RoomState.listed``)."""
        return Entry(room.state.code, cls.summary(room), room.state.listed())

    def _list_now(self, room: Room) -> None:
        """Room ``room`` entered or left the lobby (its ``Listed`` effect): its directory entry
        is written now, not at the next renewal, a third of a lease later."""
        if self.cluster is None or self._closing:
            return
        task = asyncio.get_running_loop().create_task(self._write_entry(room))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _write_entry(self, room: Room) -> None:
        assert self.cluster is not None
        code = room.state.code
        if room.state.closed or self.rooms.get(code) is not room:
            return  # closed meanwhile: letting go of its lease takes it out of the lobby
        try:
            lost = await self.cluster.leases.renew([self._entry(room)])
        except REDIS_DOWN as error:  # the renewal loop writes it once Redis answers
            self.cluster.outage.failed(f"writing the directory entry of room {code}", error)
            return
        except Exception:  # noqa: BLE001 - a bug: the renewal loop writes it
            log.exception("could not write the directory entry of room %s", code)
            return
        for code in lost:
            self._lose(code, room)

    async def public_rooms(self) -> list[dict[str, Any]]:
        """Public rooms waiting for players with a person in them (on every node, with a
        cluster): ``RoomState.listed``, docs/decisions/0044."""
        if self.cluster is not None:
            rooms = await self.cluster.leases.lobby()
            return [r for r in rooms if r.get("public") and r.get("status") == "waiting"]
        return [self.summary(r) for r in self.rooms.values() if r.state.listed()]

    async def lookup(self, code: str) -> dict[str, Any] | None:
        """A room's summary, wherever it lives; ``node`` names its owner when it is elsewhere."""
        room = self.get(code)
        if room is not None and not room.state.closed:
            return self.summary(room)
        if self.cluster is not None:
            return await self.cluster.leases.summary(code.upper())
        return None

    async def start(self) -> None:
        """With a cluster: join it, keep this node's leases and take over orphaned rooms."""
        if self.cluster is None:
            return
        await self.cluster.start(self.get)
        loop = asyncio.get_running_loop()
        self._lease_tasks = [loop.create_task(self._keep_leases(), name="room-leases"),
                             loop.create_task(self._sweep(), name="room-sweeper")]

    async def _keep_leases(self) -> None:
        """Renew every lease of this node each third of the lease time, with the rooms'
        directory entries. A renewal that fails or takes more than a sixth of the lease time is
        tried again after a twelfth. A lease found lost stops its room; so does every lease when
        no renewal got through for two thirds of the lease time (Redis away or this process
        stalled): the room stops before its lease can run out in Redis and another node can
        take it, so two nodes never play one room."""
        assert self.cluster is not None
        ttl = self.cluster.lease_seconds
        delay = ttl / 3
        while not self._closing:  # a cancellation a Redis call swallowed (cluster.py)
            await asyncio.sleep(delay)
            entries = [self._entry(r) for r in list(self.rooms.values()) if not r.state.closed]
            sent = time.monotonic()
            try:
                lost = await asyncio.wait_for(self.cluster.leases.renew(entries), ttl / 6)
            except Exception as error:  # noqa: BLE001 - Redis away: the rooms stop in time
                delay = ttl / 12
                if isinstance(error, REDIS_DOWN):  # one warning an outage (docs/decisions/0045)
                    self.cluster.outage.failed("renewing the room leases", error)
                else:
                    log.warning("room leases not renewed (%s); trying again",
                                error or type(error).__name__)
                silent = time.monotonic() - self._renewed_at
                if silent <= ttl * 2 / 3:
                    continue
                if entries:
                    log.error("room leases not renewed for %.1f s (%s); stopping %d rooms",
                              silent, error or type(error).__name__, len(entries))
                lost = [e.code for e in entries]
            else:
                delay = ttl / 3
                self._renewed_at = sent
                self.cluster.outage.ok()
            for code in lost:
                self._lose(code)

    def _lose(self, code: str, which: Room | None = None) -> None:
        """This node no longer owns ``code`` (its lease renewal or the database said so): its
        room stops at once, writes nothing more, and its pages are closed with 1012 (they
        reconnect to the new owner)."""
        room = self.rooms.get(code)
        if room is None or room.state.closed or (which is not None and room is not which):
            return
        log.warning("room %s: lease lost; stopping it here", code)
        if room.recorder is not None and not room.recorder.gate.fenced:
            room.recorder.gate.fence()
        room.post(CloseRoom(CLOSE_SERVER_RESTARTING))

    async def _sweep(self) -> None:
        """Take over the rooms whose directory entry went stale (their owner stopped renewing:
        it died, or it stopped and let them go), so that they carry on (their timers, their
        bots) before any page asks for them."""
        assert self.cluster is not None
        while not self._closing:  # a cancellation a Redis call swallowed (cluster.py)
            await asyncio.sleep(min(1.0, self.cluster.lease_seconds / 3))
            try:
                await self._take_over_stale()
            except REDIS_DOWN as error:  # Redis away: next time
                self.cluster.outage.failed("looking for stale rooms", error)
            except Exception:  # noqa: BLE001 - a bug: next time
                log.exception("could not take over the stale rooms")
            else:
                self.cluster.outage.ok()

    async def _take_over_stale(self) -> None:
        """One pass of the sweeper: every stale room nobody holds, taken over here. A database
        outage ends the pass (the next pass tries again): the rooms after it would fail alike."""
        assert self.cluster is not None
        codes = await self.cluster.leases.stale()
        if not codes:
            self._database_away = False  # nothing left to take over: the next outage is news
            return
        owners = await self.cluster.leases.owners(codes)
        for code in codes:
            if owners[code] is None and not self._closing:
                await self.take_over(code)
                if self._database_away:
                    return

    journal: Journal | None = None
    """Durable rooms (``DURABLE_ROOMS``): the journal every room records its changes in."""

    writer: MatchWriter | None = None
    """The durable writer of finished matches (app/db/outbox.py), set by the app at start-up."""

    async def _save(self, record: MatchRecord, on_state: SaveState) -> int:
        """Write a finished match through the outbox writer (off the event loop); without one,
        straight to the database on a database thread."""
        if self.writer is not None:
            return await self.writer.save(record, on_state)
        return await self._db.store(save_match, self._db, record=record)

    def _forget(self, room: Room) -> None:
        gone = room.close_code != CLOSE_SERVER_RESTARTING
        if room.recorder is not None and gone:
            room.recorder.forget()  # closed for good (idle, or closed): its rows go
        code = room.state.code
        if self.rooms.get(code) is room:
            del self.rooms[code]
            if self.cluster is not None and not self._closing:
                task = asyncio.get_running_loop().create_task(self._let_go(code, gone))
                self._pending.add(task)
                task.add_done_callback(self._pending.discard)

    async def _let_go(self, code: str, gone: bool) -> None:
        """A closed room's lease goes once its rows are deleted (a room closed for good must
        not be found and taken over by another node meanwhile)."""
        assert self.cluster is not None
        if gone and self.journal is not None:
            await self.journal.flush(self._db.deadline)
        try:
            await self.cluster.leases.release([code], forget=gone)
        except REDIS_DOWN as error:  # the lease runs out by itself (one warning an outage)
            self.cluster.outage.failed(f"letting go of room {code}", error)
        except Exception:  # noqa: BLE001 - a bug: the lease runs out by itself
            log.exception("could not let go of room %s", code)
        else:
            self.cluster.outage.ok()

    async def close_all(self) -> None:
        """Graceful stop: every room closes with 1012 without ending its match; the journal
        writes everything they recorded; then (with a cluster) their leases go and their
        directory entries are marked for takeover, so another node takes them over at once."""
        self._closing = True
        for task in self._lease_tasks:
            task.cancel()
        rooms = list(self.rooms.values())
        for room in rooms:
            room.post(CloseRoom(CLOSE_SERVER_RESTARTING))
        actors = [room.task for room in rooms if room.task is not None]
        if actors:
            await asyncio.wait(actors, timeout=2.0)
        flushed = True
        if self.journal is not None:  # every recorded move is in before another node looks
            flushed = await self.journal.flush(2.0)
        if self.cluster is not None:
            if flushed:
                try:
                    await self.cluster.leases.release([r.state.code for r in rooms],
                                                      forget=False)
                except REDIS_DOWN as error:  # the leases run out by themselves
                    log.warning("could not hand the rooms over (%s); their leases run out "
                                "within %g s, then other nodes take them over",
                                cause(error), self.cluster.lease_seconds)
                except Exception:  # noqa: BLE001 - a bug: the leases run out by themselves
                    log.exception("could not hand the rooms over")
            else:  # unwritten moves: another node must not rebuild the rooms from old rows
                log.error("journal not flushed; the rooms' leases run out instead")
            await self.cluster.stop()
