"""Nicknames and chat normalised at the door (issue 7, item 2; docs/protocol.md, "Nicknames and
chat"): NFKC, refused control / zero-width / bidi characters, a visible character, names compared
without case after normalisation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.realtime.room.members import unique_nickname
from app.realtime.room.protocol import NICKNAME_MAX, ProtocolError, parse_client_frame
from app.realtime.room.text import TextRefused, name_key, normalise_text
from tests.realtime.helpers import wait_type


def nick(value: str) -> str:
    return normalise_text(value, max_length=NICKNAME_MAX, what="a nickname")


@pytest.mark.parametrize("bad, reason", [
    ("Bo\x00b", "control character"),
    ("B\u200bob", "invisible character"),
    ("\u202eboB", "bidirectional control"),
    ("Ann\u2066x\u2069", "bidirectional control"),
    ("A\u200fB", "bidirectional control"),
    ("\ufeffBob", "invisible character"),
    ("Bob\nAnn", "control character"),
    ("   ", "visible character"),
    ("\u0301\u0302\u0303", "visible character"),
    (" \u3000 \u0301 ", "visible character"),
    ("\u3164\u3164", "visible character"),
    ("B\u200dob", "invisible character"),
    ("x" * (NICKNAME_MAX + 1), "limited to"),
])
def test_refused_nicknames_say_why(bad, reason):
    with pytest.raises(TextRefused, match=reason):
        nick(bad)


def test_nfkc_full_width_and_spaces():
    assert nick("\uff22\uff4f\uff42") == "Bob"  # full-width letters
    assert nick("  Ann \u3000  Lee ") == "Ann Lee"
    assert nick("Zo\u0065\u0301") == "Zo\u00e9"  # composed
    assert nick("\U0001f468\u200d\U0001f469\u200d\U0001f467 fam") == (
        "\U0001f468\u200d\U0001f469\u200d\U0001f467 fam")  # an emoji ZWJ sequence is kept


def test_length_counts_the_normalised_text():
    # U+FDFA expands to 18 characters under NFKC: two of them exceed the limit.
    with pytest.raises(TextRefused, match="limited to"):
        nick("\ufdfa\ufdfa")


def test_names_compare_without_case_after_normalisation():
    assert name_key("\uff22OB") == name_key("bob")
    assert unique_nickname(nick("\uff22OB"), ["Bob"]) == "\uff22OB".replace("\uff22", "B") + " 2"
    assert unique_nickname("BOB", ["bob", "Bob 2"]) == "BOB 3"


@given(st.text(max_size=40))
def test_normalised_text_is_stable_and_clean(value):
    try:
        once = nick(value)
    except TextRefused:
        return
    assert nick(once) == once
    assert "\x00" not in once and "\u200b" not in once and "\u202e" not in once
    assert once == once.strip() and 1 <= len(once) <= NICKNAME_MAX


def test_join_and_chat_frames_refuse_bad_text():
    for frame in ('{"type": "join", "nickname": "Bo\\u0000b"}',
                  '{"type": "join", "nickname": "B\\u200bob"}',
                  '{"type": "chat", "text": "\\u202eevil"}',
                  '{"type": "chat", "text": " \\u0301 "}'):
        with pytest.raises(ProtocolError) as info:
            parse_client_frame(frame)
        assert info.value.code == "bad_message" and "may not" in info.value.message \
            or "visible" in info.value.message
    assert parse_client_frame('{"type": "chat", "text": "\\uff48i"}').text == "hi"


def test_zero_width_name_cannot_sit_beside_bob_over_the_wire(server, open_client):
    created = server.create_room("panika", "Bob")
    code = created["code"]
    host = open_client(code)
    host.join(token=created["token"])
    twin = open_client(code)
    twin.send({"type": "join", "nickname": "B\u200bob"})
    err = wait_type(twin, "error")
    assert err["code"] == "bad_message" and "U+200B" in err["message"]
    same = open_client(code)
    welcome = same.join(nickname="\uff42\uff4f\uff42")  # full-width "bob"
    room = wait_type(same, "room")
    names = [m["nickname"] for m in room["members"]]
    assert welcome["member"] is not None and names == ["Bob", "bob 2"]


def test_room_creation_refuses_a_nul_nickname(server):
    with server.http() as http:
        bad = http.post("/api/rooms", json={"game": "panika", "nickname": "A\u0000"})
        rtl = http.post("/api/rooms", json={"game": "panika", "nickname": "\u202eA"})
        ok = http.post("/api/rooms", json={"game": "panika", "nickname": "\uff21nn"})
    assert bad.status_code == 422 and "control character" in bad.text
    assert rtl.status_code == 422
    assert ok.status_code == 201
    assert server.registry.get(ok.json()["code"]).members[1].nickname == "Ann"
