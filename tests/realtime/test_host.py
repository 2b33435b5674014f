"""Host tools (options, kick, make_host, rematch before the end) and chat."""

from __future__ import annotations

import asyncio
import threading

import pytest
from websockets.exceptions import ConnectionClosed

from tests.clock import wait_until
from tests.live import LiveServer
from tests.realtime.helpers import (
    extra_frames, marks, room_of, start_panika, wait_frame, wait_type,
)


def _error(client, since):
    return wait_type(client, "error", since)["code"]


def test_set_options_valid_and_invalid(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    host, bob = clients
    since = marks(clients)
    host.send({"type": "set_options", "options": {"turn_seconds": 15}})
    for c, s in zip(clients, since, strict=True):
        assert wait_type(c, "room", s)["options"] == {"turn_seconds": 15}
    for bad in ({"turn_seconds": 5}, {"turn_seconds": 500}, {"turn_seconds": "soon"},
                {"speed": 2}):
        mark = len(host.frames)
        host.send({"type": "set_options", "options": bad})
        assert _error(host, mark) == "bad_options", bad
    assert server.registry.get(code).state.options == {"turn_seconds": 15}
    # Nothing but the first room frame reached Bob.
    assert [f["type"] for f in extra_frames(bob, since[1])] == ["room"]
    states = start_panika(clients)
    assert states[0]["view"]["turn_seconds"] == 15
    turn = next(t for t in states[0]["timers"] if t["label"] == "Turn")
    # Made in the same moment as the deadline: the whole 15 s (less a float's rounding).
    assert 14_999 <= turn["remaining_ms"] <= 15_000
    mark = len(host.frames)
    host.send({"type": "set_options", "options": {"turn_seconds": 20}})
    assert _error(host, mark) == "playing"


def test_room_options_at_creation(server, open_client):
    created = server.create_room("panika", "Ann", options={"turn_seconds": 45})
    assert server.registry.get(created["code"]).state.options == {"turn_seconds": 45}
    with server.http() as http:
        bad = http.post("/api/rooms", json={"game": "panika", "nickname": "Ann",
                                             "options": {"turn_seconds": 1}})
    assert bad.status_code == 422


def test_kick_removes_the_member_and_its_token(server, open_client):
    """Removal by the host is a ban for the room (issue 7, item 7): close 4000, the token and the
    nickname refused from then on."""
    code, clients = room_of(server, open_client, "panika", 3)
    host, bob, cy = clients
    since = marks(clients)
    host.send({"type": "kick", "member": bob.member})
    err = wait_type(bob, "error", since[1])
    assert err["code"] == "removed"
    with pytest.raises(ConnectionClosed) as closed:
        for _ in range(50):
            bob.recv(timeout=5)
    assert closed.value.rcvd.code == 4000
    room = wait_frame(cy, lambda f: f["type"] == "room" and len(f["members"]) == 2, since[2])
    assert bob.member not in [m["id"] for m in room["members"]]
    again = open_client(code)
    again.send({"type": "join", "token": bob.token})
    assert wait_type(again, "error")["code"] == "removed"
    with pytest.raises(ConnectionClosed) as closed:
        for _ in range(50):
            again.recv(timeout=5)
    assert closed.value.rcvd.code == 4000
    # Kicking oneself or nobody is refused.
    for member in (host.member, 999):
        mark = len(host.frames)
        host.send({"type": "kick", "member": member})
        assert _error(host, mark) == "bad_member"
    # The kicked nickname (in any case or width) is refused; another name may join.
    for name in ("Bob", "\uff42OB"):
        twin = open_client(code)
        twin.send({"type": "join", "nickname": name})
        assert wait_type(twin, "error")["code"] == "removed"
    other = open_client(code)
    assert other.join(nickname="Dee")["member"] not in (bob.member, None)


def test_make_host_hands_over_the_host_tools(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    host, bob = clients
    since = marks(clients)
    host.send({"type": "make_host", "member": 999})
    assert _error(host, since[0]) == "bad_member"
    host.send({"type": "make_host", "member": bob.member})
    for c, s in zip(clients, since, strict=True):
        assert wait_type(c, "room", s)["host"] == bob.member
    mark = len(host.frames)
    host.send({"type": "start"})
    assert _error(host, mark) == "not_host"
    marks_ = marks(clients)
    bob.send({"type": "start"})
    for c, s in zip(clients, marks_, strict=True):
        assert wait_type(c, "state", s)["version"] == 0


def test_rematch_before_the_end_is_refused(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    host = clients[0]
    mark = len(host.frames)
    host.send({"type": "rematch"})
    assert _error(host, mark) == "not_finished"
    start_panika(clients)
    mark = len(host.frames)
    host.send({"type": "rematch"})
    assert _error(host, mark) == "not_finished"
    assert server.registry.get(code).state.match.version == 0


def test_chat_is_broadcast_with_the_nickname(server, open_client):
    code, clients = room_of(server, open_client, "panika", 3)
    table = open_client(code)
    table.join(watch=True)
    since = marks(clients + [table])
    clients[1].send({"type": "chat", "text": "  hello all  "})
    for c, s in zip(clients + [table], since, strict=True):
        line = wait_type(c, "chat", s)
        assert (line["nickname"], line["text"], line["member"]) == (
            "Bob", "hello all", clients[1].member)
        assert line["at"]
    mark = len(clients[1].frames)
    clients[1].send({"type": "chat", "text": "z" * 301})
    assert _error(clients[1], mark) == "bad_message"
    mark = len(clients[1].frames)
    clients[1].send({"type": "chat", "text": "   "})
    assert _error(clients[1], mark) == "bad_message"
    clients[2].send({"type": "chat", "text": "w" * 300})
    assert len(wait_type(clients[0], "chat", since[0], nickname="Cy")["text"]) == 300
    for c in clients[:1]:
        texts = [f["text"] for f in extra_frames(c, since[0]) if f["type"] == "chat"]
        assert texts == ["hello all", "w" * 300]
    # A newcomer gets the chat so far.
    late = open_client(code)
    late.join(nickname="Late")
    history = wait_type(late, "history")
    assert [line["text"] for line in history["chat"]] == ["hello all", "w" * 300]


def test_the_host_role_passes_on_when_the_host_stays_away(server, open_client, monkeypatch):
    import app.realtime.room.membership as room_module

    monkeypatch.setattr(room_module, "HOST_HANDOVER_SECONDS", 0.2)
    code, clients = room_of(server, open_client, "panika", 3)
    host, bob, _ = clients
    since = len(bob.frames)
    host.close()
    # After the (shortened) grace period, the next tick hands the role to a connected member.
    room = wait_frame(bob, lambda f: f["type"] == "room" and f["host"] != host.member, since,
                      timeout=3)
    assert room["host"] == bob.member
    mark = len(bob.frames)
    bob.send({"type": "start"})
    assert wait_type(bob, "state", mark)["version"] == 0


def test_an_empty_room_closes_after_its_idle_time(tmp_path):
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.1, room_idle_seconds=0.2) as live:
        code = live.create_room("panika", "Ann")["code"]  # made: it was there
        with live.http() as http:
            wait_until(lambda: live.registry.get(code) is None, what="the idle room's close")
            assert http.get(f"/api/rooms/{code}").status_code == 404
            assert code not in [r["code"] for r in http.get("/api/rooms").json()]


class _HeldWrites:
    """The journal's database, each write held until the test lets it go (the server's loop
    goes on meanwhile): a kicked player's error and close wait behind the room's frame gate."""

    def __init__(self, db) -> None:  # type: ignore[no-untyped-def]
        self._db = db
        self.go = threading.Event()

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._db, name)

    async def write(self, fn, db, ops, fences=None):  # type: ignore[no-untyped-def]
        await asyncio.get_running_loop().run_in_executor(None, self.go.wait, 30)
        return await self._db.write(fn, self._db, ops, fences)


def test_a_kicked_player_who_speaks_before_the_journal_has_the_kick_still_gets_why(
        server, open_client, monkeypatch):
    """The kick's error and close wait for the journal (a durable room shows nothing it has
    not recorded); a frame from the kicked player meanwhile (a pong, say) ended its connection
    without them: the page saw a dropped socket instead of "removed" and close 4000. It is
    read and dropped now, and the socket ends once its close is out (``Connection.finished``)."""
    from app.realtime import endpoint

    read: list[str] = []  # every client frame the server has handled, in order
    real = endpoint.receive_directly

    def reading(ws, on_text, on_end):  # type: ignore[no-untyped-def]
        def handled(text: str) -> bool:
            try:
                return on_text(text)
            finally:
                read.append(text)

        return real(ws, handled, on_end)

    monkeypatch.setattr(endpoint, "receive_directly", reading)
    code, (host, bob) = room_of(server, open_client, "panika", 2)
    journal = server.registry.journal
    held = _HeldWrites(journal._db)
    journal._db = held
    try:
        since = marks([host, bob])
        host.send({"type": "kick", "member": bob.member})
        room = server.registry.get(code)
        wait_until(lambda: bob.member not in room.state.members, what="the kick handled")
        bob.send({"type": "pong", "t": 1})
        wait_until(lambda: any('"pong"' in text for text in read), what="bob's pong read")
    finally:
        held.go.set()
        journal._db = held._db
    assert wait_type(bob, "error", since[1])["code"] == "removed"
    with pytest.raises(ConnectionClosed) as closed:
        for _ in range(50):
            bob.recv(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4000
