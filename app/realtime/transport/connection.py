"""One client connection as the room sees it: frames go out at once, in order.

The room never awaits a client. ``send_text`` hands the frame (encoded: bytes, as the socket
takes them) to the direct writer (``wire.py``; docs/performance.md, "Frames written straight to
the socket"), or else to the connection's ASGI ``send``, right away: with uvicorn's WebSocket
protocol either writes to the socket without ever suspending, so nothing waits and no task or
queue is kept per connection (at thousands of connections those cost memory and collector time:
docs/performance.md). Should a send suspend
(flow control in another server), the frames that follow wait in a backlog, in order, while a
task finishes it; a client whose backlog grows too long has fallen behind: the frames waiting are
dropped, an ``error`` ``too_slow`` and a close with code 4001 take their place (they reach the
client once it reads again; it reconnects and the join brings the full state), and the room is
told at once that the connection is gone (docs/protocol.md, "Close codes").

A client that stopped reading altogether would keep its socket open for ever: the frames (the
``too_slow`` error and the close among them) wait for buffers that never drain. So a send that
waits longer than ``STALL_SECONDS`` counts as falling behind too, and a client that fell behind
has ``CLOSE_GRACE_SECONDS`` to take its error and its close; after that its socket is dropped
(``abort``: the transport is closed at once, without sending what waits), so the connection is
no longer counted and its resources go (docs/decisions/0012).

A send suspends, and frames start to wait here, only once the socket's buffers are full: the
transport's (64 KiB) and the kernel's. The kernel's send buffer of a WebSocket is bounded at its
upgrade (app/http_protocol.py), so these limits see a client that stopped reading after some
128 KiB, not after the megabytes a kernel buffer grows to (docs/decisions/0041).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol, cast

import orjson

from app.realtime.room.members import Member
from app.realtime.room.protocol import CLOSE_FELL_BEHIND, error_frame
from app.realtime.transport.wire import TextWriter

BACKLOG_LIMIT = 512
STALL_SECONDS = 10.0
"""A send that waits this long for the client to read: the client has fallen behind."""
CLOSE_GRACE_SECONDS = 5.0
"""How long a client that fell behind has to read its ``too_slow`` error and its close before
its socket is dropped."""
RTT_SAMPLES = 5
PINGS_REMEMBERED = 4
_ids = itertools.count(1)

Message = dict[str, Any]
AsgiSend = Callable[[Message], Awaitable[None]]


def asgi_message(message: Message) -> Message:
    """``message`` as ASGI has it: a frame's bytes (how the room hands them out) as text."""
    data = message.get("text")
    if isinstance(data, bytes):
        return {"type": "websocket.send", "text": data.decode()}
    return message


Frame = Message | bytes
"""What a gate holds: a text frame's bytes as the room encoded them, or a message (a close)."""


class Gate(Protocol):
    """What a connection's frames pass through before its socket: a durable room's frame gate
    (``FrameGate``, app/realtime/durable/journal.py), named here without importing it."""

    def send(self, conn: Connection, frame: Frame) -> None: ...


