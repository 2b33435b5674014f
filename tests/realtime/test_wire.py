"""Frames straight between uvicorn's protocol and the rooms (app/realtime/transport/wire.py). Out: the
bytes are the frame RFC 6455 defines, the writer steps aside whenever the usual path must take
the frame (flow control, a close, an extension, another server), and a connection keeps its
order when it does. In: each message goes to the endpoint's handler as it arrives, in order,
in the endpoint's context, with reading kept on, until the handler or the client ends it."""

from __future__ import annotations

import asyncio
import contextvars
from types import SimpleNamespace

import pytest
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.server import ServerProtocol

from app.realtime.transport.connection import Connection
from app.realtime.transport.wire import (
    PROTOCOL_ATTRIBUTES, DirectInbox, direct_text_writer, receive_directly, text_frame,
)
from tests.clock import until
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
        self.resumed = 0

    def resume_reading(self) -> None:
        self.resumed += 1

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
    protocol.queue = asyncio.Queue()
    protocol.read_paused = False
    return protocol


def writer_for(protocol: WebSocketsSansIOProtocol):  # type: ignore[no-untyped-def]
    """``direct_text_writer`` as the endpoint calls it: with Starlette's ``WebSocket``, whose
    ``_send`` is the protocol's ``send``."""
    return direct_text_writer(SimpleNamespace(_send=protocol.send))


def test_an_open_connection_gets_its_text_frame_in_one_write() -> None:
    protocol = open_protocol()
    write = writer_for(protocol)
    assert write is not None
    assert write(b'{"type":"pong"}') is True
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
    assert write(b"x") is False
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

        def direct(data: bytes) -> bool:
            if not direct_open[0]:
                return False
            out.append("direct:" + data.decode())
            return True

        conn = Connection(send, direct)
        conn.send_text(b"a")  # refused by the writer, suspends in send (as text: ASGI's kind)
        direct_open[0] = True
        conn.send_text(b"b")
        conn.send_text(b"c")
        assert out == []
        writable.set()
        await until(lambda: out == ["a", "b", "c"], what="the backlog written")
        conn.send_text(b"d")  # the backlog is empty again: the direct path
        return out

    assert run_async(scenario()) == ["a", "b", "c", "direct:d"]


def test_a_writer_that_fails_ends_the_connection() -> None:
    async def scenario() -> tuple[bool, list[Connection]]:
        gone: list[Connection] = []

        async def send(message: dict) -> None:
            raise AssertionError("the usual path is not taken after a failed write")

        def direct(data: bytes) -> bool:
            raise ConnectionResetError("the socket is gone")

        conn = Connection(send, direct)
        conn.on_gone = gone.append
        conn.send_text(b"a")
        conn.send_text(b"b")
        return conn.closed, gone

    closed, gone = run_async(scenario())
    assert closed and len(gone) == 1


def test_a_real_server_writes_the_frames_directly_and_they_arrive_whole(tmp_path) -> None:
    with LiveServer(tmp_path) as server, ClientPool() as clients:
        room = server.create_room("panika", nickname="Ann")
        ann = clients(server, room["code"])
        ann.join(token=room["token"])
        conns = [c for r in server.registry.rooms.values() for m in r.state.members.values()
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


# --- frames in ----------------------------------------------------------------------------
SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="none")


def receive(text: str) -> dict:
    return {"type": "websocket.receive", "text": text}


