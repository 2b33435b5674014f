"""The WebSocket endpoint: each client frame, checked, goes to the room's queue.

Before the socket is accepted, a page of another site is refused (its ``Origin`` must be the
site's own, app/hosts.py): closed before the upgrade, which the server answers with 403. Before
anything reaches a room the endpoint applies the server's limits
(app/realtime/transport/guard.py): sockets per address, room probes per address, frames per
connection and per room, and the join deadline. A refused frame gets an ``error`` frame for this
client only; a refused socket gets an ``error`` and a close code (docs/protocol.md, "Close
codes"). Frames to the client leave through its ``Connection``.

One socket's life, in named parts: ``_accept`` (the origin and the address's socket cap),
``_find`` (the room here, or the node that owns it), ``FrameReader`` (each frame's checks), its
room's side (``LocalRoom`` posts to the room's actor, ``RelayedRoom`` to the owner's node),
``_join_deadline``, and the close (``_serve``'s end: the room told, the connection closed).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any, Protocol

from fastapi import WebSocket, WebSocketDisconnect

from app import logs, metrics
from app.collector import note_connection
from app.hosts import HostPolicy
from app.engine import Game
from app.realtime.actor import CLOSE_ROOM_CLOSED, Room
from app.realtime.cluster.relay import CLOSE_TRY_AGAIN_LATER, REDIS_DOWN, UNAVAILABLE, Cluster
from app.realtime.registry import RoomRegistry
from app.realtime.room.effects import Closed, Frame
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
    (docs/protocol.md, "Limits"; a bucket of twice the allowance would close only after three
    allowances)."""

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


class RoomSide(Protocol):
    """Where a socket's checked frames go: the room in this process (``LocalRoom``) or the node
    that owns it (``RelayedRoom``)."""

    @property
    def game(self) -> Game | None:
        """The room's game, whose actions the endpoint parses (None: the owner's node does)."""

    def deliver(self, text: str, message: Any) -> bool:
        """Hand on one checked frame; False when the connection is done with."""

    def joined(self) -> bool:
        """Whether the client has joined (else the join deadline closes it)."""

    def leave(self) -> None:
        """The socket is gone: the room is told."""


class LocalRoom:
    """A room of this process, as one of its sockets reaches it: each frame is posted to its
    actor (``Room.post``), but for what the endpoint settles itself: a pong (docs/decisions/
    0033), a closed room, the room's share of frames spent."""

    __slots__ = ("conn", "room", "game")

    def __init__(self, conn: Connection, room: Room) -> None:
        self.conn = conn
        self.room = room
        self.game: Game | None = room.state.game
        conn.on_gone = self._gone

    def deliver(self, text: str, message: Any) -> bool:
        conn, room = self.conn, self.room
        if type(message) is Pong:
            # The heartbeat's answer is the connection's own bookkeeping, counted where it
            # arrives rather than queued for the room, on the room's clock (``Now.mono``;
            # uvloop's loop.time() is cached to the millisecond: docs/decisions/0033).
            conn.answer_ping(message.t, time.monotonic())
            return True
        if room.state.closed:
            conn.close(CLOSE_ROOM_CLOSED, ("room_closed", "this room has closed"))
            return False
        if _room_busy(room):
            conn.error("rate_limited", "this room is busy; slow down",
                       getattr(message, "ref", None))
        else:
            room.post(Frame(conn, message))
        return True

    def joined(self) -> bool:
        return self.conn.joined

    def leave(self) -> None:
        self.room.post(Closed(self.conn))

    def _gone(self, conn: Connection) -> None:
        """The server gave up on the connection (it fell behind): the room is told at once."""
        self.room.post(Closed(conn))


class RelayedRoom:
    """A room owned by another node: each checked frame is relayed to it, one hop, and its
    frames come back the same way (until the relay is closed with 1012 because the room's
    lease left that node: app/realtime/cluster/relay.py). The client joins on the owner's
    node: here, the join it sent is what counts."""

    __slots__ = ("cluster", "node", "code", "key", "sent_join")

    game = None
    """The owner's node reads the action (docs/decisions/0031)."""

    def __init__(self, conn: Connection, cluster: Cluster, node: str, code: str) -> None:
        self.cluster, self.node, self.code = cluster, node, code
        self.key = cluster.open_remote(node, code, conn)
        self.sent_join = False

    def deliver(self, text: str, message: Any) -> bool:
        self.sent_join = self.sent_join or isinstance(message, Join)
        self.cluster.forward(self.node, self.code, self.key, text)
        return True

    def joined(self) -> bool:
        return self.sent_join

    def leave(self) -> None:
        self.cluster.close_remote(self.node, self.code, self.key)


class FrameReader:
    """One socket's frames as they arrive: the connection's rate (``FrameLimit``), the frame's
    shape (``parse_client_frame``, with the game's actions), a join while the address is
    throttled, then the room's side."""

    __slots__ = ("conn", "side", "limit", "guard", "address", "loop")

    def __init__(self, conn: Connection, side: RoomSide, guard: SocketGuard,
                 address: str) -> None:
        self.conn, self.side, self.guard, self.address = conn, side, guard, address
        self.limit = FrameLimit(guard)
        self.loop = asyncio.get_running_loop()

    def handle(self, text: str) -> bool:
        """One frame of the client; False once the connection is done: closed, and its close
        handed to the socket (``Connection.finished``). A connection the server has closed
        reads on until then, dropping what the client sends: its close (and the error saying
        why) may still wait for the room's journal, and a frame that came meanwhile (a pong)
        ended the connection without them."""
        conn = self.conn
        if conn.closed:
            return not conn.finished
        if not self.limit.admit(conn, self.loop.time()):
            return not conn.finished
        try:
            message = parse_client_frame(text, self.side.game)
        except ProtocolError as exc:
            conn.error(exc.code, exc.message, exc.ref)
            return True
        if isinstance(message, Join) and self.guard.probes.blocked(self.address):
            conn.close(CLOSE_THROTTLED, ("throttled", "too many attempts; wait a moment"))
            return not conn.finished
        return self.side.deliver(text, message) or not conn.finished


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


