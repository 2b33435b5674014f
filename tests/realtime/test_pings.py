"""Round trips are measured only from the server's own pings (issue 7, item 11), the creator keeps
the host role before connecting (item 13), and a table view's errors carry their ref (item 14)."""

from __future__ import annotations

import time

from app.realtime.room.effects import Frame, Tick
from app.realtime.transport.connection import PINGS_REMEMBERED, Connection
from tests.realtime.helpers import marks, room_of, start_panika, wait_frame, wait_type


def test_a_pong_counts_once_and_only_for_a_ping_sent():
    conn = Connection()
    assert not conn.answer_ping(12345, 10.0)  # never sent
    conn.ping_sent(7, 10.0)
    assert not conn.answer_ping(8, 10.1)
    assert conn.answer_ping(7, 10.040) and conn.rtt_ms == 40
    assert not conn.answer_ping(7, 10.001)  # the same answer again
    assert conn.rtt_ms == 40
    for t in range(100, 100 + PINGS_REMEMBERED + 2):
        conn.ping_sent(t, 20.0)
    assert not conn.answer_ping(100, 20.01)  # forgotten: only the last few are kept
    assert conn.answer_ping(100 + PINGS_REMEMBERED + 1, 20.01)


def test_unasked_pongs_cannot_set_a_round_trip(server, open_client):
    started = time.monotonic()
    code, clients = room_of(server, open_client, "panika", 2)
    ann = clients[0]
    room = server.registry.get(code)
    # The client answers the server's pings (tests/live.py); wait for a measured figure.
    ping = wait_type(ann, "ping")
    assert isinstance(ping["t"], int)
    welcome = next(f for f in ann.frames if f["type"] == "welcome")
    assert welcome["ping_ms"] == 500
    # A forged pong with a t from long ago (what a client would send to claim a big round trip)
    # and a replayed one change nothing.
    conn = next(iter(room.state.members[ann.member].conns))
    before = conn.rtt_ms
    for t in (time.monotonic() - 59, 1.0, ping["t"], ping["t"]):
        ann.send({"type": "pong", "t": t})
    wait_type(ann, "ping", len(ann.frames))
    # Every round trip counted is one of the real ones: none is longer than this test has
    # been running (a forged one claimed 59 s), however slow the machine.
    lived_ms = (time.monotonic() - started) * 1000
    assert before <= lived_ms and conn.rtt_ms <= lived_ms
    assert conn._rtts and max(conn._rtts) <= lived_ms


def test_a_pong_is_counted_where_it_arrives_not_queued_for_the_room(server, open_client,
                                                                      monkeypatch):
    """docs/decisions/0033: the heartbeat's answer is the connection's own; the room's queue
    (the door to the game) never sees it, and the round trip is measured all the same."""
    code, clients = room_of(server, open_client, "panika", 2)
    ann = clients[0]
    room = server.registry.get(code)
    posted: list[object] = []
    post = room.post
    monkeypatch.setattr(room, "post", lambda message: (posted.append(message), post(message))[1])
    conn = next(iter(room.state.members[ann.member].conns))
    heard = conn.heard
    for _ in range(2):  # two pings answered (tests/live.py answers each one it reads)
        wait_type(ann, "ping", len(ann.frames))
    wait_type(ann, "ping", len(ann.frames))
    assert conn.heard is not None and conn.heard != heard and conn._rtts
    assert not [p for p in posted if isinstance(p, Frame)], posted  # no pong reached the queue
    assert [p for p in posted if isinstance(p, Tick)]  # while the room ticked (and pinged) on


def test_the_creator_keeps_the_host_role_before_connecting(server, open_client):
    created = server.create_room("panika", "Ann")
    code = created["code"]
    bob = open_client(code)
    bob.join(nickname="Bob")
    room = server.registry.get(code)
    # Several ticks (every 0.5 s) pass while the creator has not connected yet.
    deadline = time.monotonic() + 1.6
    while time.monotonic() < deadline:
        try:
            bob.recv(timeout=0.2)
        except TimeoutError:
            pass
    assert room.state.host == created["member"]
    rooms = [f for f in bob.frames if f["type"] == "room"]
    assert all(f["host"] == created["member"] for f in rooms)


def test_table_view_errors_carry_the_ref(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    start_panika(clients)
    table = open_client(code)
    table.join(watch=True)
    mark = len(table.frames)
    table.action({"type": "tap"}, ref=41)
    err = wait_type(table, "error", mark)
    assert err["code"] == "watching" and err["ref"] == 41
    fresh = open_client(code)
    fresh.action({"type": "tap"}, ref=42)
    err = wait_type(fresh, "error")
    assert err["code"] == "join_first" and err["ref"] == 42
    assert marks([table])
    wait_frame(table, lambda f: f["type"] == "room")


def test_spectators_learn_why_they_watch(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    welcome = next(f for f in clients[1].frames if f["type"] == "welcome")
    assert "watching_reason" not in welcome
    for name in ("C", "D", "E", "F"):
        open_client(code).join(nickname=name)
    full = open_client(code).join(nickname="G")
    assert full["watching_reason"] == "full" and full["seat"] is None
    clients[0].send({"type": "start"})
    wait_type(clients[0], "state")
    late = open_client(code).join(nickname="H")
    assert late["watching_reason"] == "started"