class Connection:
    """A joined (or joining) WebSocket client of one room."""

    __slots__ = ("id", "member", "watcher", "closed", "_close_out", "_rtts", "rtt_ms", "_send",
                 "_direct", "_backlog",
                 "_finishing", "_pings", "heard", "on_gone", "on_bad_join", "gate", "abort",
                 "__weakref__")

    def __init__(self, send: AsgiSend | None = None, direct: TextWriter | None = None) -> None:
        self.id = next(_ids)
        self.member: Member | None = None
        self.watcher = False
        self.closed = False
        self._close_out = False
        """The close was handed to the socket (``finished``)."""
        self._rtts: deque[float] = deque(maxlen=RTT_SAMPLES)
        self.rtt_ms = 0
        self._send = send
        self._direct = direct
        """Writes a text frame straight to the socket when it safely can (``wire.py``)."""
        self._backlog: deque[Message] | None = None
        self._finishing: asyncio.Task[None] | None = None
        self._pings: dict[float, float] | None = None
        """The server's pings not answered yet: their ``t`` and when they left."""
        self.heard: float | None = None
        """When the client last answered a ping of the server (None: it never has)."""
        self.on_gone: Callable[[Connection], None] | None = None
        """Called once when the server gives up on this connection (fell behind, broken)."""
        self.on_bad_join: Callable[[], None] | None = None
        """Called when a join on this connection fails (a bad seat token): a probe spent."""
        self.abort: Callable[[], None] | None = None
        """Drops the socket at once (its transport closed without sending what waits): for a
        client that fell behind and did not read its close in time (``wire.py``)."""
        self.gate: Gate | None = None
        """The room's frame gate once the room has this connection (durable rooms: frames wait
        until the journal has the moves they show; app/realtime/durable/journal.py)."""

    @property
    def joined(self) -> bool:
        return self.member is not None or self.watcher

    @property
    def seat(self) -> int | None:
        return self.member.seat if self.member is not None else None

    @property
    def finished(self) -> bool:
        """Nothing more goes out: the close was handed to the socket, or the socket is gone.
        ``closed`` comes first: a close (and the error before it) may still wait behind the
        room's frame gate or a send backlog, and the endpoint reads (and drops) the client's
        frames until it is out; ending there cut the socket before its close."""
        return self._close_out or self._send is None

    def send_text(self, data: bytes) -> None:
        """Send one encoded frame now (or after the frames still waiting, if any): through the
        room's gate when it has one, which holds the bytes as they are. The bytes go straight
        to the socket when nothing waits (no message built), else in a message; only the usual
        (ASGI) path needs text, and gets it (``asgi_message``)."""
        if self.closed:
            return
        if self.gate is not None:
            self.gate.send(self, data)
        elif self._backlog is not None or self._send is None or not self._direct_write(data):
            self._write({"type": "websocket.send", "text": data})  # ``_write_text``, inlined

    def send_control(self, text: str) -> None:
        """A ping or a pong: past the gate (they show no move, and their timing is measured)."""
        if not self.closed:
            self._write({"type": "websocket.send", "text": text.encode()})

    def write_now(self, frame: Frame) -> None:
        """The gate lets ``frame`` out: a message (a close), or a text frame's bytes."""
        if isinstance(frame, dict):
            self._write(frame)
        else:
            self._write_text(frame)

    def _write_text(self, data: bytes) -> None:
        """A text frame's bytes straight to the socket when nothing waits (no message built on
        that path), else in a message, after what waits."""
        if self._backlog is None and self._send is not None and self._direct_write(data):
            return
        self._write({"type": "websocket.send", "text": data})

    def _write(self, message: Message) -> None:
        if self._send is None:
            return
        if self._backlog is not None:
            if len(self._backlog) >= BACKLOG_LIMIT and not self.closed:
                self._fall_behind()
            else:
                self._backlog.append(message)
            return
        if message["type"] == "websocket.send":
            text = message.get("text")
            if text is not None and self._direct_write(text):
                return
        if message["type"] == "websocket.close":
            self._close_out = True
        coro = cast(Coroutine[Any, Any, None], self._send(asgi_message(message)))  # a coroutine
        try:
            yielded = coro.send(None)
        except StopIteration:
            return
        except Exception:  # noqa: BLE001 - the socket is gone
            self._abandon()
            return
        self._backlog = deque()
        self._finishing = asyncio.get_running_loop().create_task(self._finish(coro, yielded))

    def _direct_write(self, data: bytes) -> bool:
        """``data`` written straight to the socket (``wire.py``): True when it was, or when the
        socket turned out gone (the connection is then abandoned); False when the usual path
        must take it. Nothing may be waiting before it (no backlog)."""
        direct = self._direct
        if direct is None:
            return False
        try:
            return direct(data)
        except Exception:  # noqa: BLE001 - the socket is gone
            self._abandon()
            return True

    async def _finish(self, coro: Coroutine[Any, Any, None], yielded: Any) -> None:
        """Drive a send that suspended to its end, then send the backlog in order.

        The future the send yielded was yielded by the send's own ``await`` (which marked it
        as awaited): it is waited on with ``asyncio.wait``, not awaited a second time, which
        asyncio refuses ("await wasn't used with future") and which once made every suspended
        send look like a lost socket."""
        try:
            while True:
                if yielded is None:
                    await asyncio.sleep(0)
                else:
                    await self._bounded(yielded)
                try:
                    yielded = coro.send(None)
                except StopIteration:
                    break
            while self._backlog:
                assert self._send is not None
                message = self._backlog.popleft()
                if message["type"] == "websocket.close":
                    self._close_out = True
                sending = asyncio.ensure_future(self._send(asgi_message(message)))
                await self._bounded(sending)
                sending.result()
        except Exception:  # noqa: BLE001 - the socket is gone
            self._abandon()
        finally:
            self._backlog = None

    async def _bounded(self, waiting: asyncio.Future[Any]) -> None:
        """Wait for a suspended send; one still waiting after ``STALL_SECONDS`` means the
        client stopped reading: it falls behind (then its socket is dropped unless it reads)."""
        done, _ = await asyncio.wait({waiting}, timeout=STALL_SECONDS)
        if not done:
            if not self.closed:
                self._fall_behind()
            else:
                self._drop_unless_read()
            await asyncio.wait({waiting})

    def _fall_behind(self) -> None:
        """Too many frames wait: drop them; the client learns why and is closed with 4001, and
        has ``CLOSE_GRACE_SECONDS`` to read that before its socket is dropped."""
        assert self._backlog is not None
        self._backlog.clear()
        self._backlog.append({"type": "websocket.send", "text": orjson.dumps(error_frame(
            "too_slow", "you fell behind; reconnect to get the current state"))})
        self._backlog.append({"type": "websocket.close", "code": CLOSE_FELL_BEHIND})
        self._gone()
        self._drop_unless_read()

    def _drop_unless_read(self) -> None:
        asyncio.get_running_loop().call_later(CLOSE_GRACE_SECONDS, self._drop_if_stuck)

    def _drop_if_stuck(self) -> None:
        """The grace is over: a client that has still not taken its frames loses its socket."""
        if self._backlog is not None and self.abort is not None:
            abort, self.abort = self.abort, None
            abort()

    def _abandon(self) -> None:
        self._send = None
        self._direct = None
        self._backlog = None
        self._gone()

    def _gone(self) -> None:
        already = self.closed
        self.closed = True
        if self.on_gone is not None and not already:
            callback, self.on_gone = self.on_gone, None
            callback(self)

    def send(self, frame: dict[str, Any]) -> None:
        self.send_text(orjson.dumps(frame))

    def error(self, code: str, message: str, ref: int | None = None) -> None:
        self.send(error_frame(code, message, ref))

    def close(self, code: int = 1000, error: tuple[str, str] | None = None) -> None:
        """Close the socket after the frames already sent or waiting (with an ``error`` frame
        saying why first, when ``error`` is a code and a message)."""
        if self.closed:
            return
        if error is not None:
            self.error(*error)
        message = {"type": "websocket.close", "code": code}
        if self.gate is not None:
            self.gate.send(self, message)
        else:
            self._write(message)
        self.closed = True

    def ping_sent(self, t: int, now: float) -> None:
        """The server sends ping ``t`` now; only the oldest unanswered few are remembered."""
        if self._pings is None:
            self._pings = {}
        elif len(self._pings) >= PINGS_REMEMBERED:
            del self._pings[next(iter(self._pings))]
        self._pings[t] = now

    def answer_ping(self, t: float, now: float) -> bool:
        """A ``pong``: it counts (once) only for a ping this server sent this connection and that
        was not answered yet, so a client cannot choose its own round trip."""
        sent = self._pings.pop(t, None) if self._pings else None
        if sent is None:
            return False
        self.heard = now
        self.record_rtt(now - sent)
        return True

    def record_rtt(self, seconds: float) -> None:
        """Add a round-trip sample; the figure used is the median of the last few."""
        if 0 <= seconds < 60:
            self._rtts.append(seconds * 1000)
            # The median of at most RTT_SAMPLES figures, without the statistics module's checks
            # and conversions: once a second for every connection.
            ordered = sorted(self._rtts)
            middle = len(ordered) // 2
            self.rtt_ms = round(ordered[middle] if len(ordered) % 2
                                else (ordered[middle - 1] + ordered[middle]) / 2)