async def _read(ws: WebSocket, conn: Connection, handle: Callable[[str], bool]) -> None:
    """Every frame of the client to ``handle``, straight from the protocol (docs/decisions/
    0013) or, on another server, through ``receive``, until the connection is done."""
    try:
        if not await _receive_directly(ws, handle):
            async for text in _texts(ws, conn):
                if not handle(text):
                    break
    except (WebSocketDisconnect, RuntimeError):
        pass


async def _refuse(ws: WebSocket, code: str, message: str, close_code: int) -> None:
    await ws.send_text(encode(error_frame(code, message)))
    await ws.close(code=close_code)


async def serve_room_socket(
    ws: WebSocket, code: str, registry: RoomRegistry, guard: SocketGuard, hosts: HostPolicy
) -> None:
    """Serve one client of room ``code`` until it leaves or the room closes."""
    address = await _accept(ws, guard, hosts)
    if address is None:
        return
    try:
        await _serve(ws, code.upper(), registry, guard, address)
    finally:
        guard.release(address)


async def _accept(ws: WebSocket, guard: SocketGuard, hosts: HostPolicy) -> str | None:
    """The socket accepted and counted against its address (``guard.admit``): the address, or
    None when it was refused: a page of another site before the upgrade (403), an address
    with too many sockets after it."""
    if not hosts.origin_allowed(ws.headers.get("origin"), ws.headers.get("host")):
        metrics.request_refused("origin")
        await ws.close(code=CLOSE_POLICY)  # before accept: the server answers 403
        return None
    address = client_address(ws.client)
    await ws.accept()
    note_connection()  # on the older schedule, a burst of joins brings a full pass forward
    if not guard.admit(address):
        await _refuse(ws, "too_many_connections", "too many connections from your address",
                      CLOSE_TOO_MANY_CONNECTIONS)
        return None
    return address


async def _find(ws: WebSocket, code: str, registry: RoomRegistry, guard: SocketGuard,
                address: str) -> Room | str | None:
    """Where room ``code`` lives: the room, when in this process; the node that owns it, with
    a cluster; None when the socket was refused (the address throttled, Redis away, no such
    room). A room nobody owns (its node died or stopped) is taken over here
    (docs/architecture.md, "Several processes")."""
    if guard.probes.blocked(address):
        await _refuse(ws, "throttled", "too many attempts; wait a moment", CLOSE_THROTTLED)
        return None
    room = registry.get(code)
    if room is not None and not room.state.closed:
        return room
    if registry.cluster is not None:
        try:
            room, owner = await registry.locate(code)
        except REDIS_DOWN as error:  # the page comes back later (docs/protocol.md, 1013)
            registry.cluster.outage.failed(f"locating room {code}", error)
            await _refuse(ws, *UNAVAILABLE, CLOSE_TRY_AGAIN_LATER)
            return None
        registry.cluster.outage.ok()
        if room is not None and not room.state.closed:
            return room
        if owner is not None:
            return owner
    guard.probes.miss(address)
    await _refuse(ws, "no_such_room", f"there is no room {code!r}", CLOSE_NO_SUCH_ROOM)
    return None


async def _serve(
    ws: WebSocket, code: str, registry: RoomRegistry, guard: SocketGuard, address: str
) -> None:
    """One accepted socket of room ``code``: its connection, its frames read and handed to the
    room's side until it is done, then the room told and the connection closed."""
    found = await _find(ws, code, registry, guard, address)
    if found is None:
        return
    conn = Connection(ws.send, direct_text_writer(ws))
    conn.abort = transport_aborter(ws)
    conn.on_bad_join = partial(guard.probes.miss, address)
    side: RoomSide
    if isinstance(found, Room):
        side = LocalRoom(conn, found)
        logs.bind_room(found.state)  # this task's log lines name the room and the member
    else:
        assert registry.cluster is not None  # an owner elsewhere is only known through one
        side = RelayedRoom(conn, registry.cluster, found, code)
        logs.bind_room(None)
    logs.handling(conn)
    deadline = asyncio.get_running_loop().call_later(
        guard.policy.join_deadline_seconds, _join_deadline, conn, side)
    try:
        await _read(ws, conn, FrameReader(conn, side, guard, address).handle)
    finally:
        deadline.cancel()
        side.leave()
        conn.close()


def _room_busy(room: Room) -> bool:
    """The room's share of frames this second is spent, or its queue is too long."""
    return not room.inbox.allow() or room.queued() > ROOM_QUEUE_LIMIT


def _join_deadline(conn: Connection, side: RoomSide) -> None:
    """Close a connection that has not joined in time."""
    if not side.joined() and not conn.closed:
        conn.close(CLOSE_JOIN_TIMEOUT, ("join_timeout", "no 'join' frame in time"))
