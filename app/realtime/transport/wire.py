"""Frames straight between uvicorn's WebSocket protocol and the rooms: the hot path of every
frame, out (``direct_text_writer``) and in (``receive_directly``, at the end).

Through the usual path a frame passes Starlette's ``WebSocket.send``, uvicorn's ASGI ``send``
coroutine and the ``websockets`` protocol's frame object and write buffer before it reaches the
transport: the largest part of a saturated server's time per move (docs/performance.md, "Frames
written straight to the socket"). A frame the server sends is only its header and its payload
(RFC 6455, section 5.2: FIN and the text opcode in the first byte, then the payload's length in
one, three or nine bytes; a server's frames are not masked), so when it is safe this module
writes exactly those bytes to the connection's transport in one call.

It is safe when the connection is served by uvicorn's ``websockets-sansio`` protocol (the one
its ``auto`` setting picks), is open (no close sent or received), negotiated no extension (a
client that asked for compression gets it, the usual way), and its transport is not paused by
flow control. Otherwise, and for everything but a text frame (closes, the handshake), the
usual path is taken, which keeps every rule of the protocol: a paused transport makes the send
wait, and the connection's backlog (``connection.py``) takes the frames that follow, in order.

The protocol's attributes read here are uvicorn's, not a public API: pyproject.toml pins uvicorn
to the releases tested with them, tests/realtime/test_wire.py fails when one of
``PROTOCOL_ATTRIBUTES`` is missing, and a protocol that lacks one gets the usual path (logged
once), never a broken frame.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from typing import Any

from websockets.protocol import State

try:  # the protocol uvicorn serves WebSockets with; another server keeps the usual path
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
except ImportError:  # pragma: no cover - uvicorn is a dependency
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]

log = logging.getLogger(__name__)

PROTOCOL_ATTRIBUTES = ("conn", "writable", "close_sent", "disconnected", "transport", "queue",
                       "read_paused")
"""What this module reads or sets on uvicorn's protocol object (besides the type itself)."""
_warned = False

TextWriter = Callable[[bytes], bool]
"""Writes one text frame (its payload: the frame's JSON as UTF-8 bytes, as the room encoded it)
and returns True, or returns False (nothing written) when the usual path must take it."""

_TEXT_FIN = 0x81
"""FIN set, opcode 1 (text)."""


def text_frame(payload: bytes) -> bytes:
    """A complete unmasked text frame carrying ``payload`` (RFC 6455, section 5.2)."""
    n = len(payload)
    if n < 126:
        return bytes((_TEXT_FIN, n)) + payload
    if n < 65536:
        return bytes((_TEXT_FIN, 126)) + n.to_bytes(2, "big") + payload
    return bytes((_TEXT_FIN, 127)) + n.to_bytes(8, "big") + payload


def _sansio_protocol(ws: Any) -> Any:
    """The uvicorn ``websockets-sansio`` protocol object behind Starlette's ``WebSocket`` ``ws``
    (its ``_send`` is the protocol's bound ``send``), or None on another server."""
    global _warned
    protocol = getattr(getattr(ws, "_send", None), "__self__", None)
    if WebSocketsSansIOProtocol is None or not isinstance(protocol, WebSocketsSansIOProtocol):
        return None
    missing = [name for name in PROTOCOL_ATTRIBUTES if not hasattr(protocol, name)]
    if missing:
        if not _warned:
            _warned = True
            log.warning("uvicorn's WebSocket protocol has no %s: frames take the usual path",
                        ", ".join(missing))
        return None
    return protocol


def direct_text_writer(ws: Any) -> TextWriter | None:
    """For an accepted Starlette ``WebSocket`` ``ws``: a writer of text frames straight to its
    socket, or None when the server is not uvicorn's ``websockets-sansio`` protocol."""
    protocol = _sansio_protocol(ws)
    if protocol is None:
        return None
    conn = protocol.conn
    writable = protocol.writable
    open_state = State.OPEN

    def write(payload: bytes) -> bool:
        if (protocol.close_sent or protocol.disconnected or conn.state is not open_state
                or conn.extensions or not writable.is_set()):
            return False
        transport = protocol.transport
        if transport.is_closing():
            return False
        transport.write(text_frame(payload))
        return True

    return write


