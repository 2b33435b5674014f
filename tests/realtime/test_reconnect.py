"""Coming back: a closed socket, a new one with the token from the welcome, the same seat and
the full private view; the room frame's connection dots follow."""

from __future__ import annotations

import pytest
from websockets.exceptions import ConnectionClosed

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


def test_a_seat_opened_in_a_second_tab_takes_it_over_and_closes_the_first(server, open_client):
    """One seat, one connection (docs/decisions/0057): the second tab's join with the same
    token plays; the first gets ``taken_over`` and close 4005, no more frames, and its moves are
    not the seat's any more. The member stays connected throughout."""
    code, clients = room_of(server, open_client, "panika", 2)
    ann, first = clients
    since = len(ann.frames)
    second = open_client(code)
    assert second.join(token=first.token)["member"] == first.member
    error = wait_frame(first, lambda f: f["type"] == "error")
    assert error["code"] == "taken_over" and "another tab" in error["message"]
    with pytest.raises(ConnectionClosed) as closed:
        first.recv(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4005
    room = server.registry.get(code)
    assert len(room.state.members[first.member].conns) == 1
    ann.drain(0.3)
    rooms = [f for f in ann.frames[since:] if f["type"] == "room"]
    assert rooms and all(_connected(f, first.member) for f in rooms)
    # The second tab plays the seat.
    start_panika([ann, second])
    state = second.latest_state()
    assert state["seat"] == 1 and state["view"]["hand"]
    # Taking it back from the first tab's page is another join with the token: the second tab
    # is the one closed then.
    back = open_client(code)
    assert back.join(token=first.token)["member"] == first.member
    assert wait_frame(second, lambda f: f["type"] == "error")["code"] == "taken_over"
    assert wait_frame(back, lambda f: f["type"] == "state")["view"]["hand"] == state["view"]["hand"]
