"""Joining a room over a real WebSocket: host token, nickname, suffixes, bad tokens, order."""

from __future__ import annotations

import pytest

from app.realtime.room.protocol import ProtocolError, parse_client_frame
from tests.realtime.helpers import extra_frames, wait_type


def test_a_join_asking_for_deltas_is_refused_as_an_unknown_field():
    """Delta state frames are gone (docs/protocol.md, "Client to server"): ``deltas`` is a field
    the join does not have, refused like any other, whatever its value."""
    for value in ("true", "false"):
        with pytest.raises(ProtocolError) as refused:
            parse_client_frame('{"type": "join", "nickname": "Ann", "deltas": %s}' % value)
        assert refused.value.code == "bad_message"
        assert refused.value.message.startswith("deltas: Extra inputs are not permitted")


def test_a_refused_deltas_join_changes_nothing_and_a_plain_join_gets_whole_frames(
        server, open_client):
    created = server.create_room("panika", "Ann")
    c = open_client(created["code"])
    c.send({"type": "join", "token": created["token"], "deltas": True})
    error = wait_type(c, "error")
    assert (error["code"], error["message"].split(":")[0]) == ("bad_message", "deltas")
    assert [f["type"] for f in c.frames] == ["error"]  # not joined: no welcome, no room frame
    welcome = c.join(token=created["token"])
    assert welcome["member"] == created["member"]
    bob = open_client(created["code"])
    bob.join(nickname="Bob")
    c.send({"type": "start"})
    state = wait_type(c, "state")
    assert "patch" not in state and "base" not in state and state["view"]


def test_host_joins_with_the_token_from_room_creation(server, open_client):
    created = server.create_room("panika", "Ann")
    host = open_client(created["code"])
    welcome = host.join(token=created["token"])
    assert welcome == {"type": "welcome", "room": created["code"], "member": created["member"],
                       "seat": None, "token": welcome["token"], "watching": False,
                       "ping_ms": 500}
    room = wait_type(host, "room")
    assert room["host"] == created["member"]
    assert [(m["id"], m["nickname"], m["player"], m["connected"]) for m in room["members"]] == [
        (created["member"], "Ann", True, True)]
    # The token in the welcome works as well as the one from creation.
    again = open_client(created["code"])
    assert again.join(token=welcome["token"])["member"] == created["member"]


def test_nickname_join_makes_a_new_member_with_a_token(server, open_client):
    created = server.create_room("panika", "Ann")
    c = open_client(created["code"])
    welcome = c.join(nickname="  Bob  ")
    assert welcome["member"] not in (None, created["member"])
    assert isinstance(welcome["token"], str) and welcome["token"]
    room = wait_type(c, "room")
    bob = next(m for m in room["members"] if m["id"] == welcome["member"])
    assert bob["nickname"] == "Bob" and bob["player"] is True
    # The token brings the same member back on another socket.
    c2 = open_client(created["code"])
    assert c2.join(token=welcome["token"])["member"] == welcome["member"]


def test_duplicate_nicknames_get_a_suffix(server, open_client):
    code = server.create_room("panika", "Ann")["code"]
    names = []
    for nickname in ("ann", "Ann", "Bob"):
        c = open_client(code)
        c.join(nickname=nickname)
        room = wait_type(c, "room")
        names.append(next(m["nickname"] for m in room["members"] if m["id"] == c.member))
    assert names == ["ann 2", "Ann 3", "Bob"]
    # A long nickname keeps within the limit with its suffix.
    c = open_client(code)
    c.join(nickname="X" * 24)
    c2 = open_client(code)
    c2.join(nickname="x" * 24)
    room = c2.wait_for("room", lambda f: any(m["id"] == c2.member for m in f["members"]))
    name = next(m["nickname"] for m in room["members"] if m["id"] == c2.member)
    assert name == "x" * 22 + " 2"


def test_bad_tokens_are_refused(server, open_client):
    created = server.create_room("panika", "Ann")
    other = server.create_room("panika", "Zed")
    for token in ("nonsense", created["token"][:-3] + "abc", other["token"]):
        c = open_client(created["code"])
        c.send({"type": "join", "token": token})
        err = c.wait_for("error")
        assert err["code"] == "bad_token"
        assert not any(f["type"] in ("welcome", "state") for f in c.frames)
        # The connection may still join properly afterwards.
        assert c.join(nickname="Late")["member"] is not None


def test_join_needs_a_nickname_or_a_token(server, open_client):
    code = server.create_room("panika", "Ann")["code"]
    c = open_client(code)
    c.send({"type": "join"})
    assert c.wait_for("error")["code"] == "nickname_required"
    c.send({"type": "join", "nickname": "   "})
    assert c.wait_for("error")["code"] == "bad_message"
    c.send({"type": "join", "nickname": "N" * 25})
    assert c.wait_for("error")["code"] == "bad_message"
    assert not any(f["type"] == "welcome" for f in c.frames)


def test_frames_before_join_are_refused(server, open_client):
    code = server.create_room("panika", "Ann")["code"]
    c = open_client(code)
    for frame in ({"type": "start"}, {"type": "chat", "text": "hi"},
                  {"type": "action", "action": {"type": "tap"}}, {"type": "resync"}):
        c.send(frame)
        assert c.wait_for("error")["code"] == "join_first"
    # ping is answered before joining
    c.send({"type": "ping", "t": 12.5})
    assert c.wait_for("pong")["t"] == 12.5
    welcome = c.join(nickname="Bob")
    c.send({"type": "join", "nickname": "Bob"})
    assert c.wait_for("error")["code"] == "already_joined"
    assert welcome["member"] is not None


def test_unknown_room_is_refused(server, open_client):
    c = open_client("ZZZZ")
    err = c.wait_for("error")
    assert err["code"] == "no_such_room"


def test_open_table_seats_each_member_at_once(server, open_client):
    created = server.create_room("panika_counter", "Ann")
    host = open_client(created["code"])
    assert host.join(token=created["token"])["seat"] == 0
    state = host.wait_for("state")
    assert state["view"]["counter"] == 0 and state["seat"] == 0
    bob = open_client(created["code"])
    assert bob.join(nickname="Bob")["seat"] == 1
    since = len(host.frames)
    bob.action({"type": "tap"})
    st = wait_type(host, "state", since)
    assert st["view"]["counter"] == 1 and st["view"]["taps"][1] == 1
    assert [f for f in extra_frames(host, since) if f["type"] == "error"] == []
