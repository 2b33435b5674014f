"""A room of any game driven through its core (no socket, the time given), for the conformance
suite: the only place here that knows how the room's core is built."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from app.engine import Game
from app.realtime.room import protocol as p
from app.realtime.transport.connection import Connection
from app.realtime.room.core import RoomCore
from app.realtime.room.effects import Effect, Send, SendEach
from app.realtime.room.tokens import SeatTokens

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> Any:
    from app.realtime.room.effects import Now

    return Now(1000.0 + seconds, T0 + timedelta(seconds=seconds))


def new_room(game: Game[Any, Any]) -> RoomCore:
    return RoomCore(code="CONF", game=game, public=False, tokens=SeatTokens("k"), now=at(0))


def join(core: RoomCore, name: str, t: float = 0, *, watch: bool = False,
         seen: list[Effect] | None = None) -> Connection:
    """A new connection that joins as ``name`` (or as a table view); the effects of its join
    are added to ``seen`` when given."""
    conn = Connection()
    message = p.Join(type="join", watch=True) if watch else p.Join(type="join", nickname=name)
    effects = core.frame(conn, message, at(t))
    if seen is not None:
        seen.extend(effects)
    return conn


def frames_to(effects: list[Effect], conn: Connection) -> list[dict[str, Any]]:
    """Every frame the effects send ``conn``, decoded, in order."""
    out: list[dict[str, Any]] = []
    for effect in effects:
        if isinstance(effect, Send) and conn in effect.conns:
            out.append(orjson.loads(effect.text))
        elif isinstance(effect, SendEach):
            out.extend(orjson.loads(text) for c, text in effect.frames if c is conn)
    return out


def match_of(core: RoomCore) -> Any:
    """The running match (its ``state`` and ``version``), or None."""
    return core.state.match
