"""The host's commands around computer players, rule by rule (docs/protocol.md, "Client to
server": ``add_bot``, ``remove_bot``, ``kick``, ``make_host``; "Room options"; "Computer
players"): the room's core driven directly with the time named by each test (no socket, no
event loop), and a few rules checked again over real WebSockets."""

from __future__ import annotations

from dataclasses import astuple
from typing import Any

import orjson
import pytest

from app.realtime.room import protocol as p
from app.realtime.transport.connection import Connection
from app.realtime.room.core import RoomCore
from app.realtime.room.effects import BotDecision, Control, Effect, Later, TakeoverCheck
from app.realtime.room.membership import MAX_MEMBERS
from tests.realtime.core_helpers import at, join, of_type, room
from tests.realtime.helpers import room_of, wait_frame, wait_type


def errors(effects: list[Effect], conn: Connection) -> list[str]:
    return [f["code"] for f in of_type(effects, conn, "error")]


def add_bot(core: RoomCore, host: Connection, difficulty: str = "normal",
            t: float = 0) -> list[Effect]:
    return core.frame(host, p.AddBot(type="add_bot", difficulty=difficulty), at(t))


def bot_ids(core: RoomCore) -> list[int]:
    return [m.id for m in core.state.members.values() if m.bot is not None]


def takeover_checks(effects: list[Effect]) -> list[float]:
    return [e.delay for e in effects if isinstance(e, Later) and e.message == TakeoverCheck()]


# --- add_bot ---------------------------------------------------------------------------------

def test_an_added_bot_is_a_connected_player_without_a_seat_and_changes_no_one_else():
    core = room()
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    effects = add_bot(core, ann, "hard")
    for conn in (ann, bob):
        (frame,) = of_type(effects, conn, "room")
        assert frame["host"] == 1 and frame["bots"] is True
        members = {m["id"]: m for m in frame["members"]}
        assert members[3] == {"id": 3, "nickname": "Bot Ada", "seat": None, "player": True,
                              "connected": True, "rtt_ms": 0, "bot": "hard"}
        assert "bot" not in members[1] and "bot" not in members[2]
        assert "played_by_bot" not in members[3]
    # Seated at the start in the order members joined; the bot's seat in the result.
    cy, _ = join(core, "Cy")
    core.frame(ann, p.Start(type="start"), at(1))
    assert {m.nickname: m.seat for m in core.state.members.values()} == {
        "Ann": 0, "Bob": 1, "Bot Ada": 2, "Cy": 3}


def test_add_bot_refusals_in_order_no_bots_playing_seats_full():
    counter = room("panika_counter")  # an open table: always playing, and no bots
    cy, _ = join(counter, "Cy")
    assert counter.room_frame()["bots"] is False
    assert errors(add_bot(counter, cy), cy) == ["no_bots"]
    core = room()
    ann, _ = join(core, "Ann")
    for _ in range(core.state.game.max_players - 1):
        assert errors(add_bot(core, ann), ann) == []
    assert errors(add_bot(core, ann), ann) == ["seats_full"]
    core.frame(ann, p.Start(type="start"), at(1))
    assert errors(add_bot(core, ann, t=2), ann) == ["playing"]  # playing before seats_full


def test_a_seat_is_free_when_fewer_players_who_have_not_left_than_the_most():
    core = room()
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    for _ in range(core.state.game.max_players - 2):
        add_bot(core, ann)
    assert errors(add_bot(core, ann), ann) == ["seats_full"]
    core.closed_connection(bob, at(1))  # Bob left: within his grace, his seat counts as free
    assert errors(add_bot(core, ann, t=2), ann) == []


