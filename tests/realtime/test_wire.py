"""Text frames written straight to uvicorn's transport (app/realtime/wire.py): the bytes are the
frame RFC 6455 defines, the writer steps aside whenever the usual path must take the frame
(flow control, a close, an extension, another server), and a connection keeps its order when
it does."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.server import ServerProtocol

from app.realtime.connection import Connection
from app.realtime.wire import direct_text_writer, text_frame
from tests.live import ClientPool, LiveServer, run_async


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 1000, 65535, 65536, 70000])
def test_a_text_frame_is_the_frame_websockets_itself_would_send(size: int) -> None:
    # RFC 6455, section 5.2: FIN + opcode 1, then the length in 7, 7+16 or 7+64 bits, no mask.
    payload = ("é" * size).encode()[:size]
    assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False,
                                                                        extensions=[])


class FakeTransport:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.closing = False

    def is_closing(self) -> bool:
        return self.closing

    def write(self, data: bytes) -> None:
        self.written.append(data)


def open_protocol() -> WebSocketsSansIOProtocol:
    """uvicorn's protocol object in the state of an accepted, open connection (its attributes
    only: no server behind it)."""
    protocol = object.__new__(WebSocketsSansIOProtocol)
    protocol.conn = ServerProtocol()
    protocol.conn.state = State.OPEN
    protocol.writable = asyncio.Event()
    protocol.writable.set()
    protocol.close_sent = False
    protocol.disconnected = False
    protocol.transport = FakeTransport()
    return protocol


def writer_for(protocol: WebSocketsSansIOProtocol):  # type: ignore[no-untyped-def]
    """``direct_text_writer`` as the endpoint calls it: with Starlette's ``WebSocket``, whose
    ``_send`` is the protocol's ``send``."""
    return direct_text_writer(SimpleNamespace(_send=protocol.send))


def test_an_open_connection_gets_its_text_frame_in_one_write() -> None:
    protocol = open_protocol()
    write = writer_for(protocol)
    assert write is not None
    assert write('{"type":"pong"}') is True
    assert protocol.transport.written == [text_frame(b'{"type":"pong"}')]


@pytest.mark.parametrize("state", ["paused", "close_sent", "disconnected", "closing",
                                   "transport_closing", "compressed"])
def test_the_writer_steps_aside_when_the_usual_path_must_send(state: str) -> None:
    protocol = open_protocol()
    write = writer_for(protocol)
    if state == "paused":  # flow control: the usual send waits, the backlog keeps the order
        protocol.writable.clear()
    elif state == "close_sent":
        protocol.close_sent = True
    elif state == "disconnected":
        protocol.disconnected = True
    elif state == "closing":  # the client sent a close
        protocol.conn.state = State.CLOSING
    elif state == "transport_closing":
        protocol.transport.closing = True
    else:  # permessage-deflate negotiated: frames must be compressed
        protocol.conn.extensions = [object()]
    assert write("x") is False
    assert protocol.transport.written == []


def test_another_asgi_server_keeps_the_usual_path() -> None:
    async def send(message: dict) -> None:
        pass

    assert direct_text_writer(SimpleNamespace(_send=send)) is None
    assert direct_text_writer(object()) is None


def test_frames_wait_behind_a_suspended_send_even_when_the_socket_could_take_them() -> None:
    # A frame the writer refused (paused) went the usual way and suspended: the frames after it
    # must not overtake it by the direct path, even once that path is open again.
    async def scenario() -> list[str]:
        out: list[str] = []
        writable = asyncio.Event()
        direct_open = [False]

        async def send(message: dict) -> None:
            await writable.wait()
            out.append(message.get("text", message["type"]))

        def direct(text: str) -> bool:
            if not direct_open[0]:
                return False
            out.append("direct:" + text)
            return True

        conn = Connection(send, direct)
        conn.send_text("a")  # refused by the writer, suspends in send
        direct_open[0] = True
        conn.send_text("b")
        conn.send_text("c")
        assert out == []
        writable.set()
        await asyncio.sleep(0.01)
        conn.send_text("d")  # the backlog is empty again: the direct path
        return out

    assert run_async(scenario()) == ["a", "b", "c", "direct:d"]


def test_a_writer_that_fails_ends_the_connection() -> None:
    async def scenario() -> tuple[bool, list[Connection]]:
        gone: list[Connection] = []

        async def send(message: dict) -> None:
            raise AssertionError("the usual path is not taken after a failed write")

        def direct(text: str) -> bool:
            raise ConnectionResetError("the socket is gone")

        conn = Connection(send, direct)
        conn.on_gone = gone.append
        conn.send_text("a")
        conn.send_text("b")
        return conn.closed, gone

    closed, gone = run_async(scenario())
    assert closed and len(gone) == 1


def test_a_real_server_writes_the_frames_directly_and_they_arrive_whole(tmp_path) -> None:
    with LiveServer(tmp_path) as server, ClientPool() as clients:
        room = server.create_room("panika", nickname="Ann")
        ann = clients(server, room["code"])
        ann.join(token=room["token"])
        conns = [c for r in server.registry.rooms.values() for m in r.members.values()
                 for c in m.conns]
        assert conns and all(c._direct is not None for c in conns)
        ann.send({"type": "chat", "text": "é" * 150})  # a frame over 125 bytes, non-ASCII
        chat = ann.wait_for("chat")
        assert chat["text"] == "é" * 150


def test_a_server_that_compresses_keeps_the_usual_path(tmp_path) -> None:
    with LiveServer(tmp_path, deflate=True) as server, ClientPool() as clients:
        room = server.create_room("panika", nickname="Ann")
        ann = clients(server, room["code"])
        ann.join(token=room["token"])
        ann.send({"type": "chat", "text": "hello " * 50})
        chat = ann.wait_for("chat")
        assert chat["text"] == ("hello " * 50).strip()
        assert ann.ws.protocol.extensions  # compression was negotiated, and frames decoded
