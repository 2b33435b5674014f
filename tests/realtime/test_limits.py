"""The server's limits (issue 7, items 6, 8, 9, 10; docs/protocol.md, "Limits" and "Close codes"):
the join deadline, sockets closed with their room and with the server, table views per room,
sockets per address, room probes per address (and a forged X-Forwarded-For), frames per room, and
a client that falls behind."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from app.realtime.room.effects import CloseRoom
from app.realtime.transport.connection import BACKLOG_LIMIT, Connection
from tests.clock import until, wait_until
from tests.live import ClientPool, LiveServer, run_async
from tests.realtime.helpers import flood_chat, room_of, silent_socket, wait_frame, wait_type


@contextlib.contextmanager
def live(tmp_path, forwarded_allow_ips=None, keepalive=False, deflate=False, **settings):
    server = LiveServer(tmp_path / "var", ping_interval_seconds=0.5, deflate=deflate, **settings)
    if not keepalive:
        # uvicorn's own keepalive (a ping every 20 s, closed with 1011 when it is not answered
        # within 20 s) is off where a test's clients read only when their test asks; the site's
        # own pings (above) still go out. The tests of a member who stops reading keep it on,
        # as the site serves it: they are closed by the site's limits well before it.
        server.server.config.ws_ping_interval = None
    if forwarded_allow_ips is not None:
        server.server.config.forwarded_allow_ips = forwarded_allow_ips
    with server, ClientPool() as pool:
        yield server, lambda code: pool(server, code)


def closed_with(client, timeout=5.0):
    """Read until the server closes; the close code it sent."""
    with pytest.raises(ConnectionClosed) as info:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            client.recv(timeout=timeout)
    return info.value.rcvd.code


def errors(client):
    return [f["code"] for f in client.frames if f["type"] == "error"]


def on_room_loop(room, fn, *args):
    room.task.get_loop().call_soon_threadsafe(fn, *args)


# --- item 8: the join deadline, a closed room, a stopping server ----------------------------------

def test_a_socket_that_never_joins_is_closed_with_4002(tmp_path):
    # A deadline no join on a loaded machine comes near.
    with live(tmp_path, join_deadline_seconds=2.0) as (server, open_client):
        created = server.create_room("panika", "Ann")
        ann = open_client(created["code"])
        idle = open_client(created["code"])
        ann.join(token=created["token"])
        assert closed_with(idle) == 4002
        assert errors(idle) == ["join_timeout"]
        # A socket that joined in time stays: past its deadline (the idle socket, opened after
        # it, was closed at its own), it still plays.
        ann.send({"type": "resync"})
        assert wait_type(ann, "room", len(ann.frames))["code"] == created["code"]


def test_every_socket_of_a_closing_room_is_closed_with_4003(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    table = open_client(code)
    table.join(watch=True)
    room = server.registry.get(code)
    on_room_loop(room, room.post, CloseRoom())
    for name, c in (("host", clients[0]), ("guest", clients[1]), ("table", table)):
        assert closed_with(c) == 4003
        assert errors(c)[-1:] == ["room_closed"], (name, c.raw[-4:])


def test_a_stopping_server_closes_every_socket_with_1012(tmp_path):
    with live(tmp_path) as (server, open_client):
        code, clients = room_of(server, open_client, "panika", 2)
        server.server.should_exit = True
        for c in clients:
            assert closed_with(c) == 1012


# --- item 9: table views per room, sockets per address, a flood costs its own room --------------

def test_table_views_are_capped_per_room(tmp_path):
    with live(tmp_path, max_watchers_per_room=2) as (server, open_client):
        created = server.create_room("panika", "Ann")
        code = created["code"]
        for _ in range(2):
            open_client(code).join(watch=True)
        third = open_client(code)
        third.send({"type": "join", "watch": True})
        assert closed_with(third) == 1008
        assert errors(third) == ["watchers_full"]
        assert len(server.registry.get(code).state.watchers) == 2


def test_sockets_are_capped_per_address(tmp_path):
    with live(tmp_path, max_sockets_per_address=3) as (server, open_client):
        created = server.create_room("panika", "Ann")
        code = created["code"]
        first = [open_client(code) for _ in range(3)]
        fourth = open_client(code)
        assert closed_with(fourth) == 4004
        assert errors(fourth) == ["too_many_connections"]
        first[0].close()
        guard = server.app.state.guard
        wait_until(lambda: guard.open_sockets("127.0.0.1") == 2, what="the closed socket let go")
        again = open_client(code)
        assert again.join(token=created["token"])["member"] == created["member"]


def test_a_flooded_room_sheds_its_own_frames_not_the_others(tmp_path):
    with live(tmp_path, room_frames_per_second=20, ws_messages_per_second=1000) as (
            server, open_client):
        code, flooders = room_of(server, open_client, "panika", 3)
        other, (calm,) = room_of(server, open_client, "panika", 1)
        started = time.monotonic()
        for i in range(60):
            flooders[i % 3].send({"type": "chat", "text": f"spam {i}"})
        mark = len(calm.frames)
        calm.send({"type": "chat", "text": "hello"})
        assert wait_type(calm, "chat", mark)["text"] == "hello"

        def counted() -> tuple[int, int]:
            refused = sum(errors(c).count("rate_limited") for c in flooders)
            delivered = len([f for f in flooders[0].frames if f["type"] == "chat"])
            return refused, delivered

        while sum(counted()) < 60:  # every spam frame answered: delivered, or refused
            for c in flooders:
                c.drain(0.05)
        refused, delivered = counted()
        elapsed = time.monotonic() - started
        # The room's bucket takes 20 at once and 20 a second: at most that many got through in
        # the time the flood took here (an upper bound on the time the room handled it), the
        # rest was refused (the clients' pongs to the server's pings spend tokens too).
        assert delivered <= 20 + 20 * elapsed, (delivered, elapsed)
        assert refused + delivered >= 60 and refused >= 60 - (20 + 20 * elapsed)


# --- item 10: room probes per address ------------------------------------------------------------

def test_unknown_codes_and_failed_joins_are_throttled_per_address(tmp_path):
    with live(tmp_path, room_probes_per_minute=4) as (server, open_client):
        created = server.create_room("panika", "Ann")
        code = created["code"]
        with server.http() as http:
            assert http.get("/api/rooms/ZZZZ").status_code == 404
            assert http.get("/api/rooms/ZZZY/qr.svg").status_code == 404
            assert http.get("/r/ZZZX").status_code == 404
        # A bad seat token spends the last probe.
        bad = open_client(code)
        bad.send({"type": "join", "token": "forged"})
        assert wait_type(bad, "error")["code"] == "bad_token"
        probes = server.app.state.guard.probes
        wait_until(lambda: probes.blocked("127.0.0.1"), what="the bad join counted")
        with server.http() as http:
            limited = http.get(f"/api/rooms/{code}")
            assert limited.status_code == 429
            assert http.get(f"/r/{code}").status_code == 429
        late = open_client(code)
        assert closed_with(late) == 4429 and errors(late) == ["throttled"]
        # A join on an open socket is refused too.
        bad.send({"type": "join", "nickname": "Eve"})
        assert closed_with(bad) == 4429


def test_a_forged_forwarded_header_from_a_non_proxy_changes_nothing(tmp_path):
    # Only 10.9.9.9 is a trusted proxy: the tests' own address is not.
    with live(tmp_path, forwarded_allow_ips="10.9.9.9", room_probes_per_minute=2) as (
            server, _):
        with server.http() as http:
            for n in range(2):
                forged = {"X-Forwarded-For": f"203.0.113.{n}"}
                assert http.get(f"/api/rooms/ZZZ{'XY'[n]}", headers=forged).status_code == 404
            fresh = {"X-Forwarded-For": "198.51.100.7"}
            assert http.get("/api/rooms/ZZZZ", headers=fresh).status_code == 429
        ws = connect(server.ws_url("ZZZZ"), additional_headers={"X-Forwarded-For": "192.0.2.1"})
        with ws:
            assert json.loads(ws.recv(timeout=5))["code"] == "throttled"
    # From a trusted proxy (uvicorn trusts 127.0.0.1 by default) the header is the address.
    with live(tmp_path / "b", room_probes_per_minute=2) as (server, _), server.http() as http:
        for n in range(3):
            assert http.get("/api/rooms/ZZZZ",
                            headers={"X-Forwarded-For": f"203.0.113.{n}"}).status_code == 404


# --- item 6: a client that falls behind -----------------------------------------------------------

class StuckSocket:
    """An ASGI ``send`` that blocks (flow control) until released."""

    def __init__(self) -> None:
        self.sent: list[dict] = []
        self.writable = asyncio.Event()

    async def send(self, message: dict) -> None:
        await self.writable.wait()
        self.sent.append(message)


def test_a_client_that_falls_behind_is_told_closed_with_4001_and_the_room_is_told():
    async def scenario():
        sock = StuckSocket()
        conn = Connection(sock.send)
        gone = []
        conn.on_gone = gone.append
        for i in range(BACKLOG_LIMIT + 10):
            conn.send_text(f"f{i}")
        assert conn.closed and gone == [conn]
        conn.send_text("after")  # nothing more is queued
        sock.writable.set()
        await until(lambda: len(sock.sent) == 3, what="the queued frames written")
        return sock.sent, gone

    sent, gone = run_async(scenario())
    assert len(gone) == 1
    assert sent[0] == {"type": "websocket.send", "text": "f0"}
    assert json.loads(sent[1]["text"])["code"] == "too_slow"
    assert sent[2] == {"type": "websocket.close", "code": 4001}
    assert len(sent) == 3


def test_a_send_that_waits_for_a_reading_client_delivers_everything_in_order():
    """Issue 25, item 8: a send that suspends (flow control) while its task is already waiting
    is finished, and the frames behind it follow in order; the connection is not given up.
    (The suspended send's future was awaited a second time, which asyncio refuses, so every
    such connection was dropped as if its socket were gone, without ``too_slow``.)"""
    async def scenario():
        sock = StuckSocket()
        conn = Connection(sock.send)
        gone = []
        conn.on_gone = gone.append
        conn.send_text("f0")
        await asyncio.sleep(0.01)  # the send's task is waiting for the socket now
        for i in range(1, 5):
            conn.send_text(f"f{i}")
        sock.writable.set()
        for _ in range(100):
            if len(sock.sent) == 5:
                break
            await asyncio.sleep(0.01)
        return [m["text"] for m in sock.sent], gone, conn.closed

    sent, gone, closed = run_async(scenario())
    assert sent == ["f0", "f1", "f2", "f3", "f4"]
    assert gone == [] and not closed


def test_a_client_that_fell_behind_and_never_reads_loses_its_socket(monkeypatch):
    """Issue 25, item 8: a client that fell behind has a grace to read its ``too_slow`` error
    and close; after it, its socket is dropped (``abort``), so it is no longer kept open."""
    import app.realtime.transport.connection as connection

    monkeypatch.setattr(connection, "CLOSE_GRACE_SECONDS", 0.05)

    async def scenario():
        sock = StuckSocket()
        conn = Connection(sock.send)
        aborted = []
        conn.abort = lambda: aborted.append(True)
        for i in range(BACKLOG_LIMIT + 10):
            conn.send_text(f"f{i}")
        for _ in range(100):
            if aborted:
                break
            await asyncio.sleep(0.01)
        return aborted, conn.closed

    aborted, closed = run_async(scenario())
    assert aborted == [True] and closed


def test_a_send_stalled_past_its_limit_is_falling_behind(monkeypatch):
    """Issue 25, item 8: a send that waits ``STALL_SECONDS`` for a client that stopped reading
    counts as falling behind even with few frames waiting: the room is told, ``too_slow`` and
    the close wait for the grace, then the socket is dropped."""
    import app.realtime.transport.connection as connection

    monkeypatch.setattr(connection, "STALL_SECONDS", 0.05)
    monkeypatch.setattr(connection, "CLOSE_GRACE_SECONDS", 0.05)

    async def scenario():
        sock = StuckSocket()
        conn = Connection(sock.send)
        gone, aborted = [], []
        conn.on_gone = gone.append
        conn.abort = lambda: aborted.append(True)
        conn.send_text("f0")
        conn.send_text("f1")
        for _ in range(100):
            if aborted:
                break
            await asyncio.sleep(0.01)
        return gone, aborted

    gone, aborted = run_async(scenario())
    assert len(gone) == 1 and aborted == [True]


def test_the_room_shows_a_fallen_behind_member_disconnected(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    room = server.registry.get(code)
    bob = room.state.members[clients[1].member]
    conn = next(iter(bob.conns))
    mark = len(clients[0].frames)
    on_room_loop(room, conn._gone)
    frame = wait_type(clients[0], "room", mark)
    assert [m["connected"] for m in frame["members"] if m["id"] == bob.id] == [False]


SLOW = 'panic_party_error_frames_total{code="too_slow"}'


def _metric(server, name):  # type: ignore[no-untyped-def]
    with server.http() as http:
        text = http.get("/metrics").text
    return next((float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                 if line.startswith(name + " ")), 0.0)


def _joined_silently(server, ann, code, deflate=False):  # type: ignore[no-untyped-def]
    """A member who joins and then never reads; its socket, member and connection."""
    slow = silent_socket(server, code, deflate)
    joined = wait_frame(ann, lambda f: f["type"] == "room" and len(f["members"]) == 2)
    slow_id = next(m["id"] for m in joined["members"] if m["nickname"] == "Slow")
    member = server.registry.get(code).state.members[slow_id]
    return slow, member, next(iter(member.conns))


def _socket_ends(sock) -> None:  # type: ignore[no-untyped-def]
    """Reading ``sock`` ends (after what the buffers held) by an end of stream or a reset; a
    socket the server left open would time out here."""
    sock.settimeout(10)
    with contextlib.suppress(ConnectionResetError):
        while sock.recv(65536):
            pass


@pytest.mark.parametrize("path", ["direct", "compressed"])
def test_a_member_who_stops_reading_is_closed_too_slow_long_before_uvicorns_keepalive(
        tmp_path, monkeypatch, path):
    """A member who joins and never reads again while another member chats a lot is closed as
    docs/protocol.md says: its frames waiting overflow the backlog of 512, ``too_slow`` is
    counted in ``/metrics``, the others see it disconnected at once, and after the grace its
    socket is dropped, no longer counted in ``panic_party_connections``. All within the waits
    below, far from uvicorn's own keepalive (on here, as the site serves it), which would close
    the socket with 1011 about 39 s after the join, uncounted.

    Before, the kernel's send buffer took some 2.7 MB (7,650 chat lines) from such a member
    before a frame waited where the connection could see it: the flood here (at most 3,000
    lines) never made it fall behind. ``compressed``: a connection that negotiated
    permessage-deflate, whose frames take the usual ASGI path, not the direct writer."""
    import app.realtime.transport.connection as connection

    monkeypatch.setattr(connection, "CLOSE_GRACE_SECONDS", 0.5)
    deflate = path == "compressed"
    with live(tmp_path, keepalive=True, deflate=deflate, ws_messages_per_second=100_000,
              room_frames_per_second=100_000) as (server, open_client):
        code, (ann,) = room_of(server, open_client, "panika", 1)
        before = _metric(server, SLOW)
        slow, member, _ = _joined_silently(server, ann, code, deflate)
        with slow:
            flood_chat(ann, lambda: not member.connected)
            assert not member.connected, "the silent member was never dropped"
            assert _metric(server, SLOW) == before + 1
            wait_frame(ann, lambda f: f["type"] == "room" and any(
                m["id"] == member.id and m["connected"] is False for m in f["members"]))
            # The grace passes with the client still not reading: the server drops the socket
            # (it waits for no closing handshake), so it is no longer counted.
            wait_until(lambda: _metric(server, "panic_party_connections") == 1.0, 10,
                       "the dropped socket no longer counted")
            _socket_ends(slow)


def test_a_member_whose_frames_wait_too_long_is_closed_too_slow(tmp_path, monkeypatch):
    """The limit's other half: frames that wait ``STALL_SECONDS`` (10 s; half a second here)
    for a member who stopped reading are falling behind too, with far fewer than 512 waiting.
    Before, a silent member's frames never waited where the connection could see them."""
    import app.realtime.transport.connection as connection

    monkeypatch.setattr(connection, "STALL_SECONDS", 0.5)
    monkeypatch.setattr(connection, "CLOSE_GRACE_SECONDS", 0.5)
    with live(tmp_path, ws_messages_per_second=100_000, room_frames_per_second=100_000) as (
            server, open_client):
        code, (ann,) = room_of(server, open_client, "panika", 1)
        before = _metric(server, SLOW)
        slow, member, conn = _joined_silently(server, ann, code)
        with slow:
            waiting: list[int] = []

            def frames_wait() -> bool:
                """The member's frames wait in its backlog (how many, when first seen)."""
                backlog = conn._backlog
                if backlog is not None and not waiting:
                    waiting.append(len(backlog))
                return bool(waiting)

            # Chat until its frames wait, a burst's worth at most; then only pings go out.
            flood_chat(ann, frames_wait)
            assert waiting, "the member's frames never waited"
            assert waiting[0] < BACKLOG_LIMIT
            wait_until(lambda: not member.connected, 10, "the stalled member dropped")
            assert _metric(server, SLOW) == before + 1
            wait_until(lambda: _metric(server, "panic_party_connections") == 1.0, 10,
                       "the dropped socket no longer counted")
            _socket_ends(slow)