@pytest.mark.parametrize("game_id", ["panik_pilze", "panika"])
def test_a_bot_in_the_seat_of_a_player_who_left_makes_them_a_spectator(game_id):
    """Issue 25, item 2: the host, Bob and bots fill every seat; Bob's socket closes; the host
    adds a bot in his place; Bob comes back with his token within his grace: he watches (the
    seat is the bot's), the room has the game's most players and no more, and a start works."""
    core = room(game_id)
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    token = core.token_for(bob.member)
    for _ in range(core.state.game.max_players - 2):
        add_bot(core, ann)
    core.closed_connection(bob, at(1))
    effects = add_bot(core, ann, t=2)
    assert errors(effects, ann) == []
    (frame,) = of_type(effects, ann, "room")
    bob_now = next(m for m in frame["members"] if m["nickname"] == "Bob")
    assert bob_now["player"] is False and bob_now["left"] is True
    assert sum(m["player"] for m in frame["members"]) == core.state.game.max_players
    back = Connection()
    effects = core.frame(back, p.Join(type="join", token=token), at(3))
    (welcome,) = of_type(effects, back, "welcome")
    assert welcome["member"] == bob.member.id and welcome["seat"] is None
    assert welcome["watching_reason"] == "full"
    assert sum(m.player for m in core.state.members.values()) == core.state.game.max_players
    effects = core.frame(ann, p.Start(type="start"), at(4))
    assert errors(effects, ann) == [] and core.state.status == "playing"
    assert bob.member.seat is None


def test_add_bot_in_a_room_of_40_members_drops_one_who_left_or_is_room_full():
    """Reached between matches: newcomers are spectators then, and a removed bot frees a seat."""
    core = room()
    ann, _ = join(core, "Ann")
    for _ in range(core.state.game.max_players - 1):
        add_bot(core, ann)
    core.state.status = "finished"  # between matches (a whole match is beside the point here)
    conns = [join(core, f"Guest {i}")[0] for i in range(MAX_MEMBERS - core.state.game.max_players)]
    core.frame(ann, p.RemoveBot(type="remove_bot", member=bot_ids(core)[0]), at(0))
    join(core, "Late")
    assert len(core.state.members) == MAX_MEMBERS
    assert sum(m.player for m in core.state.members.values()) == core.state.game.max_players - 1
    assert errors(add_bot(core, ann), ann) == ["room_full"]
    assert len(core.state.members) == MAX_MEMBERS
    core.closed_connection(conns[-1], at(1))  # a spectator left: the bot takes their place
    assert errors(add_bot(core, ann, t=2), ann) == []
    assert len(core.state.members) == MAX_MEMBERS
    assert conns[-1].member.id not in core.state.members


def test_bot_names_skip_a_name_a_member_has_in_any_case():
    core = room()
    ann, _ = join(core, "Ann")
    join(core, "bot ADA")
    add_bot(core, ann)
    add_bot(core, ann)
    assert [m.nickname for m in core.state.members.values()] == ["Ann", "bot ADA", "Bot Alan",
                                                           "Bot Grace"]


# --- remove_bot and kick ---------------------------------------------------------------------

def ann_bob_and_a_bot() -> tuple[RoomCore, Connection, Connection, int]:
    """A waiting room: Ann (the host), Bob and a bot Ann added; the bot's member id."""
    core = room()
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    add_bot(core, ann)
    (bot,) = bot_ids(core)
    return core, ann, bob, bot


def test_remove_bot_takes_only_a_bot_and_only_between_matches():
    core, ann, bob, bot = ann_bob_and_a_bot()
    for target in (bob.member.id, ann.member.id, 99):  # a person, the host, unknown
        effects = core.frame(ann, p.RemoveBot(type="remove_bot", member=target), at(1))
        assert errors(effects, ann) == ["bad_member"]
    core.frame(ann, p.Start(type="start"), at(1))
    for frame in (p.RemoveBot(type="remove_bot", member=bot), p.Kick(type="kick", member=bot)):
        assert errors(core.frame(ann, frame, at(2)), ann) == ["playing"]
    assert bot in core.state.members
    # A person's remove_bot during a match is still bad_member (checked first).
    effects = core.frame(ann, p.RemoveBot(type="remove_bot", member=bob.member.id), at(2))
    assert errors(effects, ann) == ["bad_member"]


def test_kick_on_a_bot_removes_it_without_a_ban_and_the_same_name_comes_back():
    core = room()
    ann, _ = join(core, "Ann")
    add_bot(core, ann)
    (bot,) = bot_ids(core)
    effects = core.frame(ann, p.Kick(type="kick", member=bot), at(1))
    assert errors(effects, ann) == []
    (frame,) = of_type(effects, ann, "room")
    assert [m["id"] for m in frame["members"]] == [1] and frame["host"] == 1
    assert not core.state.banned_nonces and not core.state.banned_names
    add_bot(core, ann, t=2)
    assert [m.nickname for m in core.state.members.values()] == ["Ann", "Bot Ada"]