def test_messages_go_to_the_handler_in_order_waiting_ones_first_with_reading_on() -> None:
    async def scenario() -> tuple[list, int, bool]:
        protocol = open_protocol()
        protocol.queue.put_nowait(receive("early"))  # arrived before the endpoint took over;
        protocol.read_paused = True  # uvicorn paused reading until its queue is read
        got: list = []
        SEEN.set("the endpoint's")
        inbox = receive_directly(SimpleNamespace(_send=protocol.send),
                                 lambda text: got.append((text, SEEN.get())) or True,
                                 lambda: got.append("end"))
        SEEN.set("elsewhere")
        assert protocol.queue is inbox and protocol.read_paused  # uvicorn never pauses again
        protocol.queue.put_nowait(receive("late"))
        protocol.queue.put_nowait({"type": "websocket.receive", "bytes": b"raw"})
        protocol.queue.put_nowait({"type": "websocket.disconnect", "code": 1000})
        protocol.queue.put_nowait(receive("after the end"))
        return got, protocol.transport.resumed, inbox.ended

    got, resumed, ended = run_async(scenario())
    assert got == [("early", "the endpoint's"), ("late", "the endpoint's"),
                   ("raw", "the endpoint's"), "end"]
    assert resumed == 1 and ended


def test_a_handler_that_is_done_ends_the_inbox_once() -> None:
    ends: list[str] = []
    texts: list[str] = []
    inbox = DirectInbox(SimpleNamespace(read_paused=True),
                        lambda text: texts.append(text) or text != "bye",
                        lambda: ends.append("end"), contextvars.copy_context())
    for message in (receive("hi"), receive("bye"), receive("ignored"),
                    {"type": "websocket.disconnect", "code": 1000}):
        inbox.put_nowait(message)
    assert texts == ["hi", "bye"] and ends == ["end"]


def test_reading_stays_on_after_a_handler_that_sent_a_close() -> None:
    # Sending a close makes uvicorn turn reading on (read_paused = False) so that the client's
    # reply is read; uvicorn then pauses reading after the message unless read_paused is True:
    # the client's reply would never be read and the closing handshake would hang.
    protocol = SimpleNamespace(read_paused=True)

    def handler_that_closes(text: str) -> bool:
        protocol.read_paused = False  # as uvicorn's send of a close does
        return False

    inbox = DirectInbox(protocol, handler_that_closes, lambda: None, contextvars.copy_context())
    inbox.put_nowait(receive("join"))
    assert protocol.read_paused is True


def test_another_asgi_server_reads_with_receive() -> None:
    async def send(message: dict) -> None:
        pass

    assert receive_directly(SimpleNamespace(_send=send), lambda t: True, lambda: None) is None


def test_a_real_server_hands_the_frames_straight_to_the_room(tmp_path) -> None:
    with LiveServer(tmp_path) as server, ClientPool() as clients:
        room = server.create_room("panika", nickname="Ann")
        ann = clients(server, room["code"])
        ann.join(token=room["token"])
        protocols = [p for p in server.server.server_state.connections
                     if isinstance(p, WebSocketsSansIOProtocol)]
        assert protocols and all(isinstance(p.queue, DirectInbox) for p in protocols)
        ann.send({"type": "chat", "text": "hello"})
        assert ann.wait_for("chat")["text"] == "hello"


def test_the_uvicorn_protocol_has_every_attribute_the_direct_path_reads(tmp_path) -> None:
    """The direct path reads uvicorn's internals (pinned in pyproject.toml): a uvicorn release
    that renames one must fail here, loudly, not in production (where the path steps aside)."""
    with LiveServer(tmp_path) as server, ClientPool() as clients:
        room = server.create_room("panika", nickname="Ann")
        ann = clients(server, room["code"])
        ann.join(token=room["token"])
        protocols = [p for p in server.server.server_state.connections
                     if isinstance(p, WebSocketsSansIOProtocol)]
        assert protocols
        for protocol in protocols:
            missing = [a for a in PROTOCOL_ATTRIBUTES if not hasattr(protocol, a)]
            assert not missing, f"uvicorn's protocol lost {missing}: check app/realtime/transport/wire.py"


def test_a_protocol_without_those_attributes_gets_the_usual_path(caplog) -> None:
    class Stripped(WebSocketsSansIOProtocol):
        def __init__(self) -> None:  # no attribute at all
            pass

    protocol = Stripped()
    ws = SimpleNamespace(_send=protocol.send)
    with caplog.at_level("WARNING"):
        assert direct_text_writer(ws) is None
        assert receive_directly(ws, lambda t: True, lambda: None) is None
