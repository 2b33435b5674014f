"""The WebSocket endpoint: each client frame, checked, goes to the room's queue.

Before the socket is accepted, a page of another site is refused (its ``Origin`` must be the
site's own, app/hosts.py): closed before the upgrade, which the server answers with 403. Before
anything reaches a room the endpoint applies the server's limits
(app/realtime/transport/guard.py): sockets per address, room probes per address, frames per
connection and per room, and the join deadline. A refused frame gets an ``error`` frame for this
client only; a refused socket gets an ``error`` and a close code (docs/protocol.md, "Close
codes"). Frames to the client leave through its ``Connection``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from app import logs, metrics
from app.collector import note_connection
from app.hosts import HostPolicy
from app.realtime.actor import CLOSE_ROOM_CLOSED, Room
from app.realtime.cluster.relay import CLOSE_TRY_AGAIN_LATER, REDIS_DOWN, UNAVAILABLE
from app.realtime.registry import RoomRegistry
from app.realtime.room.protocol import (
    Join, Pong, ProtocolError, encode, error_frame, parse_client_frame,
)
from app.realtime.transport.connection import Connection
from app.realtime.transport.guard import (
    CLOSE_JOIN_TIMEOUT,
    CLOSE_NO_SUCH_ROOM,
    CLOSE_POLICY,
    CLOSE_THROTTLED,
    CLOSE_TOO_MANY_CONNECTIONS,
    SocketGuard,
    TokenBucket,
    client_address,
)
from app.realtime.transport.wire import direct_text_writer, receive_directly, transport_aborter

log = logging.getLogger(__name__)

ROOM_QUEUE_LIMIT = 2000
"""Messages waiting for one room beyond which its clients' frames are refused (``rate_limited``):
a room that cannot keep up sheds its own load instead of growing the server's."""


class FrameLimit:
    """A client's frames that pass its rate limit. Beyond the limit one ``rate_limited`` error a
    second is sent; a client that sends more than twice its allowance within a second is closed
    (1008): a flood costs the flooder. The frames refused are counted in a bucket of one
    allowance (a second's worth, refilled at the allowance's rate), so a burst of the
    allowance's frames passes, the next allowance's are refused, and the frame after them closes
    (docs/protocol.md, "Limits"; issue 25, item 7: a bucket of twice the allowance closed only
    after three allowances)."""

    __slots__ = ("_window", "_refused", "_warned")

    def __init__(self, guard: SocketGuard) -> None:
        self._window = guard.frame_window()
        self._refused = TokenBucket(guard.policy.frames_per_second)
        self._warned = 0.0

    def admit(self, conn: Connection, now: float) -> bool:
        """Whether this frame passes (if not, ``conn`` may have been warned or closed)."""
        if self._window.allow(now):
            return True
        if not self._refused.allow(now):
            conn.close(CLOSE_POLICY, ("flooding", "far too many frames; closed"))
        elif now - self._warned >= 1.0:
            self._warned = now
            conn.error("rate_limited", "too many frames; slow down")
        return False


async def _texts(ws: WebSocket, conn: Connection) -> AsyncIterator[str]:
    """The client's frames as text, until it leaves (a server other than uvicorn's
    ``websockets-sansio`` protocol: see ``_receive_directly``)."""
    while not conn.finished:
        received = await ws.receive()
        if received["type"] == "websocket.disconnect":
            return
        text = received.get("text")
        if text is None:
            text = (received.get("bytes") or b"").decode("utf-8", "replace")
        yield text


async def _receive_directly(ws: WebSocket, handle: Callable[[str], bool]) -> bool:
    """Hand each of the client's frames to ``handle`` as it arrives (app/realtime/transport/wire.py,
    ``DirectInbox``) and wait until the connection is done; False (nothing done) when the server
    cannot, and the caller reads the frames itself."""
    done = asyncio.get_running_loop().create_future()

    def on_text(text: str) -> bool:
        try:
            return handle(text)
        except Exception:
            log.exception("a client frame could not be handled")
            return False

    def on_end() -> None:
        if not done.done():
            done.set_result(None)

    inbox = receive_directly(ws, on_text, on_end)
    if inbox is None:
        return False
    try:
        await done
    finally:
        inbox.ended = True  # cancelled (a shutdown): later frames are dropped
    return True


async def _refuse(ws: WebSocket, code: str, message: str, close_code: int) -> None:
    await ws.send_text(encode(error_frame(code, message)))
    await ws.close(code=close_code)


async def serve_room_socket(
    ws: WebSocket, code: str, registry: RoomRegistry, guard: SocketGuard, hosts: HostPolicy
) -> None:
    """Serve one client of room ``code`` until it leaves or the room closes."""
    if not hosts.origin_allowed(ws.headers.get("origin"), ws.headers.get("host")):
        metrics.request_refused("origin")
        await ws.close(code=CLOSE_POLICY)  # before accept: the server answers 403
        return
    address = client_address(ws.client)
    await ws.accept()
    note_connection()  # on the older schedule, a burst of joins brings a full pass forward
    if not guard.admit(address):
        await _refuse(ws, "too_many_connections", "too many connections from your address",
                      CLOSE_TOO_MANY_CONNECTIONS)
        return
    try:
        await _serve(ws, code.upper(), registry, guard, address)
    finally:
        guard.release(address)


