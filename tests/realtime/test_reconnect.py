"""Coming back: a closed socket, a new one with the token from the welcome, the same seat and
the full private view; the room frame's connection dots follow."""

from __future__ import annotations

from tests.realtime.helpers import room_of, start_panika, wait_frame


def _connected(frame, member):
    return next(m["connected"] for m in frame["members"] if m["id"] == member)


def test_reconnect_restores_member_seat_and_hand(server, open_client):
    code, clients = room_of(server, open_client, "panika", 3)
    start_panika(clients)
    bob = clients[1]
    before = bob.latest_state()
    token, member, seat = bob.token, bob.member, bob.seat
    watcher = clients[0]
    since = len(watcher.frames)
    bob.close()
    gone = wait_frame(watcher, lambda f: f["type"] == "room"
                      and _connected(f, member) is False, since)
    assert gone["status"] == "playing"

    back = open_client(code)
    welcome = back.join(token=token)
    assert (welcome["member"], welcome["seat"]) == (member, seat)
    state = wait_frame(back, lambda f: f["type"] == "state")
    assert state["seat"] == seat and state["version"] == before["version"]
    assert state["view"]["hand"] == before["view"]["hand"]
    assert state["view"]["legal"] == before["view"]["legal"]
    # The event history of the match comes with it.
    history = wait_frame(back, lambda f: f["type"] == "history")
    assert any(e["kind"] == "start" for e in history["events"])
    wait_frame(watcher, lambda f: f["type"] == "room" and _connected(f, member) is True, since)
    # And the same member keeps playing with the new socket.
    room = server.registry.get(code)
    assert len(room.state.members) == 3
    assert room.state.members[member].seat == seat and room.state.members[member].connected


def test_two_sockets_of_one_member_both_get_frames(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    second = open_client(code)
    assert second.join(token=clients[1].token)["member"] == clients[1].member
    start_panika(clients)
    st = wait_frame(second, lambda f: f["type"] == "state")
    assert st["seat"] == 1 and st["view"]["hand"] == clients[1].latest_state()["view"]["hand"]
    # Closing one of them leaves the member connected.
    since = len(clients[0].frames)
    second.close()
    clients[0].drain(0.3)
    rooms = [f for f in clients[0].frames[since:] if f["type"] == "room"]
    assert all(_connected(f, clients[1].member) for f in rooms)
