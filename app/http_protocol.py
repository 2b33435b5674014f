"""uvicorn's HTTP protocol with the site's limits on the connections it serves directly
(docs/protocol.md, "Limits"; docs/decisions/0040), and without the reference cycle a WebSocket
upgrade leaves behind.

**A request's headers have a deadline.** uvicorn waits for a request's headers for ever: its
keep-alive timeout ends an idle kept-alive connection, but the first byte of a request cancels it,
and a new connection has none. So a client that sends a header line every few seconds held its
connection as long as it liked. Here a request's headers must be complete within
``HTTP_HEADER_DEADLINE_SECONDS`` of the connection's accept, or of the end of the previous
response on a kept-alive connection (uvicorn's own keep-alive timeout, 5 s, still ends one on
which nothing arrives sooner). Past it a request that had begun is answered ``408 Request
Timeout`` and closed; a connection on which nothing came is closed without an answer, as the
keep-alive timeout closes one.

**A request's headers have a size limit.** httptools keeps whatever headers come (16 MB were
read and answered), so within the deadline a client could make the server hold as much as it
could send. A request whose headers are not complete after ``MAX_HEADER_BYTES`` is answered
``431 Request Header Fields Too Large`` and closed.

**A request's body has a size limit and a deadline.** uvicorn reads whatever body comes, for as
long as it takes, and FastAPI reads it whole: a client could trickle one for ever, or make the
server hold a gigabyte per connection. Here a body may take ``MAX_BODY_BYTES``: a request that
declares more (``Content-Length``) is answered ``413 Content Too Large`` at once, before any of
its body is read, and closed; a chunked body that grows past it is cut off the same way as its
bytes arrive. The whole body must come within ``HTTP_HEADER_DEADLINE_SECONDS`` of its headers'
end, ``408 Request Timeout`` and closed beyond. The deadline runs only while the server reads the
body: a pipelined request's body waits, unread, for the responses before it
(docs/decisions/0040). A connection closed while its response had begun gets no answer (it
would be mistaken for the rest of that response).

**Open connections per address are capped.** At most ``MAX_HTTP_CONNECTIONS_PER_ADDRESS``
connections from one peer address (the address the socket sees) are served at once; one more is
closed at once, before anything of it is read (answering it would mean reading its request:
holding the very connection the cap refuses). Peers that are trusted proxies
(``FORWARDED_ALLOW_IPS``, the very list uvicorn believes ``X-Forwarded-For`` from) are not
capped: every request behind a proxy comes from its address, and the proxy has limits of its own
(deploy/nginx.conf). A connection upgraded to a WebSocket leaves this count at the upgrade and is
counted from then on by the WebSockets' own cap (``MAX_SOCKETS_PER_ADDRESS``,
app/realtime/transport/guard.py): each connection is counted once, by what it is now.

**A WebSocket's kernel send buffer is bounded** (``WEBSOCKET_SEND_BUFFER``): the frames a client
has not taken wait where the connection sees them (app/realtime/transport/connection.py) instead
of in a kernel buffer that grew to megabytes for a client that stopped reading (docs/decisions/0041).

**No reference cycle on upgrade.** uvicorn's ``HttpToolsProtocol`` and its parser refer to each
other (the parser calls the protocol's bound methods). For a plain HTTP connection
``connection_lost`` drops the parser and the protocol is freed by its reference count; a
connection upgraded to a WebSocket hands its transport to the WebSocket protocol instead, the
HTTP protocol is never told that the connection ended, and it dies in a cycle of some 14 objects
(its parser, six bound methods, its flow control, deques...) that only a collection of old
objects frees. The collector freezes whatever survives a young pass (decision 0035), so such
cycles waited for a thaw pass: 10,752 objects after 4,000 joins (docs/performance.md). The
upgrade drops the parser too, and the deadlines' timers are dropped whenever they end.

The uvicorn internals used here (the protocol's ``client``, ``transport``, ``loop``, ``pipeline``,
``parser``, ``app``, ``headers`` and ``cycle`` with its ``response_started`` and
``response_complete``, its parser's callbacks, and the proxy-headers middleware's
``trusted_hosts``) are exercised by tests/api/test_http_limits.py; uvicorn is pinned
(docs/decisions/0013).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from app import metrics
from app.config import Settings

log = logging.getLogger(__name__)

WEBSOCKET_SEND_BUFFER = 32 * 1024
"""``SO_SNDBUF`` of a connection upgraded to a WebSocket (Linux doubles it for its own
bookkeeping: 64 KiB). Unset, the kernel grows a socket's send buffer to megabytes (3.9 MB on the
loopback at accept), all of it taken from the server without the client reading a byte. Bounded,
what a client has not taken is this, the transport's 64 KiB, then the connection's backlog,
where the limits of docs/protocol.md apply (512 frames, 10 s). At 64 KiB in flight a phone 300 ms
away still receives 200 KB a second, far more than a room sends."""



MAX_HEADER_BYTES = 32 * 1024
"""The most a request line and its headers may take: nginx's limit with its default buffers
(``large_client_header_buffers 4 8k``). A browser sends one or two kilobytes."""

MAX_BODY_BYTES = 64 * 1024
"""The most a request's body may take (deploy/nginx.conf's ``client_max_body_size`` is the
same). The largest body the site takes, ``POST /api/rooms``, is a few hundred bytes. No more
than uvicorn's high-water mark for a body waiting for the app (it stops reading past 64 KiB), so
the server never stops reading a body whose deadline runs."""


@dataclass(frozen=True)
class HttpLimits:
    """The limits of one server's HTTP connections (``HTTP_HEADER_DEADLINE_SECONDS`` for a
    request's headers and again for its body, ``MAX_HTTP_CONNECTIONS_PER_ADDRESS``)."""

    header_deadline_seconds: float
    body_deadline_seconds: float
    connections_per_address: int

    @classmethod
    def of(cls, settings: Settings) -> HttpLimits:
        return cls(settings.http_header_deadline_seconds, settings.http_header_deadline_seconds,
                   settings.max_http_connections_per_address)


