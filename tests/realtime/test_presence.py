"""Presence that tells the truth within seconds (issue 23; docs/protocol.md, "Presence"): a
connection that answered the server's pings and then answers none is closed at the room's tick
once ``silence_seconds`` have passed, its member shows as away at once, and the room frame says
for how long and how long until a bot stands in. The core is driven directly, with the time
named by the test (tests/realtime/core_helpers.py)."""

from __future__ import annotations

import orjson

from app.realtime.room import protocol as p
from app.realtime.room.protocol import CLOSE_FELL_BEHIND
from app.realtime.room.effects import Close, Control
from tests.realtime.core_helpers import at, join, of_type, only, room


def _ping_t(effects) -> int:  # type: ignore[no-untyped-def]
    (ping,) = [e for e in only(effects, Control) if orjson.loads(e.text)["type"] == "ping"]
    return orjson.loads(ping.text)["t"]


def _started(**policy):  # type: ignore[no-untyped-def]
    core = room("panika", **policy)
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    core.frame(ann, p.Start(type="start"), at(1))
    return core, ann, bob


def test_a_connection_silent_past_the_limit_is_closed_and_its_player_shown_away():
    core, ann, bob = _started(silence_seconds=3.0)
    t = _ping_t(core.tick(at(2)))  # ping_seconds 5 by default: the limit is two intervals, 10 s
    for conn in (ann, bob):
        core.frame(conn, p.Pong(type="pong", t=t), at(2.01))
    t = _ping_t(core.tick(at(7)))
    core.frame(ann, p.Pong(type="pong", t=t), at(7.01))  # Bob's network died: no answer
    effects = core.tick(at(11))
    assert not [c for c in only(effects, Close) if c.conn is bob]  # 8.99 s silent: not yet
    effects = core.tick(at(12.02))
    (close,) = only(effects, Close)
    assert close.conn is bob and close.code == CLOSE_FELL_BEHIND
    (frame,) = of_type(effects, ann, "room")
    ann_m, bob_m = frame["members"]
    assert bob_m["connected"] is False and ann_m["connected"] is True
    grace = core.state.room_options["bot_takeover_seconds"]
    assert bob_m["away_ms"] == 0 and bob_m["bot_in_ms"] == grace * 1000
    assert "away_ms" not in ann_m and "bot_in_ms" not in ann_m
    # Ann, who answers, is never closed however long the match runs.
    for k in range(3):
        t = _ping_t(core.tick(at(13 + 5 * k)))
        core.frame(ann, p.Pong(type="pong", t=t), at(13.01 + 5 * k))
    assert ann.member is not None and ann.member.connected


def test_a_connection_that_never_answered_a_ping_is_not_judged():
    core, ann, bob = _started(silence_seconds=3.0)
    for k in range(5):
        effects = core.tick(at(2 + 5 * k))
        assert not only(effects, Close)


def test_without_a_limit_silence_closes_nothing():
    core, ann, bob = _started()
    t = _ping_t(core.tick(at(2)))
    core.frame(bob, p.Pong(type="pong", t=t), at(2.01))
    assert not only(core.tick(at(60)), Close)


def test_the_room_frame_counts_the_time_away_and_to_the_stand_in():
    core, ann, bob = _started()
    core.frame(ann, p.SetOptions(type="set_options", room={"bot_takeover_seconds": 30}), at(1.5))
    effects = core.closed_connection(bob, at(2))
    (frame,) = of_type(effects, ann, "room")
    assert frame["members"][1]["bot_in_ms"] == 30_000
    frame = core.room_frame()  # the time of the last input: 2 s
    core.state.now = at(12)
    frame = core.room_frame()
    assert frame["members"][1]["away_ms"] == 10_000 and frame["members"][1]["bot_in_ms"] == 20_000
    core.frame(ann, p.SetOptions(type="set_options", room={"bot_takeover_seconds": 0}), at(13))
    assert core.room_frame()["members"][1]["bot_in_ms"] is None  # no bot will stand in
