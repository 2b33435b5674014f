"""Driving a room's core directly (app/realtime/room/core.py): the time named by each test, bare
connections that send nothing, and the frames read back from the core's effects."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from app.engine import get_game
from app.games import load_all
from app.realtime.room import protocol as p
from app.realtime.transport.connection import Connection
from app.realtime.room.core import RoomCore
from app.realtime.room.effects import Effect, Now, Send, SendEach
from app.realtime.transport.guard import SocketPolicy
from app.realtime.room.tokens import SeatTokens

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> Now:
    """The time ``seconds`` after the room was created (both clocks)."""
    return Now(1000.0 + seconds, T0 + timedelta(seconds=seconds))


def frames_to(effects: list[Effect], conn: Connection) -> list[dict[str, Any]]:
    """Every frame the effects send ``conn`` (through the gate), decoded, in order."""
    out: list[dict[str, Any]] = []
    for effect in effects:
        if isinstance(effect, Send) and conn in effect.conns:
            out.append(orjson.loads(effect.text))
        elif isinstance(effect, SendEach):
            out.extend(orjson.loads(text) for c, text in effect.frames if c is conn)
    return out


def of_type(effects: list[Effect], conn: Connection, kind: str) -> list[dict[str, Any]]:
    return [f for f in frames_to(effects, conn) if f["type"] == kind]


def only(effects: list[Effect], kind: type) -> list[Any]:
    return [e for e in effects if isinstance(e, kind)]


def room(game_id: str = "panika", **policy: Any) -> RoomCore:
    load_all()
    return RoomCore(code="ABCD", game=get_game(game_id), public=False, tokens=SeatTokens("k"),
                    now=at(0), policy=SocketPolicy(**policy) if policy else None)


def join(core: RoomCore, name: str, t: float = 0) -> tuple[Connection, list[Effect]]:
    conn = Connection()
    return conn, core.frame(conn, p.Join(type="join", nickname=name), at(t))
