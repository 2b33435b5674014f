"""Text frames written straight to the socket: the hot path of every frame the rooms send.

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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from websockets.protocol import State

try:  # the protocol uvicorn serves WebSockets with; another server keeps the usual path
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
except ImportError:  # pragma: no cover - uvicorn is a dependency
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]

TextWriter = Callable[[str], bool]
"""Writes one text frame and returns True, or returns False (nothing written) when the usual
path must take it."""

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


def direct_text_writer(ws: Any) -> TextWriter | None:
    """For an accepted Starlette ``WebSocket`` ``ws``: a writer of text frames straight to its
    socket, or None when the server is not uvicorn's ``websockets-sansio`` protocol."""
    protocol = getattr(getattr(ws, "_send", None), "__self__", None)
    if WebSocketsSansIOProtocol is None or not isinstance(protocol, WebSocketsSansIOProtocol):
        return None
    conn = protocol.conn
    writable = protocol.writable
    open_state = State.OPEN

    def write(text: str) -> bool:
        if (protocol.close_sent or protocol.disconnected or conn.state is not open_state
                or conn.extensions or not writable.is_set()):
            return False
        transport = protocol.transport
        if transport.is_closing():
            return False
        transport.write(text_frame(text.encode()))
        return True

    return write
