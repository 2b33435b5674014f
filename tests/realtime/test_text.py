"""Nicknames and chat normalised at the door (docs/protocol.md, "Nicknames and chat"): NFKC,
refused control / bidi characters and every character that draws nothing (Unicode's
default-ignorable set, the blank glyphs) wherever it stands, a visible character, and names
compared by their UTS #39 confusable skeletons without case (docs/decisions/0042)."""

from __future__ import annotations

import json
import re

import icu
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.realtime.room import protocol as p
from app.realtime.room.bots import bot_name
from app.realtime.room.effects import Close
from app.realtime.room.members import unique_nickname
from app.realtime.room.protocol import (
    NICKNAME_MAX, ProtocolError, parse_client_frame,
)
from app.realtime.room.text import TextRefused, name_keys, normalise_text, skeleton
from app.realtime.room.membership import CLOSE_REMOVED
from tests.realtime.core_helpers import at, join, only, room
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
    ("\u3164\u3164", "invisible character"),
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
    assert name_keys("\uff22OB") & name_keys("bob")
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
    assert server.registry.get(ok.json()["code"]).state.members[1].nickname == "Ann"


# --- look-alikes: invisible characters anywhere, confusable skeletons --------------------------
CYRILLIC_O = "\u043e"
HOST_LOOK_ALIKES = [
    ("Host\u3164", "U+3164 HANGUL FILLER"),
    ("Host\u115f", "U+115F HANGUL CHOSEONG FILLER"),
    ("Host\u2800", "U+2800 BRAILLE PATTERN BLANK"),
    ("Host\u17b4", "U+17B4 KHMER VOWEL INHERENT AQ"),
    ("H\u034fost", "U+034F COMBINING GRAPHEME JOINER"),
]
"""Five of the six names that were all accepted beside a host called "Host" and all rendered as
"Host": a filler or a blank at the end, a grapheme joiner inside. The sixth is "H" + Cyrillic
"о" + "st"."""


@pytest.mark.parametrize("name, character", HOST_LOOK_ALIKES)
def test_an_invisible_character_is_refused_wherever_it_stands(name, character):
    for where in (name, name[::-1], f"{name} Ann", f"Ann {name}"):
        with pytest.raises(TextRefused, match=re.escape(f"invisible character ({character})")):
            nick(where)


def test_a_cyrillic_look_alike_of_a_taken_name_is_taken():
    twin = nick(f"H{CYRILLIC_O}st")
    assert twin != "Host" and skeleton(twin) == "Host"
    assert unique_nickname(twin, ["Host"]) == f"H{CYRILLIC_O}st 2"
    assert unique_nickname("h\u03bfst", ["Host"]) == "h\u03bfst 2"  # a Greek omicron, lower case
    assert unique_nickname("Ian", ["lan"]) == "Ian 2"  # a capital I is a small L's look-alike
    assert unique_nickname("MIA", ["Mia"]) == "MIA 2"  # ...yet "MIA" is "Mia" in other case
    assert unique_nickname("Mia", ["Mila"]) == "Mia"


def test_bots_are_named_past_look_alikes_of_their_names():
    assert bot_name({"B\u043et Ada"}) == "Bot Alan"  # a Cyrillic "о" in "Bot Ada"


def test_emoji_keep_their_joiners_and_presentation_selectors():
    for kept in ("\u2764\ufe0f Ann",                      # a red heart
                 "#\ufe0f\u20e3 Ann",                     # a keycap
                 "\U0001f3f3\ufe0f\u200d\U0001f308",      # the rainbow flag
                 "\U0001f469\U0001f3fd\u200d\U0001f4bb"):  # a technologist with a skin tone
        assert nick(kept) == kept
    for refused in ("Ann\ufe0f", "A\ufe0fnn", "Ann\U000e0101", "\U0001f3f4\U000e0067\U000e007f"):
        with pytest.raises(TextRefused, match="invisible character"):
            nick(refused)


def test_chat_lines_refuse_invisible_characters_too():
    for text in ("\u3164", "ok\u2800", "o\u034fk", "\u115f\u1160"):
        with pytest.raises(ProtocolError) as info:
            parse_client_frame(json_frame({"type": "chat", "text": text}))
        assert info.value.code == "bad_message" and "invisible character" in info.value.message
    assert parse_client_frame(json_frame({"type": "chat", "text": "gg \u2764\ufe0f"})).text \
        == "gg \u2764\ufe0f"


def json_frame(frame: dict) -> str:
    return json.dumps(frame)


def test_a_removed_name_bans_its_look_alikes():
    core = room()
    ann, _ = join(core, "Ann")
    join(core, "Host")
    core.frame(ann, p.Kick(type="kick", member=2), at(1))
    _, again = join(core, f"H{CYRILLIC_O}ST", t=2)
    assert [c.code for c in only(again, Close)] == [CLOSE_REMOVED]
    _, other = join(core, "Hosta", t=3)
    assert not only(other, Close)


_DEFAULT_IGNORABLE = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
_EMOJI_JOINERS = {"\u200d", "\ufe0e", "\ufe0f"}

_tricky = st.sampled_from(
    "\u3164\u115f\u1160\uffa0\u2800\u17b4\u17b5\u034f\u200b\u200c\u200d\u2060\u180e\u00ad"
    "\ufe0f\ufe0e\ufe00\U000e0101\U000e0067\U0001d159\U00016fe4\u061c\u202e\u0301\u0308"
    "\u3000\u00a0 \t\u2764\U0001f469\U0001f308\U0001f3fd#\u20e3\u043e\u0430\u0435\u0440"
    "\u03bf\uff48\u2126\u212a"
)
_letters = st.characters(codec="utf-8", categories=("L", "N", "P", "S", "M", "Z", "C"))
_alphabet = st.one_of(_tricky, st.sampled_from("Hostanbel1I0O "), _letters)


