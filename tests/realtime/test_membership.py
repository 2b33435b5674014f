"""Members who leave a room between matches lose their place after a grace period, and a start
never seats them (issue 7, item 7; docs/protocol.md, "Members"). The grace's timing is checked
in the room's core with the time named; over real sockets, that a dropped connection counts."""

from __future__ import annotations

import contextlib
import socket

from app.realtime.room import protocol as p
from app.realtime.transport.connection import Connection
from tests.clock import wait_until
from tests.live import ClientPool, LiveServer
from tests.realtime.core_helpers import at, frames_to, join, of_type, room
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
    with live(tmp_path, left_grace_seconds=0.3) as (server, open_client):
        code, (ann,) = room_of(server, open_client, "panika", 1)
        ghosts = []
        for n in range(5):
            c = open_client(code)
            c.join(nickname=f"Ghost {n}")
            ghosts.append(c)
        mark = len(ann.frames)
        for c in ghosts:
            c.close()
        after = wait_frame(ann, lambda f: f["type"] == "room" and len(f["members"]) == 1,
                           mark, timeout=30)
        assert [m["nickname"] for m in after["members"]] == ["Ann"]
        assert len(server.registry.get(code).state.members) == 1
        # Each ghost was first shown as having left (Ann never), then dropped: in that order,
        # however the closes and the grace fell in time.
        rooms = [f for f in ann.frames[mark:] if f["type"] == "room"]
        for n in range(5):
            shown = [members(f).get(f"Ghost {n}", {}) for f in rooms]
            later = shown[next(i for i, m in enumerate(shown) if m.get("left")):]
            assert later[-1] == {}  # dropped in the end...
            assert all(m == {} or m.get("left") for m in later)  # ...having left till then
        assert not any(members(f)["Ann"].get("left") for f in rooms)


def _names(core) -> list[str]:  # type: ignore[no-untyped-def]
    return [m.nickname for m in core.state.members.values()]


def test_ghosts_are_dropped_only_once_the_grace_has_passed():
    """The room's core with the time named: a member who left keeps the place for exactly the
    grace period, whatever the machine's speed."""
    core = room(left_grace_seconds=1.0)
    join(core, "Ann")
    bob, _ = join(core, "Bob")
    core.closed_connection(bob, at(2))
    core.tick(at(3.0))  # exactly the grace: still there, marked as left
    assert _names(core) == ["Ann", "Bob"] and core.state.members[2].left
    effects = core.tick(at(3.01))
    assert _names(core) == ["Ann"]
    (frame,) = [f for f in frames_to(effects, next(iter(core.state.members[1].conns)))
                if f["type"] == "room"]
    assert [m["nickname"] for m in frame["members"]] == ["Ann"]


def test_coming_back_within_the_grace_keeps_the_place():
    core = room(left_grace_seconds=1.5)
    join(core, "Ann")
    bob, joined = join(core, "Bob")
    (welcome,) = of_type(joined, bob, "welcome")
    core.closed_connection(bob, at(1))
    back = Connection()
    again = core.frame(back, p.Join(type="join", token=welcome["token"]), at(2.4))
    assert of_type(again, back, "welcome")[0]["member"] == welcome["member"]
    core.tick(at(60))  # long past the grace: the member is connected again
    assert welcome["member"] in core.state.members and not core.state.members[welcome["member"]].left


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
        seats = {m.nickname: m.seat for m in room.state.members.values()}
        assert seats["Ann"] == 0 and seats["Bob"] == 1 and seats.get("Cy") is None


def test_a_seated_player_keeps_the_seat_while_the_match_runs():
    core = room(left_grace_seconds=0.3)
    ann, _ = join(core, "Ann")
    bob, joined = join(core, "Bob")
    (welcome,) = of_type(joined, bob, "welcome")
    core.frame(ann, p.Start(type="start"), at(1))
    core.closed_connection(bob, at(2))
    core.tick(at(30))  # far past the grace: a seated player's place waits
    assert welcome["member"] in core.state.members
    bob_shown = members(core.room_frame())["Bob"]
    assert not bob_shown["connected"] and "left" not in bob_shown
    back = Connection()
    again = core.frame(back, p.Join(type="join", token=welcome["token"]), at(31))
    assert of_type(again, back, "welcome")[0]["seat"] == 1


def test_a_full_room_makes_room_by_dropping_the_oldest_ghost(tmp_path):
    from app.realtime.room.membership import MAX_MEMBERS

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
        wait_until(lambda: sum(m.left for m in room.state.members.values()) == MAX_MEMBERS - 1,
                   what="every ghost seen gone")
        first_gone = min((m for m in room.state.members.values() if m.left), key=lambda m: m.left_at)
        newcomer = open_client(code)
        welcome = newcomer.join(nickname="New")
        assert welcome["member"] is not None
        assert first_gone.id not in room.state.members and len(room.state.members) == MAX_MEMBERS
        ann.ws.close_timeout = 0.1  # it read none of its many frames: no clean close to wait for