def test_kick_and_make_host_refuse_bad_members_and_a_bot_is_never_host():
    core, ann, bob, bot = ann_bob_and_a_bot()
    assert errors(core.frame(ann, p.Kick(type="kick", member=1), at(1)), ann) == ["bad_member"]
    assert errors(core.frame(ann, p.Kick(type="kick", member=99), at(1)), ann) == ["bad_member"]
    for target in (bot, 99):
        effects = core.frame(ann, p.MakeHost(type="make_host", member=target), at(1))
        assert errors(effects, ann) == ["bad_member"] and core.state.host == 1
    # Ann leaves and her grace ends: the host passes to Bob, never to the bot.
    core.closed_connection(ann, at(2))
    core.tick(at(25))
    assert core.state.host == bob.member.id
    # Bob leaves too: no person is left, the host is null.
    core.closed_connection(bob, at(26))
    core.tick(at(50))
    assert list(core.state.members) == [bot] and core.state.host is None
    assert core.room_frame()["host"] is None


def test_bot_commands_from_a_member_who_is_not_host_are_not_host():
    core, ann, bob, bot = ann_bob_and_a_bot()
    for frame in (p.AddBot(type="add_bot"), p.RemoveBot(type="remove_bot", member=bot),
                  p.Kick(type="kick", member=bot), p.MakeHost(type="make_host", member=2)):
        assert errors(core.frame(bob, frame, at(1)), bob) == ["not_host"]


def test_the_ping_rtt_leaves_bots_out():
    core = room()
    ann, _ = join(core, "Ann")
    add_bot(core, ann)
    (ping,) = [e for e in core.tick(at(5)) if isinstance(e, Control)]
    assert list(orjson.loads(ping.text)["rtt"]) == ["1"]


# --- room options and the takeover -----------------------------------------------------------

def test_a_new_takeover_time_mid_match_counts_from_when_the_player_left():
    core = room()
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    core.frame(ann, p.Start(type="start"), at(1))
    seat = bob.member.seat
    core.closed_connection(bob, at(2))
    # At 10 s the host lowers the time to 15 s: Bob, away since 2 s, is taken over at 17 s.
    effects = core.frame(ann, p.SetOptions(type="set_options",
                                           room=p.RoomOptions(bot_takeover_seconds=15)), at(10))
    assert takeover_checks(effects) == [pytest.approx(7.05)]
    assert core.state.bots.takeover_seats() == set()
    effects = core.takeover_check(at(17.05))
    assert core.state.bots.takeover_seats() == {seat}
    (frame,) = of_type(effects, ann, "room")
    assert [m.get("played_by_bot", False) for m in frame["members"]] == [False, True]
    # Raised past his time away, the stand-in stops until he has been away that long again.
    effects = core.frame(ann, p.SetOptions(type="set_options",
                                           room=p.RoomOptions(bot_takeover_seconds=30)), at(20))
    assert core.state.bots.takeover_seats() == set()
    assert takeover_checks(effects) == [pytest.approx(12.05)]
    assert not any(m.get("played_by_bot") for m in of_type(effects, ann, "room")[0]["members"])
    # Lowered below his time away: taken over at once, in the same room frame.
    effects = core.frame(ann, p.SetOptions(type="set_options",
                                           room=p.RoomOptions(bot_takeover_seconds=5)), at(21))
    assert core.state.bots.takeover_seats() == {seat} and takeover_checks(effects) == []
    assert of_type(effects, ann, "room")[0]["members"][1]["played_by_bot"] is True
    # 0: never.
    core.frame(ann, p.SetOptions(type="set_options",
                                 room=p.RoomOptions(bot_takeover_seconds=0)), at(22))
    assert core.state.bots.takeover_seats() == set()