async def _serve(
    ws: WebSocket, code: str, registry: RoomRegistry, guard: SocketGuard, address: str
) -> None:
    """The room may live in this process, or (with a cluster) on another node: then each checked
    frame is relayed to the owner and the owner's frames come back the same way (until the
    relay is closed with 1012 because the room's lease left that node: ``cluster.py``)."""
    if guard.probes.blocked(address):
        await _refuse(ws, "throttled", "too many attempts; wait a moment", CLOSE_THROTTLED)
        return
    room = registry.get(code)
    owner = None
    if (room is None or room.closed) and registry.cluster is not None:
        # The lease says where the room lives; a room nobody owns (its node died or stopped)
        # is taken over here (docs/architecture.md, "Several processes").
        try:
            room, owner = await registry.locate(code)
        except REDIS_DOWN as error:  # the page comes back later (docs/protocol.md, 1013)
            registry.cluster.outage.failed(f"locating room {code}", error)
            await _refuse(ws, *UNAVAILABLE, CLOSE_TRY_AGAIN_LATER)
            return
        registry.cluster.outage.ok()
    if (room is None or room.closed) and owner is None:
        guard.probes.miss(address)
        await _refuse(ws, "no_such_room", f"there is no room {code!r}", CLOSE_NO_SUCH_ROOM)
        return
    loop = asyncio.get_running_loop()
    conn = Connection(ws.send, direct_text_writer(ws))
    conn.abort = transport_aborter(ws)
    logs.bind_room(room)  # this task's log lines name the room and the member
    logs.handling(conn)
    conn.on_bad_join = lambda: guard.probes.miss(address)
    # A relayed client joins on the owner's node: here, the join it sent is what counts.
    sent_join = [False]
    if owner is not None:
        assert registry.cluster is not None  # an owner elsewhere is only known through one
        cluster, node = registry.cluster, owner
        relay_key = cluster.open_remote(node, code, conn)
        game = None  # the owner's node reads the action (docs/decisions/0031)

        def deliver(text: str, message: Any) -> bool:
            sent_join[0] = sent_join[0] or isinstance(message, Join)
            cluster.forward(node, code, relay_key, text)
            return True

        def leave() -> None:
            cluster.close_remote(node, code, relay_key)

        joined: Callable[[], bool] = lambda: sent_join[0]  # noqa: E731
    else:
        assert room is not None
        here = room
        game = room.game
        conn.on_gone = lambda gone: here.post("closed", gone)

        def deliver(text: str, message: Any) -> bool:
            if type(message) is Pong:
                # The heartbeat's answer is the connection's own bookkeeping, counted where it
                # arrives rather than queued for the room, on the room's clock (``Now.mono``;
                # uvloop's loop.time() is cached to the millisecond: docs/decisions/0033).
                conn.answer_ping(message.t, time.monotonic())
                return True
            if here.closed:
                conn.close(CLOSE_ROOM_CLOSED, ("room_closed", "this room has closed"))
                return False
            if _room_busy(here):
                conn.error("rate_limited", "this room is busy; slow down",
                           getattr(message, "ref", None))
            else:
                here.post("frame", conn, message)
            return True

        def leave() -> None:
            here.post("closed", conn)

        joined = lambda: conn.joined  # noqa: E731
    deadline = loop.call_later(
        guard.policy.join_deadline_seconds, _join_deadline, conn, joined)
    limit = FrameLimit(guard)

    def handle(text: str) -> bool:
        """One frame of the client; False once the connection is done: closed, and its close
        handed to the socket (``Connection.finished``). A connection the server has closed
        reads on until then, dropping what the client sends: its close (and the error saying
        why) may still wait for the room's journal, and a frame that came meanwhile (a pong)
        ended the connection without them."""
        if conn.closed:
            return not conn.finished
        if not limit.admit(conn, loop.time()):
            return not conn.finished
        try:
            message = parse_client_frame(text, game)
        except ProtocolError as exc:
            conn.error(exc.code, exc.message, exc.ref)
            return True
        if isinstance(message, Join) and guard.probes.blocked(address):
            conn.close(CLOSE_THROTTLED, ("throttled", "too many attempts; wait a moment"))
            return not conn.finished
        return deliver(text, message) or not conn.finished

    try:
        if not await _receive_directly(ws, handle):
            async for text in _texts(ws, conn):
                if not handle(text):
                    break
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        deadline.cancel()
        leave()
        conn.close()


def _room_busy(room: Room) -> bool:
    """The room's share of frames this second is spent, or its queue is too long."""
    return not room.inbox.allow() or room.queued() > ROOM_QUEUE_LIMIT


def _join_deadline(conn: Connection, joined: Callable[[], bool]) -> None:
    """Close a connection that has not joined in time."""
    if not joined() and not conn.closed:
        conn.close(CLOSE_JOIN_TIMEOUT, ("join_timeout", "no 'join' frame in time"))
