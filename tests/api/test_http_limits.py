"""HTTP served directly (``serve --lan``) has a deadline and a size limit for a request's headers
and for its body, and a cap on the open connections of one address (app/http_protocol.py;
docs/protocol.md, "Limits"; docs/decisions/0040), checked with slow clients on real sockets
against a real server.

A slow client here is a raw socket that sends part of a request and then waits: the test waits
for the server to close it (a read with a timeout), never for time to pass. The deadline is set
short so that each test takes about a second."""

from __future__ import annotations

import contextlib
import gc
import json
import re
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from websockets.sync.client import connect

from app.http_protocol import MAX_BODY_BYTES, MAX_HEADER_BYTES, SiteHttpProtocol
from tests.clock import wait_until
from tests.live import LiveServer

DEADLINE = 0.5
UNTRUSTED = "10.254.254.254"
"""A ``FORWARDED_ALLOW_IPS`` that leaves the tests' own 127.0.0.1 an ordinary client (by default
it is the trusted proxy, and a trusted proxy is not capped)."""


@contextlib.contextmanager
def serving(tmp_path, trusted: str | None = UNTRUSTED, **settings) -> Iterator[LiveServer]:
    settings.setdefault("http_header_deadline_seconds", DEADLINE)
    server = LiveServer(tmp_path / "var", **settings)
    if trusted is not None:
        server.server.config.forwarded_allow_ips = trusted
    with server:
        yield server


