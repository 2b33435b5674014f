"""The rooms open in this process, by code; creating a room picks a fresh short code."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from app.db.database import Database
from app.db.matches import MatchRecord, save_match
from app.engine import Game

from .room import Member, Room
from .tokens import SeatTokens

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ"
"""Capital letters without the look-alikes I, L and O (read as 1 and 0)."""
CODE_LENGTH = 4


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
    ) -> None:
        self.rooms: dict[str, Room] = {}
        self.tokens = tokens
        self._db = db
        self._idle_seconds = idle_seconds
        self._ping_seconds = ping_seconds
        self._max_rooms = max_rooms

    def new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.rooms:
                return code

    def create(
        self, *, game: Game, public: bool, host_nickname: str, options: dict[str, Any] | None = None
    ) -> tuple[Room, Member, str]:
        """A new running room with its host member; returns the room, the host and their token."""
        if len(self.rooms) >= self._max_rooms:
            raise RoomLimitReached()
        room = Room(
            code=self.new_code(), game=game, public=public, tokens=self.tokens,
            save_match=self._save, idle_seconds=self._idle_seconds,
            ping_seconds=self._ping_seconds,
        )
        if options:
            room.options = game.parse_options(options).model_dump(mode="json")
        host = room.add_member(host_nickname)
        self.rooms[room.code] = room
        room.start(on_close=self._forget)
        return room, host, room._token(host)

    def get(self, code: str) -> Room | None:
        return self.rooms.get(code.upper())

    def public_rooms(self) -> list[dict[str, Any]]:
        """Public rooms still waiting for players."""
        return [
            {"code": r.code, "game": r.game.id, "title": r.game.title,
             "players": sum(1 for m in r.members.values() if m.player),
             "max_players": r.game.max_players,
             "host": r.members[r.host].nickname if r.host in r.members else None}
            for r in self.rooms.values()
            if r.public and r.status == "waiting" and not r.closed
        ]

    async def _save(self, record: MatchRecord) -> int:
        """Write a finished match in a worker thread: the event loop never waits on the database."""
        return await asyncio.to_thread(save_match, self._db, record=record)

    def _forget(self, room: Room) -> None:
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]

    async def close_all(self) -> None:
        for room in list(self.rooms.values()):
            room.post("close")
        await asyncio.sleep(0)