class OpenConnections:
    """The HTTP connections one server holds open, by peer address (its event loop's only)."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self._open: Counter[str] = Counter()

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``; False (not counted) when it has too many."""
        if self._open[address] >= self.per_address:
            return False
        self._open[address] += 1
        return True

    def release(self, address: str) -> None:
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]

    def count(self, address: str) -> int:
        return self._open[address]


def _closing_response(status: bytes, body: bytes) -> bytes:
    return (b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n"
            + body)


REQUEST_TIMEOUT = _closing_response(b"408 Request Timeout", b"the request's headers came too slowly")
"""What a client whose request's headers missed the deadline receives before the close."""
HEADERS_TOO_LARGE = _closing_response(b"431 Request Header Fields Too Large",
                                      b"the request's headers are too large")
"""What a client whose request's headers passed ``MAX_HEADER_BYTES`` receives before the close."""
BODY_TIMEOUT = _closing_response(b"408 Request Timeout", b"the request's body came too slowly")
"""What a client whose request's body missed the deadline receives before the close."""
BODY_TOO_LARGE = _closing_response(b"413 Content Too Large", b"the request's body is too large")
"""What a client whose request's body would pass ``MAX_BODY_BYTES`` receives before the close."""


def bound_send_buffer(transport: asyncio.BaseTransport) -> None:
    """Fix ``transport``'s kernel send buffer at ``WEBSOCKET_SEND_BUFFER`` (see there)."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, WEBSOCKET_SEND_BUFFER)
    except OSError:  # a socket whose family has no such option: the kernel's default stands
        log.debug("could not bound a WebSocket's send buffer", exc_info=True)


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - no httptools: uvicorn picks its h11 protocol, unguarded
    HttpToolsProtocol = None  # type: ignore[assignment,misc]


if HttpToolsProtocol is not None:

    class SiteHttpProtocol(HttpToolsProtocol):
        """``HttpToolsProtocol`` with the header and body limits, the cap per address and the
        bounded WebSocket send buffer of this module, whose upgrade drops the parser as
        ``connection_lost`` does for a plain HTTP connection. ``http_protocol`` makes one
        subclass per server, holding that server's limits and counts."""

        limits: ClassVar[HttpLimits]
        by_address: ClassVar[OpenConnections]

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._counted: str | None = None
            """The peer address this connection is counted under (None: not counted)."""
            self._header_timer: asyncio.TimerHandle | None = None
            """Runs while the server waits for a request's headers."""
            self._header_bytes = 0
            """What came while it waited, so far."""
            self._request_begun = False
            """A request's first byte came and its headers are not complete yet."""
            self._body_pending = False
            """A request the app answers has its headers complete and its body not (yet)."""
            self._body_timer: asyncio.TimerHandle | None = None
            """Runs while the server reads a pending body."""
            self._body_bytes = 0
            """The pending body's bytes so far."""
            self._refused = False
            """The connection was closed for a limit in the middle of a request: whatever else
            came with that request's data is not parsed into requests."""

        # --- the connection ---------------------------------------------------------------
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            peer = self.client[0] if self.client else None
            if peer is not None and not self._trusted_proxy(peer):
                if not self.by_address.admit(peer):
                    metrics.http_closed("too_many_connections")
                    self.transport.close()
                    return
                self._counted = peer
            self._await_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            self._stop_body_wait()
            self._uncount()
            super().connection_lost(exc)

        def _trusted_proxy(self, peer: str) -> bool:
            """Whether uvicorn believes ``peer``'s ``X-Forwarded-For`` (its proxy-headers
            middleware wraps the app when ``proxy_headers`` is on, ``FORWARDED_ALLOW_IPS``)."""
            trusted = getattr(self.app, "trusted_hosts", None)
            return trusted is not None and peer in trusted

        def _uncount(self) -> None:
            if self._counted is not None:
                address, self._counted = self._counted, None
                self.by_address.release(address)

        def _close_for(self, reason: str, answer: bytes | None) -> None:
            """Close the connection for the limit ``reason``, answering ``answer`` first (None:
            closed without an answer)."""
            self._stop_waiting()
            self._stop_body_wait()
            metrics.http_closed(reason)
            if answer is not None:
                self.transport.write(answer)
            self.transport.close()

        # --- the header deadline and size ------------------------------------------------
        def data_received(self, data: bytes) -> None:
            waiting = self._header_timer is not None
            super().data_received(data)
            if waiting and self._header_timer is not None:  # no headers completed by this data
                self._header_bytes += len(data)
                if self._header_bytes > MAX_HEADER_BYTES and not self.transport.is_closing():
                    self._close_for("headers_too_large", HEADERS_TOO_LARGE)
                    return
            if self._body_pending and not self.pipeline:  # this data left a body to come
                self._await_body()

        def _await_headers(self) -> None:
            if self._header_timer is None:
                self._header_bytes = 0
                self._header_timer = self.loop.call_later(
                    self.limits.header_deadline_seconds, self._headers_too_late)

        def _stop_waiting(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None  # the handle refers to this protocol: no cycle kept

        def _headers_too_late(self) -> None:
            self._header_timer = None
            if self.transport.is_closing():
                return
            self._close_for("header_deadline", REQUEST_TIMEOUT if self._request_begun else None)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._request_begun = True
            self._await_headers()  # already running since the accept or the last response

        def on_headers_complete(self) -> None:
            self._stop_waiting()
            self._request_begun = False
            if self._refused:
                return
            if self._declared_body_bytes() > MAX_BODY_BYTES:
                self._refused = True
                idle = not self.pipeline and (self.cycle is None or self.cycle.response_complete)
                self._close_for("body_too_large", BODY_TOO_LARGE if idle else None)
                return
            answered_before = self.cycle
            super().on_headers_complete()
            self._body_pending = self.cycle is not answered_before  # not an upgrade
            self._body_bytes = 0

        def on_response_complete(self) -> None:
            pipelined = bool(self.pipeline)  # a request whose headers came already goes next
            super().on_response_complete()
            if self.transport.is_closing():
                return
            if self._body_pending:  # its request goes now (pipelined), or the app answered early
                self._await_body()
            elif not pipelined:
                self._await_headers()

        # --- the body's size and deadline -------------------------------------------------
        def _declared_body_bytes(self) -> int:
            """The request's ``Content-Length`` (httptools has checked it: digits, one value),
            0 without one."""
            for name, value in self.headers:
                if name == b"content-length":
                    return int(value)
            return 0

        def on_body(self, body: bytes) -> None:
            if self._refused:
                return
            if self._body_pending:  # (not an upgrade's)
                self._body_bytes += len(body)
                if self._body_bytes > MAX_BODY_BYTES:
                    self._refused = True
                    answer = None if self._responding() else BODY_TOO_LARGE
                    self._close_for("body_too_large", answer)
                    return
            super().on_body(body)

        def on_message_complete(self) -> None:
            if self._refused:
                return
            pending, self._body_pending = self._body_pending, False
            self._stop_body_wait()
            super().on_message_complete()
            if (pending and self.cycle.response_complete and not self.pipeline
                    and not self.transport.is_closing()):
                self._await_headers()  # answered before its body ended: the next request's turn

        def _responding(self) -> bool:
            """Whether a response is on its way on this connection (an answer of the server's
            own now would be taken for part of it)."""
            return bool(self.pipeline) or self.cycle.response_started

        def _await_body(self) -> None:
            if self._body_timer is None and not self.transport.is_closing():
                self._body_timer = self.loop.call_later(
                    self.limits.body_deadline_seconds, self._body_too_late)

        def _stop_body_wait(self) -> None:
            if self._body_timer is not None:
                self._body_timer.cancel()
                self._body_timer = None  # the handle refers to this protocol: no cycle kept

        def _body_too_late(self) -> None:
            self._body_timer = None
            if self.transport.is_closing():
                return
            self._close_for("body_deadline", None if self._responding() else BODY_TIMEOUT)

        # --- the upgrade ------------------------------------------------------------------
        def handle_websocket_upgrade(self) -> None:
            self._uncount()  # a WebSocket now: counted by MAX_SOCKETS_PER_ADDRESS
            super().handle_websocket_upgrade()
            self.parser = None  # type: ignore[assignment]  # the WebSocket's connection now
            bound_send_buffer(self.transport)


def http_protocol(settings: Settings) -> Any:
    """What ``uvicorn.run(http=...)`` serves the site with (app/server.py, the tests' live
    server, the benchmarks' server): a protocol class of its own for one server, with the
    limits of ``settings`` and its own count of open connections. Without httptools, uvicorn's
    own choice (its h11 protocol), without these limits."""
    if HttpToolsProtocol is None:  # pragma: no cover
        return "auto"
    limits = HttpLimits.of(settings)
    return type("SiteHttpProtocol", (SiteHttpProtocol,), {
        "limits": limits, "by_address": OpenConnections(limits.connections_per_address)})
