"""The WebSocket endpoint: a reader loop feeding the room's queue and a writer task per socket.

The reader checks size, shape and rate before anything reaches the room; a refused frame gets an
``error`` frame for this client only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from fastapi import WebSocket, WebSocketDisconnect
from limits import RateLimitItemPerSecond
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from .connection import Connection
from .protocol import ProtocolError, error_frame, encode, parse_client_frame
from .registry import RoomRegistry

log = logging.getLogger(__name__)


class FrameLimiter:
    """How many frames per second one connection may send (a moving window, from ``limits``)."""

    def __init__(self, per_second: int) -> None:
        self._item = RateLimitItemPerSecond(per_second)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def allow(self, connection_id: int) -> bool:
        return self._limiter.hit(self._item, "ws", str(connection_id))

    def forget(self, connection_id: int) -> None:
        self._limiter.clear(self._item, "ws", str(connection_id))


async def _writer(ws: WebSocket, conn: Connection) -> None:
    while True:
        text = await conn.outbox.get()
        if text is None:
            break
        await ws.send_text(text)
    with contextlib.suppress(Exception):
        await ws.close()


async def _frames(ws: WebSocket, conn: Connection, limiter: FrameLimiter) -> AsyncIterator[str]:
    """The client's frames that pass the rate limit, as text, until it leaves."""
    while not conn.closed:
        received = await ws.receive()
        if received["type"] == "websocket.disconnect":
            return
        text = received.get("text")
        if text is None:
            text = (received.get("bytes") or b"").decode("utf-8", "replace")
        if not limiter.allow(conn.id):
            conn.error("rate_limited", "too many frames; slow down")
            continue
        yield text


async def serve_room_socket(
    ws: WebSocket, code: str, registry: RoomRegistry, limiter: FrameLimiter
) -> None:
    """Serve one client of room ``code`` until it leaves or the room closes.

    The room may live in this process, or (with a cluster) on another node: then each checked
    frame is relayed to the owner and the owner's frames come back the same way.
    """
    await ws.accept()
    room = registry.get(code)
    owner = None
    if (room is None or room.closed) and registry.cluster is not None:
        summary = await registry.cluster.lookup(code.upper())
        owner = summary.get("node") if summary else None
        if owner == registry.cluster.node:
            owner = None
    if (room is None or room.closed) and owner is None:
        await ws.send_text(encode(error_frame("no_such_room", f"there is no room {code!r}")))
        await ws.close(code=4404)
        return
    conn = Connection()
    writer = asyncio.create_task(_writer(ws, conn))
    relay_key = None
    if owner is not None:
        relay_key = registry.cluster.open_remote(owner, code.upper(), conn)
    try:
        async for text in _frames(ws, conn, limiter):
            try:
                message = parse_client_frame(text)
            except ProtocolError as exc:
                conn.error(exc.code, exc.message)
                continue
            if relay_key is not None:
                registry.cluster.forward(owner, code.upper(), relay_key, text)
            else:
                room.post("frame", conn, message)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        limiter.forget(conn.id)
        if relay_key is not None:
            registry.cluster.close_remote(owner, code.upper(), relay_key)
        else:
            room.post("closed", conn)
        conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 2)
        writer.cancel()
