"""The bots' WebSocket client: websockets' sans-I/O protocol on a plain asyncio protocol.

``websockets.asyncio.client`` costs the load generator more per frame than the frame itself: a
message assembler with its lock and futures, flow control and keepalive bookkeeping for every
frame in, a coroutine chain for every frame out. At 4,000 connections the bots' core was the
limit of the bare broadcast's capacity ladder (docs/performance.md, "Caveats"). Here the
same protocol object (``websockets.client.ClientProtocol``: the handshake, framing, masking, the
answers to control frames) is fed straight from ``data_received``, and each text frame's payload
is queued as the protocol gives it (a ``bytearray``, which ``orjson.loads`` takes) for ``async
for``; ``send`` writes at once.

Only what the bots use: a text frame in is one message (the servers never fragment the frames
the bots read), no compression, no keepalive pings of the client's own (the app's heartbeat is
JSON, answered by the bots; the server's protocol pings are answered by the protocol).
"""

from __future__ import annotations

import asyncio
from collections import deque

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri


class LeanSocket(asyncio.Protocol):
    """One client connection: ``await send(text)``, ``async for message in socket`` (each text
    frame's payload, a ``bytearray``)."""

    def __init__(self, url: str, max_size: int) -> None:
        self.protocol = ClientProtocol(parse_uri(url), max_size=max_size)
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.messages: deque[bytes | bytearray | memoryview] = deque()
        self.waiter: asyncio.Future[None] | None = None
        self.closed = False

    # asyncio's side ----------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        protocol = self.protocol
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Frame):
                if event.opcode is Opcode.TEXT or event.opcode is Opcode.BINARY:
                    self.messages.append(event.data)
            elif not self.opened.done():  # the handshake's response
                if protocol.handshake_exc is not None:
                    self.opened.set_exception(protocol.handshake_exc)
                else:
                    self.opened.set_result(None)
        self._flush()
        if self.messages:
            self._wake()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed before the handshake"))
        self._wake()

    # the bots' side ----------------------------------------------------------------------------
    async def send(self, text: str) -> None:
        if self.closed or self.protocol.state is not State.OPEN:
            raise ConnectionError("the connection is closed")
        self.protocol.send_text(text.encode())
        self._flush()

    def __aiter__(self) -> LeanSocket:
        return self

    async def __anext__(self) -> bytes | bytearray | memoryview:
        while not self.messages:
            if self.closed:
                raise StopAsyncIteration
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter
        return self.messages.popleft()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    # ------------------------------------------------------------------------------------------
    def _flush(self) -> None:
        """Write what the protocol has to send (a frame, a pong, a close; b"" is its end)."""
        out = self.protocol.data_to_send()
        if not out or self.transport is None:
            return
        data = b"".join(out)
        if data:
            self.transport.write(data)
        if out[-1] == b"":
            self.transport.close()

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


async def connect(url: str, *, max_size: int = 1 << 20, open_timeout: float = 60) -> LeanSocket:
    """A connection to ``url`` (``ws://host:port/path``) once its handshake is done."""
    uri = parse_uri(url)
    loop = asyncio.get_running_loop()
    socket = LeanSocket(url, max_size)
    await asyncio.wait_for(loop.create_connection(lambda: socket, uri.host, uri.port),
                           open_timeout)
    await asyncio.wait_for(socket.opened, open_timeout)
    return socket
