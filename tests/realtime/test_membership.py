"""Members who leave a room between matches lose their place after a grace period, and a start
never seats them (issue 7, item 7; docs/protocol.md, "Members")."""

from __future__ import annotations

import contextlib
import socket
import time

from tests.live import ClientPool, LiveServer
from tests.realtime.helpers import room_of, wait_frame


@contextlib.contextmanager
def live(tmp_path, **settings):
    server = LiveServer(tmp_path / "var", ping_interval_seconds=0.2, **settings)
    with server, ClientPool() as pool:
        yield server, lambda code: pool(server, code)


def members(frame):
    """The frame's members by nickname (an absent name maps to an empty record)."""
    by_name = {m["nickname"]: m for m in frame["members"]}
    return {name: by_name.get(name, {}) for name in ("Ann", "Bob", "Cy", *by_name)}


def test_ghosts_of_a_waiting_room_are_dropped_after_the_grace(tmp_path):
    with live(tmp_path, left_grace_seconds=1.0) as (server, open_client):
        code, (ann,) = room_of(server, open_client, "panika", 1)
        ghosts = []
        for n in range(5):
            c = open_client(code)
            c.join(nickname=f"Ghost {n}")
            ghosts.append(c)
        mark = len(ann.frames)
        for c in ghosts:
            c.close()
        during = wait_frame(ann, lambda f: f["type"] == "room" and len(f["members"]) == 6
                            and all(m.get("left") for m in f["members"] if m["id"] != ann.member),
                            mark)
        assert not members(during)["Ann"].get("left")
        after = wait_frame(ann, lambda f: f["type"] == "room" and len(f["members"]) == 1,
                           mark, timeout=5)
        assert [m["nickname"] for m in after["members"]] == ["Ann"]
        assert len(server.registry.get(code).members) == 1


def test_coming_back_within_the_grace_keeps_the_place(tmp_path):
    with live(tmp_path, left_grace_seconds=1.5) as (server, open_client):
        code, (ann, bob) = room_of(server, open_client, "panika", 2)
        token, member = bob.token, bob.member
        bob.close()
        wait_frame(ann, lambda f: f["type"] == "room" and members(f)["Bob"].get("left"))
        back = open_client(code)
        assert back.join(token=token)["member"] == member
        frame = wait_frame(ann, lambda f: f["type"] == "room" and members(f)["Bob"].get("connected"))
        assert "left" not in members(frame)["Bob"]
        time.sleep(2.0)
        assert member in server.registry.get(code).members


def test_a_start_does_not_seat_members_who_left(tmp_path):
    with live(tmp_path, left_grace_seconds=30) as (server, open_client):
        code, (ann, bob, cy) = room_of(server, open_client, "panika", 3)
        cy.close()
        wait_frame(ann, lambda f: f["type"] == "room" and members(f)["Cy"].get("left"))
        mark = len(ann.frames)
        ann.send({"type": "start"})
        state = wait_frame(ann, lambda f: f["type"] == "state", mark)
        assert len(state["view"]["players"]) == 2
        room = server.registry.get(code)
        seats = {m.nickname: m.seat for m in room.members.values()}
        assert seats["Ann"] == 0 and seats["Bob"] == 1 and seats.get("Cy") is None


def test_a_seated_player_keeps_the_seat_while_the_match_runs(tmp_path):
    with live(tmp_path, left_grace_seconds=0.3) as (server, open_client):
        code, (ann, bob) = room_of(server, open_client, "panika", 2)
        ann.send({"type": "start"})
        wait_frame(bob, lambda f: f["type"] == "state")
        token = bob.token
        bob.close()
        frame = wait_frame(ann, lambda f: f["type"] == "room" and not members(f)["Bob"].get("connected"))
        assert "left" not in members(frame)["Bob"]
        time.sleep(1.0)
        back = open_client(code)
        assert back.join(token=token)["seat"] == 1


def test_a_full_room_makes_room_by_dropping_the_oldest_ghost(tmp_path):
    from app.realtime.membership import MAX_MEMBERS

    with live(tmp_path, left_grace_seconds=60, max_sockets_per_address=100) as (
            server, open_client):
        code, (ann,) = room_of(server, open_client, "panika", 1)
        ghosts = []
        for n in range(MAX_MEMBERS - 1):
            c = open_client(code)
            c.join(nickname=f"G{n}")
            ghosts.append(c)
        for c in ghosts:
            # The socket just drops (a ghost that read none of its frames cannot close cleanly).
            c.ws.socket.shutdown(socket.SHUT_RDWR)
            c.ws.close_timeout = 0.01
        room = server.registry.get(code)
        deadline = time.monotonic() + 10
        while sum(m.left for m in room.members.values()) < MAX_MEMBERS - 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        first_gone = min((m for m in room.members.values() if m.left), key=lambda m: m.left_at)
        newcomer = open_client(code)
        welcome = newcomer.join(nickname="New")
        assert welcome["member"] is not None
        assert first_gone.id not in room.members and len(room.members) == MAX_MEMBERS
        ann.ws.close_timeout = 0.1  # it read none of its many frames: no clean close to wait for