_C = icu.UCharCategory
_INK_CATEGORIES = {
    _C.UPPERCASE_LETTER, _C.LOWERCASE_LETTER, _C.TITLECASE_LETTER, _C.MODIFIER_LETTER,
    _C.OTHER_LETTER, _C.DECIMAL_DIGIT_NUMBER, _C.LETTER_NUMBER, _C.OTHER_NUMBER,
    _C.CONNECTOR_PUNCTUATION, _C.DASH_PUNCTUATION, _C.START_PUNCTUATION, _C.END_PUNCTUATION,
    _C.INITIAL_PUNCTUATION, _C.FINAL_PUNCTUATION, _C.OTHER_PUNCTUATION, _C.MATH_SYMBOL,
    _C.CURRENCY_SYMBOL, _C.MODIFIER_SYMBOL, _C.OTHER_SYMBOL,
}
_MARKS = {_C.NON_SPACING_MARK, _C.COMBINING_SPACING_MARK, _C.ENCLOSING_MARK}
_BOXED = {_C.PRIVATE_USE_CHAR, _C.UNASSIGNED}


def draws_ink(ch: str) -> bool:
    """The test's own reading of "draws something", asked of ICU one character at a time: a
    letter, digit, punctuation mark or symbol that is not default-ignorable nor a blank glyph."""
    return (icu.Char.charType(ch) in _INK_CATEGORIES
            and not icu.Char.hasBinaryProperty(ch, _DEFAULT_IGNORABLE)
            and ch not in "\u2800\U0001d159\U00016fe4")


@given(st.text(_alphabet, max_size=30))
def test_whatever_is_accepted_draws_ink_and_hides_nothing(value):
    try:
        name = nick(value)
    except TextRefused:
        return
    assert any(draws_ink(ch) for ch in name)
    for i, ch in enumerate(name):
        if draws_ink(ch):
            continue
        if ch == " ":  # one space between words, never at either end
            assert 0 < i < len(name) - 1 and name[i - 1] != " "
        elif ch in _EMOJI_JOINERS:  # inside an emoji sequence only
            assert i > 0 and draws_ink(name[i - 1]) or name[i - 1] == "\ufe0f"
            assert not icu.Char.isalpha(name[i - 1])
        else:  # a combining mark that draws on the character before it, or a character
            # with no glyph of its own but the renderer's box (private use, not yet assigned)
            assert icu.Char.charType(ch) in _MARKS | _BOXED
            assert not icu.Char.hasBinaryProperty(ch, _DEFAULT_IGNORABLE)


_CONFUSABLE = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441",
               "x": "\u0445", "y": "\u0443", "H": "\u041d", "B": "\u0412", "O": "\u039f",
               "T": "\u0422", "K": "\u212a", "l": "I", "i": "\u0456", "s": "\u0455"}
_base_names = st.text(st.sampled_from("HBOTKaeopcxyilsn "), min_size=1, max_size=12).map(
    lambda s: " ".join(s.split()) or "x")


@given(_base_names, st.lists(st.booleans(), min_size=12, max_size=12))
def test_a_look_alike_spelling_or_another_case_shares_a_key(name, swaps):
    """Letters swapped for their look-alikes in other scripts, or the whole name in other case,
    leave the name's keys meeting the original's: the room treats it as taken."""
    twin = "".join(_CONFUSABLE.get(ch, ch) if swap else ch for ch, swap in zip(name, swaps))
    for other in (twin, name.upper(), name.lower(), name.title()):
        assert name_keys(other) & name_keys(name)
        assert other == name or unique_nickname(other, [name]) != other


@given(st.text(_alphabet, min_size=1, max_size=12), st.lists(st.text(_alphabet, max_size=12),
                                                              max_size=6))
def test_a_name_is_taken_exactly_when_a_skeleton_key_is_shared(wanted, taken):
    """Uniqueness is skeleton equality: the name comes back unchanged when no name in the room
    shares a key with it, and whatever comes back shares a key with none."""
    used = set().union(*(name_keys(t) for t in taken))
    chosen = unique_nickname(wanted, taken)
    assert (chosen == wanted) == (not name_keys(wanted) & used)
    assert not name_keys(chosen) & used


def test_the_six_look_alikes_of_host_never_join_as_host(server, open_client):
    """Over the wire: beside a host called "Host", the five invisible ones are refused with the
    reason, and the Cyrillic one joins under a number."""
    created = server.create_room("panika", "Host")
    code = created["code"]
    host = open_client(code)
    host.join(token=created["token"])
    for name, character in HOST_LOOK_ALIKES:
        other = open_client(code)
        other.send({"type": "join", "nickname": name})
        err = wait_type(other, "error")
        assert err["code"] == "bad_message" and character in err["message"]
    twin = open_client(code)
    twin.join(nickname=f"H{CYRILLIC_O}st")
    names = [m["nickname"] for m in wait_type(twin, "room")["members"]]
    assert names == ["Host", f"H{CYRILLIC_O}st 2"]
    with server.http() as http:
        refused = http.post("/api/rooms", json={"game": "panika", "nickname": "Host\u3164"})
    assert refused.status_code == 422 and "U+3164" in refused.text
