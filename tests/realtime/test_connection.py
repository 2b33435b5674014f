"""A connection sends at once, in order; a send that suspends (flow control) makes the frames
after it wait in a backlog; a backlog that grows too long, or a broken socket, ends the
connection."""

from __future__ import annotations

import asyncio

from app.realtime.transport.connection import BACKLOG_LIMIT, Connection
from tests.clock import until
from tests.live import run_async


class FakeSocket:
    """An ASGI ``send`` that writes at once unless paused, like uvicorn's flow control."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.writable = asyncio.Event()
        self.writable.set()
        self.broken = False

    async def send(self, message: dict) -> None:
        await self.writable.wait()
        if self.broken:
            raise RuntimeError("the socket is gone")
        self.sent.append(message.get("text", message["type"]))


def test_frames_go_out_at_once_without_a_task() -> None:
    async def scenario() -> list[str]:
        sock = FakeSocket()
        conn = Connection(sock.send)
        for i in range(5):
            conn.send_text(f"f{i}")
        assert conn._finishing is None
        return sock.sent

    assert run_async(scenario()) == ["f0", "f1", "f2", "f3", "f4"]


def test_a_paused_socket_keeps_the_order_and_catches_up() -> None:
    async def scenario() -> list[str]:
        sock = FakeSocket()
        conn = Connection(sock.send)
        conn.send_text("a")
        sock.writable.clear()
        conn.send_text("b")
        conn.send_text("c")
        conn.close()
        assert sock.sent == ["a"]
        sock.writable.set()
        await until(lambda: len(sock.sent) == 4, what="the backlog written")
        return sock.sent

    assert run_async(scenario()) == ["a", "b", "c", "websocket.close"]


def test_a_client_that_never_reads_is_dropped_when_its_backlog_is_full() -> None:
    async def scenario() -> Connection:
        sock = FakeSocket()
        sock.writable.clear()
        conn = Connection(sock.send)
        for i in range(BACKLOG_LIMIT + 2):
            conn.send_text(str(i))
        return conn

    conn = run_async(scenario())
    assert conn.closed


def test_a_broken_socket_closes_the_connection_quietly() -> None:
    async def scenario() -> Connection:
        sock = FakeSocket()
        sock.broken = True
        conn = Connection(sock.send)
        conn.send_text("x")
        conn.send_text("y")
        return conn

    assert run_async(scenario()).closed


def test_a_connection_is_finished_once_its_close_is_handed_to_the_socket() -> None:
    """``closed`` at once, ``finished`` only when the close has left: the endpoint reads on
    until then (a close waiting in a backlog, or behind a durable room's frame gate)."""
    async def scenario() -> tuple[tuple[bool, bool], list[str]]:
        sock = FakeSocket()
        conn = Connection(sock.send)
        sock.writable.clear()
        conn.send_text(b"f0")  # the send suspends: what follows waits in a backlog
        conn.close(4000)
        waiting = (conn.closed, conn.finished)
        sock.writable.set()
        await until(lambda: conn.finished)
        return waiting, sock.sent

    (closed, finished), sent = run_async(scenario())
    assert closed and not finished
    assert sent == ["f0", "websocket.close"]