def transport_aborter(ws: Any) -> Callable[[], None] | None:
    """For an accepted Starlette ``WebSocket`` ``ws`` on uvicorn's ``websockets-sansio``
    protocol: a function that drops the socket at once (``transport.abort()``: nothing waiting
    is sent, and the protocol hears the connection lost, so the endpoint's wait ends). A plain
    close would wait for a buffer that a client who stopped reading never drains. None on
    another server."""
    protocol = _sansio_protocol(ws)
    if protocol is None:
        return None

    def abort() -> None:
        transport = protocol.transport
        if transport is not None:
            transport.abort()

    return abort


# --- frames in ---------------------------------------------------------------------------
class DirectInbox:
    """Stands in for uvicorn's per-connection message queue: each message the client sends is
    handed to ``on_text`` at once, inside uvicorn's ``data_received``, instead of waiting in a
    queue for the endpoint's ``await websocket.receive()``.

    That await was a chain of a dozen objects (Starlette's and uvicorn's receive coroutines,
    asyncio's ``Queue.get`` and its future, the endpoint's async generator step) made anew for
    every frame a client sent, so at every full collection they were young and walked, about
    20 objects per connection (docs/performance.md, "The collector freezes what it has walked").
    Here the endpoint waits on one future for the connection's whole life.

    ``on_text`` returns False when the connection is done: the messages after it are dropped and
    ``on_end`` is called, as it is once the client disconnects."""

    __slots__ = ("_protocol", "_on_text", "_on_end", "_context", "ended")

    def __init__(self, protocol: Any, on_text: Callable[[str], bool],
                 on_end: Callable[[], None], context: contextvars.Context) -> None:
        self._protocol = protocol
        self._on_text = on_text
        self._on_end = on_end
        self._context = context
        """The endpoint's context: the log lines of a frame's handling name its room and
        member (app/logs.py), as they did when the endpoint's task handled it."""
        self.ended = False

    def put_nowait(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "websocket.receive":
            if self.ended:
                return
            text = message.get("text")
            if text is None:
                text = (message.get("bytes") or b"").decode("utf-8", "replace")
            if not self._context.run(self._on_text, text):
                self.end()
            # uvicorn pauses reading after each message until its queue has been read (it turns
            # reading back on when it sends a close, as handling this one may have done): every
            # message is taken at once here, so reading stays on.
            self._protocol.read_paused = True
        elif kind == "websocket.disconnect":
            self.end()

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            self._on_end()

    def empty(self) -> bool:
        return True

    def qsize(self) -> int:
        return 0

    async def get(self) -> dict[str, Any]:
        raise RuntimeError("this connection's messages go straight to its room")


def receive_directly(ws: Any, on_text: Callable[[str], bool],
                     on_end: Callable[[], None]) -> DirectInbox | None:
    """For an accepted Starlette ``WebSocket`` ``ws`` on uvicorn's ``websockets-sansio``
    protocol: from now on hand each message to ``on_text`` (in the current context) and the
    disconnect to ``on_end`` (see ``DirectInbox``); the messages that arrived before are handed
    over first. None (nothing changed) on another server: the caller reads with ``receive``."""
    protocol = _sansio_protocol(ws)
    if protocol is None:
        return None
    waiting = protocol.queue
    inbox = DirectInbox(protocol, on_text, on_end, contextvars.copy_context())
    protocol.queue = inbox
    was_paused, protocol.read_paused = protocol.read_paused, True  # see DirectInbox.put_nowait
    while not waiting.empty():
        inbox.put_nowait(waiting.get_nowait())
    if was_paused and not protocol.transport.is_closing():
        protocol.transport.resume_reading()
    return inbox