def test_set_options_is_applied_whole_or_not_at_all_and_room_left_out_fields_default():
    core = room()
    ann, _ = join(core, "Ann")
    core.frame(ann, p.SetOptions(type="set_options",
                                 room=p.RoomOptions(bot_takeover_seconds=5)), at(0))
    assert core.state.room_options == {"bot_takeover_seconds": 5}
    refused = core.frame(ann, p.SetOptions(type="set_options", options={"turn_seconds": "x"},
                                           room=p.RoomOptions(bot_takeover_seconds=9)), at(1))
    assert errors(refused, ann) == ["bad_options"]
    assert core.state.room_options == {"bot_takeover_seconds": 5}
    join(core, "Bob")
    core.frame(ann, p.Start(type="start"), at(2))
    refused = core.frame(ann, p.SetOptions(type="set_options", options={},
                                           room=p.RoomOptions(bot_takeover_seconds=9)), at(3))
    assert errors(refused, ann) == ["playing"] and core.state.room_options["bot_takeover_seconds"] == 5
    core.frame(ann, p.SetOptions.model_validate({"type": "set_options", "room": {}}), at(4))
    assert core.state.room_options == {"bot_takeover_seconds": 20}


# --- over real WebSockets --------------------------------------------------------------------

def test_bot_commands_over_websockets_answer_the_documented_codes(server, open_client):
    code, (host, guest) = room_of(server, open_client, "panika", 2)

    def answer(frame: dict[str, Any]) -> dict[str, Any]:
        since = len(host.frames)
        host.send(frame)
        return wait_frame(host, lambda f: f["type"] in ("room", "error"), since)

    room_frame = answer({"type": "add_bot"})
    (bot,) = [m for m in room_frame["members"] if "bot" in m]
    assert bot["bot"] == "normal" and bot["seat"] is None and bot["connected"] is True
    assert answer({"type": "remove_bot", "member": guest.member})["code"] == "bad_member"
    assert answer({"type": "make_host", "member": bot["id"]})["code"] == "bad_member"
    assert answer({"type": "kick", "member": host.member})["code"] == "bad_member"
    since = len(host.frames)
    host.send({"type": "start"})
    wait_type(host, "state", since)
    assert answer({"type": "add_bot"})["code"] == "playing"
    assert answer({"type": "remove_bot", "member": bot["id"]})["code"] == "playing"
    assert answer({"type": "kick", "member": bot["id"]})["code"] == "playing"


def test_a_seat_whose_player_is_removed_mid_match_is_played_out_by_a_computer_player():
    """Panik Pilze without its turn timer waits for the seat whose turn it is: a player the
    host removes during the match would stop it for good, so a computer player (normal) plays
    that seat to the end (docs/protocol.md, "Computer players")."""
    core = room("panik_pilze")
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    cy, _ = join(core, "Cy")
    started = core.frame(ann, p.Start(type="start"), at(1))
    assert core.state.match is not None
    seat = core.state.members[3].seat
    effects = core.frame(ann, p.Kick(type="kick", member=3), at(2))
    latest = {conn: of_type(started, conn, "state")[-1] for conn in (ann, bob)}
    assert 3 not in core.state.members and core.state.status == "playing"
    played = {m.seat for m in core.state.members.values()}
    assert seat not in played and core.state.bots.takeover_seats() == {seat}
    conns = {core.state.members[1].seat: ann, core.state.members[2].seat: bob}
    t, version = 2.0, core.state.match.version
    for _ in range(60):  # the others play; the bot plays the removed player's turns
        t += 1
        decisions = [e.message for e in effects if isinstance(e, Later)
                     and isinstance(e.message, BotDecision) and e.message.seat == seat]
        if decisions:
            _, generation, action = astuple(decisions[-1])
            before = core.state.match.version
            effects = core.bot_decision(seat, generation, action, at(t))
            assert core.state.match.version > before
            return
        for conn in (ann, bob):
            latest[conn] = (of_type(effects, conn, "state") or [latest[conn]])[-1]
        mover = next(s for s in latest[ann]["active"] if s != seat)
        legal = latest[conns[mover]]["legal"]
        effects = core.frame(conns[mover], p.Action(type="action", action=legal[0]), at(t))
        assert core.state.match.version > version
        version = core.state.match.version
    raise AssertionError("the removed player's seat never came to be played")
