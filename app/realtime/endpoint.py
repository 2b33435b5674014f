"""The WebSocket endpoint: a reader loop feeding the room's queue.

The reader checks size, shape and rate before anything reaches the room; a refused frame gets an
``error`` frame for this client only. Frames to the client leave through its ``Connection``.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import AsyncIterator

from fastapi import WebSocket, WebSocketDisconnect

from .connection import Connection
from .protocol import ProtocolError, error_frame, encode, parse_client_frame
from .registry import RoomRegistry

log = logging.getLogger(__name__)


class FrameLimiter:
    """How many frames per second one connection may send: a moving window of one second.

    Each connection keeps the times of its last ``per_second`` accepted frames; a frame is refused
    while the oldest of them is less than a second old. Constant time per frame and nothing
    shared between connections (a shared rate-limit store cost a scanning thread and ~40 objects
    per busy connection at 4,000 connections: docs/performance.md).
    """

    def __init__(self, per_second: int) -> None:
        self.per_second = per_second

    def window(self) -> FrameWindow:
        return FrameWindow(self.per_second)


class FrameWindow:
    """One connection's moving window of accepted frames."""

    __slots__ = ("_times",)

    def __init__(self, per_second: int) -> None:
        self._times: deque[float] = deque(maxlen=max(1, per_second))

    def allow(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        times = self._times
        if len(times) == times.maxlen and now - times[0] < 1.0:
            return False
        times.append(now)
        return True


async def _frames(ws: WebSocket, conn: Connection, limiter: FrameLimiter) -> AsyncIterator[str]:
    """The client's frames that pass the rate limit, as text, until it leaves."""
    window = limiter.window()
    while not conn.closed:
        received = await ws.receive()
        if received["type"] == "websocket.disconnect":
            return
        text = received.get("text")
        if text is None:
            text = (received.get("bytes") or b"").decode("utf-8", "replace")
        if not window.allow():
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
    conn = Connection(ws.send)
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
        if relay_key is not None:
            registry.cluster.close_remote(owner, code.upper(), relay_key)
        else:
            room.post("closed", conn)
        conn.close()