def test_token_bucket_allows_its_rate_with_a_second_of_burst():
    from app.realtime.transport.guard import TokenBucket

    bucket = TokenBucket(10)
    now = time.monotonic()
    assert sum(bucket.allow(now) for _ in range(25)) == 10
    assert not bucket.allow(now + 0.05)
    assert bucket.allow(now + 0.11)
    assert sum(bucket.allow(now + 5) for _ in range(25)) == 10  # never more than a second's worth


class _Recorder:
    """A stand-in connection for ``FrameLimit``: what it was told."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.closes: list[int] = []

    def error(self, code, message, ref=None):  # type: ignore[no-untyped-def]
        self.errors.append(code)

    def close(self, code, error=None):  # type: ignore[no-untyped-def]
        self.closes.append(code)


def test_more_than_twice_the_allowance_within_a_second_closes_at_once():
    """Issue 25, item 7 (docs/protocol.md, "Limits"): at 40 frames a second, 80 back-to-back
    frames are 40 passed and 40 refused (one ``rate_limited``); the 81st closes (1008). It took
    121 before."""
    from app.realtime.endpoint import FrameLimit
    from app.realtime.transport.guard import SocketGuard, SocketPolicy

    limit = FrameLimit(SocketGuard(SocketPolicy(frames_per_second=40)))
    conn = _Recorder()
    now = time.monotonic()  # the buckets start on the monotonic clock
    passed = [limit.admit(conn, now) for _ in range(80)]
    assert sum(passed) == 40 and conn.closes == [] and conn.errors == ["rate_limited"]
    assert not limit.admit(conn, now)
    assert conn.closes == [1008]


def test_a_client_at_twice_its_allowance_for_seconds_is_not_closed():
    """Sending at just under twice the allowance, second after second, is refused in part but
    not closed; a pause gives the whole allowance back."""
    from app.realtime.endpoint import FrameLimit
    from app.realtime.transport.guard import SocketGuard, SocketPolicy

    limit = FrameLimit(SocketGuard(SocketPolicy(frames_per_second=40)))
    conn = _Recorder()
    now = time.monotonic()  # the buckets start on the monotonic clock
    passed = 0
    for second in range(5):
        for i in range(79):
            passed += limit.admit(conn, now + second + i / 79)
    assert conn.closes == []
    assert 40 * 5 - 1 <= passed <= 40 * 5
    assert sum(limit.admit(conn, now + 10 + i / 1000) for i in range(40)) == 40


def test_a_burst_of_ninety_frames_is_closed_over_a_real_socket(tmp_path):
    """Issue 25, item 7, as the outside check saw it: 90 back-to-back frames (40 allowed) close
    the connection with 1008 ``flooding``."""
    with live(tmp_path) as (server, open_client):
        code, (ann,) = room_of(server, open_client, "panika", 1)
        for i in range(90):
            try:
                ann.send({"type": "ping", "t": i})
            except ConnectionClosed:  # the server closed it before the burst was all sent
                break
        assert closed_with(ann) == 1008
        assert "flooding" in errors(ann)
