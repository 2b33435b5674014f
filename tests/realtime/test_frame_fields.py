"""Client frames' fields as docs/protocol.md ("Client to server") promises them, over real
WebSockets: strict types (a string or a boolean is not a number, a number is not a flag), the
``ref`` of a refused action frame echoed in its error, and a pong the server did not ask for
ignored without an error, even before ``join``."""

from __future__ import annotations

import json

import pytest

from tests.realtime.helpers import extra_frames, marks, room_of, wait_type

LOOSE_TYPES = [
    {"type": "kick", "member": "2"},
    {"type": "kick", "member": True},
    {"type": "make_host", "member": 2.0},
    {"type": "remove_bot", "member": "3"},
    {"type": "set_options", "room": {"bot_takeover_seconds": "5"}},
    {"type": "set_options", "room": {"bot_takeover_seconds": True}},
    {"type": "ping", "t": "1"},
    {"type": "ping", "t": True},
    {"type": "pong", "t": "1"},
    {"type": "action", "action": {"type": "tap"}, "ref": "7"},
    {"type": "action", "action": {"type": "tap"}, "ref": True},
]


@pytest.mark.parametrize("frame", LOOSE_TYPES, ids=lambda f: json.dumps(f))
def test_a_field_of_the_wrong_json_type_is_bad_message_and_changes_nothing(
        server, open_client, frame):
    code, (host, bob) = room_of(server, open_client, "panika", 2)
    since = marks([host, bob])
    host.send(frame)
    error = wait_type(host, "error", since[0])
    assert error["code"] == "bad_message"
    assert "ref" not in error
    assert [f for f in extra_frames(host, since[0]) if f["type"] != "error"] == []
    assert extra_frames(bob, since[1]) == []
    summary = server.http().get(f"/api/rooms/{code}").json()
    assert [m["id"] for m in summary["members"]] == [host.member, bob.member]
    assert summary["room_options"] == {"bot_takeover_seconds": 20}


@pytest.mark.parametrize("flag", [1, "yes", 0, None])
def test_a_join_flag_must_be_a_json_boolean(server, open_client, flag):
    code = server.create_room("panika", "Ann")["code"]
    client = open_client(code)
    client.send({"type": "join", "nickname": "Bob", "watch": flag})
    error = wait_type(client, "error")
    assert error["code"] == "bad_message" and error["message"].startswith("watch")
    assert [f for f in extra_frames(client, 0) if f["type"] == "welcome"] == []


@pytest.mark.parametrize("frame", [
    {"type": "action", "action": "tap", "ref": 7},
    {"type": "action", "ref": 7},
    {"type": "action", "action": {"type": "tap"}, "ref": 7, "extra": 1},
])
def test_a_malformed_action_frame_gets_bad_message_with_its_ref(server, open_client, frame):
    code, (host, bob) = room_of(server, open_client, "panika", 2)
    since = len(bob.frames)
    bob.send(frame)
    error = wait_type(bob, "error", since)
    assert error["code"] == "bad_message" and error["ref"] == 7


def test_a_malformed_action_frame_before_join_carries_its_ref_too(server, open_client):
    code = server.create_room("panika", "Ann")["code"]
    client = open_client(code)
    client.send({"type": "action", "action": [1], "ref": 12})
    error = wait_type(client, "error")
    assert error == {"type": "error", "code": "bad_message", "ref": 12,
                     "message": error["message"]}


def test_a_pong_the_server_did_not_send_is_ignored_even_before_join(server, open_client):
    code = server.create_room("panika", "Ann")["code"]
    client = open_client(code)
    client.send({"type": "pong", "t": 123})
    client.send({"type": "ping", "t": 4})
    pong = wait_type(client, "pong")
    assert pong["t"] == 4
    assert [f for f in client.frames if f["type"] == "error"] == []
    welcome = client.join(nickname="Bob")
    assert welcome["member"] is not None
    client.send({"type": "pong", "t": 999})
    assert [f for f in extra_frames(client, 0) if f["type"] == "error"] == []


@pytest.mark.parametrize("t", [3, 123.25, 190436118052718, -7])
def test_a_ping_is_answered_with_the_very_same_t(server, open_client, t):
    """docs/protocol.md: ``ping`` is answered by ``pong`` with the same ``t``; an integer comes
    back an integer (``3``, not ``3.0``), on the wire."""
    code = server.create_room("panika", "Ann")["code"]
    client = open_client(code)
    client.send({"type": "ping", "t": t})
    wait_type(client, "pong")
    (raw,) = [text for text in client.raw if '"pong"' in text]
    assert raw == json.dumps({"type": "pong", "t": t}, separators=(",", ":"))