def slow_client(server: LiveServer, sent: bytes = b"GET / HTTP/1.1\r\n") -> socket.socket:
    """A connection that sends ``sent`` (the start of a request) and then nothing more."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    if sent:
        sock.sendall(sent)
    return sock


def read_to_close(sock: socket.socket, timeout: float = 10.0) -> bytes:
    """Everything the server sends until it closes the connection; a connection still open
    after ``timeout`` fails the test (the bound of a broken run: the deadline is 0.5 s)."""
    sock.settimeout(timeout)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        raise AssertionError(f"the server kept the connection open; it sent {received!r}")
    return received


def open_connections(server: LiveServer) -> int:
    """The HTTP connections the server counts for 127.0.0.1."""
    protocol = server.server.config.http
    assert issubclass(protocol, SiteHttpProtocol)
    return protocol.by_address.count("127.0.0.1")


def closed_metric(server: LiveServer, reason: str) -> float:
    with server.http() as http:
        text = http.get("/metrics").text
    name = f'panic_party_http_closed_total{{reason="{reason}"}}'
    return next((float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                 if line.startswith(name + " ")), 0.0)


# --- the header deadline ----------------------------------------------------------------------

def test_a_request_whose_headers_never_end_is_answered_408_and_closed_at_the_deadline(tmp_path):
    """The slow client of the issue: a request line and a header line, then silence. uvicorn
    alone waited for the rest for ever."""
    with serving(tmp_path) as server:
        before = closed_metric(server, "header_deadline")
        started = time.monotonic()
        sock = slow_client(server, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        with sock:
            answer = read_to_close(sock)
        # Never before the deadline, but for the event loop's clock: uvloop (libuv) reads it
        # once an iteration, in whole milliseconds, so a timer may end a little early.
        assert time.monotonic() - started >= DEADLINE - 0.01
        assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
        assert b"\r\nconnection: close\r\n" in answer.lower()
        assert closed_metric(server, "header_deadline") == before + 1


def test_a_connection_on_which_nothing_comes_is_closed_without_an_answer(tmp_path):
    with serving(tmp_path) as server, slow_client(server, b"") as sock:
        assert read_to_close(sock) == b""


def test_a_kept_alive_connections_next_request_has_the_deadline_too(tmp_path):
    """After a response uvicorn's keep-alive timeout ends an idle connection, but the first
    byte of the next request stopped it, and nothing bounded the rest of its headers."""
    with serving(tmp_path) as server, slow_client(server, b"") as sock:
        sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        response = b""
        while b"\r\n\r\n" not in response:
            response += sock.recv(65536)
        head, body = response.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 200 ")
        length = int(next(line.split(b":", 1)[1] for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:")))
        while len(body) < length:
            body += sock.recv(65536)
        sock.sendall(b"GET /api/games HTTP/1.1\r\n")  # ...and the rest never comes
        assert read_to_close(sock).startswith(b"HTTP/1.1 408 ")


def test_requests_whose_headers_come_in_time_are_served_as_ever(tmp_path):
    with serving(tmp_path) as server, server.http() as http:
        for _ in range(3):  # one kept-alive connection
            assert http.get("/api/games").status_code == 200


@pytest.mark.parametrize("sent", [
    b"GET / HTTP/1.1\r\n",
    b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n{",
], ids=["headers", "body"])
def test_a_connection_closed_at_the_deadline_leaves_no_cycle_behind(tmp_path, sent):
    """The deadlines' timers refer to their protocol: they are dropped whenever they end, so a
    connection closed by one is freed by its reference count (decision 0035)."""
    with serving(tmp_path) as server:
        gc.collect()
        gc.disable()  # nothing but reference counts frees anything from here on
        try:
            before = protocols()
            for _ in range(3):
                with slow_client(server, sent) as sock:
                    assert read_to_close(sock).startswith(b"HTTP/1.1 408 ")
            wait_until(lambda: open_connections(server) == 0, what="the connections let go")
            # The transport lets go of its protocol a moment after the close is counted; with the
            # collector off, only a reference count can free it, and a cycle never would.
            wait_until(lambda: protocols() == before, what="the protocols freed")
        finally:
            gc.enable()


def protocols() -> int:
    return sum(isinstance(obj, SiteHttpProtocol) for obj in gc.get_objects())


def test_headers_larger_than_the_limit_are_answered_431_and_closed(tmp_path):
    """httptools keeps whatever headers come: within the deadline a client made the server hold
    as much as it could send (16 MB were read and answered)."""
    with serving(tmp_path, http_header_deadline_seconds=60) as server:
        before = closed_metric(server, "headers_too_large")
        with slow_client(server) as sock:
            line = b"X-Filler: " + b"a" * 1000 + b"\r\n"
            with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                for _ in range(MAX_HEADER_BYTES // len(line) + 1):
                    sock.sendall(line)
            assert read_to_close(sock).startswith(b"HTTP/1.1 431 Request Header Fields Too Large")
        assert closed_metric(server, "headers_too_large") == before + 1


def test_headers_within_the_limit_are_served(tmp_path):
    with serving(tmp_path) as server, server.http() as http:
        filler = {f"x-filler-{i}": "a" * 1000 for i in range(MAX_HEADER_BYTES // 1100)}
        assert http.get("/api/games", headers=filler).status_code == 200


# --- the body's size and deadline ------------------------------------------------------------

def room_head(length: int | None, path: bytes = b"/api/rooms") -> bytes:
    """The line and headers of ``POST /api/rooms`` with a body of ``length`` (None: chunked)."""
    framing = (b"Transfer-Encoding: chunked" if length is None
               else b"Content-Length: %d" % length)
    return (b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\n" + framing + b"\r\n\r\n")


def room_body(size: int) -> bytes:
    """A valid body of ``POST /api/rooms`` that takes ``size`` bytes (padded with spaces)."""
    body = json.dumps({"game": "panika", "nickname": "Ann"}).encode()
    return body + b" " * (size - len(body))


def chunk(data: bytes) -> bytes:
    return b"%x\r\n" % len(data) + data + b"\r\n"


def test_a_body_declared_larger_than_the_limit_is_answered_413_before_it_is_read(tmp_path):
    """uvicorn read whatever body came and FastAPI kept it whole: a gigabyte per connection.
    The client here sends the headers only: the answer comes without a byte of the body."""
    with serving(tmp_path, http_header_deadline_seconds=60) as server:
        before = closed_metric(server, "body_too_large")
        with slow_client(server, room_head(MAX_BODY_BYTES + 1)) as sock:
            answer = read_to_close(sock)
        assert answer.startswith(b"HTTP/1.1 413 Content Too Large\r\n")
        assert b"\r\nconnection: close\r\n" in answer.lower()
        assert closed_metric(server, "body_too_large") == before + 1


def test_a_chunked_body_growing_past_the_limit_is_cut_off_with_413(tmp_path):
    """A chunked body declares no length: it is counted as it arrives, and the byte past the
    limit ends it (the limit itself is served: the next test)."""
    with serving(tmp_path, http_header_deadline_seconds=60) as server:
        before = closed_metric(server, "body_too_large")
        with slow_client(server, room_head(None)) as sock:
            sock.sendall(chunk(b" " * (MAX_BODY_BYTES // 2)) * 2 + chunk(b" "))
            answer = read_to_close(sock)
        assert answer.startswith(b"HTTP/1.1 413 Content Too Large\r\n")
        assert closed_metric(server, "body_too_large") == before + 1


def test_a_body_of_the_limit_is_served_declared_or_chunked(tmp_path):
    with serving(tmp_path) as server, server.http() as http:
        body = room_body(MAX_BODY_BYTES)
        headers = {"content-type": "application/json"}
        assert http.post("/api/rooms", content=body, headers=headers).status_code == 201
        halves = iter([body[:MAX_BODY_BYTES // 2], body[MAX_BODY_BYTES // 2:]])  # chunked
        assert http.post("/api/rooms", content=halves, headers=headers).status_code == 201


def test_a_body_that_never_ends_is_answered_408_and_closed_at_the_deadline(tmp_path):
    """Once a request's headers were complete nothing bounded its body: a client that sent part
    of it held the connection for ever."""
    with serving(tmp_path) as server:
        before = closed_metric(server, "body_deadline")
        started = time.monotonic()
        with slow_client(server, room_head(100) + room_body(100)[:50]) as sock:
            answer = read_to_close(sock)
        # Never before the deadline, but for the event loop's clock: uvloop (libuv) reads it
        # once an iteration, in whole milliseconds, so a timer may end a little early.
        assert time.monotonic() - started >= DEADLINE - 0.01
        assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
        assert b"\r\nconnection: close\r\n" in answer.lower()
        assert closed_metric(server, "body_deadline") == before + 1


def test_the_body_deadline_is_for_the_whole_body_not_between_two_reads(tmp_path):
    """A body trickled a byte at a time brings something to every read: it is cut off at the
    deadline all the same, long before its last byte (it would take 100 times the deadline)."""
    with serving(tmp_path) as server:
        with slow_client(server, room_head(1000)) as sock:
            sock.settimeout(DEADLINE / 10)
            answer = b""
            for byte in room_body(1000):
                with contextlib.suppress(TimeoutError):  # the wait between two bytes
                    if answer := sock.recv(65536):
                        break
                sock.sendall(bytes([byte]))
            assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n")


def test_a_body_still_coming_after_its_response_has_the_deadline_too(tmp_path):
    """A route may answer before reading the body (here an unknown path, 404): what is left of
    the body still has the deadline, and the connection closes without a second answer."""
    with serving(tmp_path) as server:
        before = closed_metric(server, "body_deadline")
        with slow_client(server, room_head(100, b"/nowhere") + room_body(100)[:50]) as sock:
            answer = read_to_close(sock)
        assert answer.startswith(b"HTTP/1.1 404 ")
        assert b"HTTP/1.1" not in answer[8:]  # one answer only
        assert closed_metric(server, "body_deadline") == before + 1


def test_a_kept_alive_connection_serves_a_body_and_then_the_next_request(tmp_path):
    """The body's deadline ends with its body: the next request on the connection is served
    (and has the header deadline, as after any response)."""
    # A deadline the room's creation and the next answer fit in on a loaded machine: this test is
    # about what is served before it, not about the deadline itself.
    with serving(tmp_path, http_header_deadline_seconds=3) as server, \
            slow_client(server, b"") as sock:
        sock.sendall(room_head(200) + room_body(200) + b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.sendall(b"GET /api/games HTTP/1.1\r\n")  # ...and the rest never comes
        answer = read_to_close(sock)
        assert re.findall(rb"HTTP/1\.1 (\d{3}) ", answer) == [b"201", b"200", b"408"]


# --- the cap per address ----------------------------------------------------------------------

def test_an_address_holds_at_most_its_cap_of_http_connections(tmp_path):
    """The issue's 300 slow requests, bounded: with a cap of 3, three are held (until their
    deadline) and every one more is closed at once, unread; once one of the three is gone a
    new connection is served again."""
    with serving(tmp_path, max_http_connections_per_address=3,
                 http_header_deadline_seconds=60) as server:
        before = closed_metric(server, "too_many_connections")
        held = [slow_client(server) for _ in range(3)]  # accepted in order, before the next
        try:
            for _ in range(5):
                with slow_client(server, b"") as refused:
                    assert read_to_close(refused) == b""
            assert open_connections(server) == 3
            held.pop().close()
            wait_until(lambda: open_connections(server) == 2, what="one connection let go")
            assert closed_metric(server, "too_many_connections") == before + 5
        finally:
            for sock in held:
                sock.close()


def test_a_trusted_proxy_is_not_capped(tmp_path):
    """Behind nginx every request comes from the proxy's address: capping it would throttle
    the whole site. 127.0.0.1 is the default trusted proxy (``FORWARDED_ALLOW_IPS``)."""
    with serving(tmp_path, trusted=None, max_http_connections_per_address=2,
                 http_header_deadline_seconds=60) as server:
        held = [slow_client(server) for _ in range(4)]
        try:
            with server.http() as http:
                assert http.get("/api/games").status_code == 200
            assert open_connections(server) == 0  # not counted at all
        finally:
            for sock in held:
                sock.close()


def test_a_websocket_leaves_the_http_count_at_its_upgrade(tmp_path):
    """An upgraded connection is counted once: by the WebSockets' cap
    (``MAX_SOCKETS_PER_ADDRESS``), no longer by the HTTP one."""
    with serving(tmp_path, max_http_connections_per_address=2) as server:
        code = server.create_room("panika")["code"]
        with contextlib.ExitStack() as sockets:
            for _ in range(4):
                sockets.enter_context(connect(server.ws_url(code), ping_interval=None))
            assert open_connections(server) == 0
            assert httpx.get(f"{server.base_url}/api/games").status_code == 200
