"""The rooms open in this process, by code; creating a room picks a fresh short code."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from datetime import UTC, datetime
from typing import Any

from app.db.database import Database
from app.db.matches import MatchRecord, save_match
from app.db.outbox import MatchWriter, SaveState
from app.engine import Game

from .cluster import REFRESH_SECONDS, Cluster
from .guard import SocketPolicy
from .journal import Journal, RoomRecorder
from .members import Member
from .room import CLOSE_SERVER_RESTARTING, Room
from .tokens import SeatTokens

log = logging.getLogger(__name__)

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ"
"""Capital letters without the look-alikes I, L and O (read as 1 and 0)."""
CODE_LENGTH = 4
CREATE_WAIT_SECONDS = 2.0
"""Durable rooms: how long creating a room waits for its first record (docs/architecture.md)."""


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
        self._directory_task: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self._closing = False
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
        if self.cluster is not None:
            summary = {"game": game.id, "title": game.title, "public": public,
                       "status": "waiting", "players": 1, "max_players": game.max_players,
                       "host": host_nickname}
            while not await self.cluster.claim_code(code, {"code": code, **summary}):
                code = self.new_code()
        room = self._new_room(code=code, game=game, public=public)
        if parsed is not None:
            room.options = parsed
        host = room.add_member(host_nickname)
        self.rooms[room.code] = room
        if room.recorder is not None:  # the host's token names a member the database has
            assert self.journal is not None
            await self.journal.wait(room.recorder.record(room), CREATE_WAIT_SECONDS)
            room.last_activity = time.monotonic()  # its idle time counts from now
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
        return room

    async def restore(self) -> int:
        """Durable rooms, at start: every recorded room comes back (``restore.py``), except
        those idle past the idle time, which are deleted. Returns the number restored."""
        from app.db.rooms import delete_rooms, load_rooms

        from .restore import restore_room, resume

        if self.journal is None:
            return 0
        stored = await self._db.run(load_rooms, self._db, deadline=max(30.0, self._db.deadline))
        now = datetime.now(UTC)
        stale = [s.code for s in stored
                 if (now - s.last_activity).total_seconds() > self._idle_seconds]
        restored = 0
        for room_data in stored:
            if room_data.code in stale or room_data.code in self.rooms:
                continue
            try:
                room, elapsed = restore_room(room_data, self._new_room)
            except Exception:  # noqa: BLE001 - one bad room must not keep the site down
                log.exception("could not restore room %s; deleting it", room_data.code)
                stale.append(room_data.code)
                continue
            assert room.recorder is not None
            room.recorder.adopt(room)
            self.rooms[room.code] = room
            room.start(on_close=self._forget)
            resume(room, elapsed)
            room.recorder.record(room)
            restored += 1
        if stale:
            await self._db.run(delete_rooms, self._db, stale)
        log.info("restored %d rooms; deleted %d idle or broken ones", restored, len(stale))
        return restored

    def get(self, code: str) -> Room | None:
        return self.rooms.get(code.upper())

    @staticmethod
    def summary(room: Room) -> dict[str, Any]:
        """What the lobby and the directory show of a room."""
        return {
            "code": room.code, "game": room.game.id, "title": room.game.title,
            "public": room.public, "status": room.status,
            "players": sum(1 for m in room.members.values() if m.player),
            "max_players": room.game.max_players,
            "host": room.members[room.host].nickname if room.host in room.members else None,
        }

    async def public_rooms(self) -> list[dict[str, Any]]:
        """Public rooms still waiting for players (on every node, with a cluster)."""
        if self.cluster is not None:
            rooms = await self.cluster.rooms()
        else:
            rooms = [self.summary(r) for r in self.rooms.values() if not r.closed]
        return [r for r in rooms if r.get("public") and r.get("status") == "waiting"]

    async def lookup(self, code: str) -> dict[str, Any] | None:
        """A room's summary, wherever it lives; ``node`` names its owner when it is elsewhere."""
        room = self.get(code)
        if room is not None and not room.closed:
            return self.summary(room)
        if self.cluster is not None:
            return await self.cluster.lookup(code.upper())
        return None

    async def start(self) -> None:
        """With a cluster: join it and keep this node's rooms in the directory."""
        if self.cluster is None:
            return
        await self.cluster.start(self.get)
        self._directory_task = asyncio.get_running_loop().create_task(self._keep_directory())

    async def _keep_directory(self) -> None:
        assert self.cluster is not None
        while True:
            await asyncio.sleep(REFRESH_SECONDS)
            try:
                await self.cluster.refresh(
                    {code: self.summary(r) for code, r in self.rooms.items() if not r.closed}
                )
            except Exception:  # noqa: BLE001 - Redis may come back; the rooms go on meanwhile
                log.exception("could not refresh the room directory")

    journal: Journal | None = None
    """Durable rooms (``DURABLE_ROOMS``): the journal every room records its changes in."""

    writer: MatchWriter | None = None
    """The durable writer of finished matches (app/db/outbox.py), set by the app at start-up."""

    async def _save(self, record: MatchRecord, on_state: SaveState) -> int:
        """Write a finished match through the outbox writer (off the event loop); without one,
        straight to the database on a database thread."""
        if self.writer is not None:
            return await self.writer.save(record, on_state)
        return await self._db.run(save_match, self._db, record=record)

    def _forget(self, room: Room) -> None:
        if room.recorder is not None and room.close_code != CLOSE_SERVER_RESTARTING:
            room.recorder.forget()  # closed for good (idle, or closed): its rows go
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
            if self.cluster is not None and not self._closing:
                task = asyncio.get_running_loop().create_task(self.cluster.forget(room.code))
                self._pending.add(task)
                task.add_done_callback(self._pending.discard)

    async def close_all(self) -> None:
        self._closing = True
        if self._directory_task is not None:
            self._directory_task.cancel()
        if self.journal is not None:  # every recorded move is in before the pages are told
            await self.journal.flush(2.0)
        rooms = list(self.rooms.values())
        for room in rooms:
            room.post("close", CLOSE_SERVER_RESTARTING)
        actors = [room.task for room in rooms if room.task is not None]
        if actors:
            await asyncio.wait(actors, timeout=2.0)
        if self.cluster is not None:
            for code in list(self.rooms):
                await self.cluster.forget(code)
            await self.cluster.stop()
