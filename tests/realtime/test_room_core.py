"""The room's core driven directly: inputs and the time in, effects out (app/realtime/room/core.py;
docs/architecture.md, "The room's core"). No socket, no event loop, no clock: the connections
are bare ``Connection`` objects that send nothing, and every test names the time itself."""

from __future__ import annotations

import gc
import random

import time
import weakref
from typing import Any

import orjson
import pytest

from app.engine import Game, get_game
from app.engine.registry import all_games
from app.engine.replay import replay
from app.realtime.room import protocol as p
from app.realtime.transport.connection import Connection
from app.realtime.room.core import CLOSE_ROOM_CLOSED, CLOSE_SERVER_RESTARTING, RoomCore
from app.realtime.room.effects import (
    BadJoin, BotDecision, Close, Control, Counted, Effect, Later, Save, TakeoverCheck, WakeAt,
)
from app.realtime.transport.guard import CLOSE_POLICY
from app.realtime.room.membership import CLOSE_REMOVED
from tests.conformance.games import option_sets
from tests.realtime.core_helpers import at, frames_to, join, of_type, only, room


def seated(game_id: str = "panika", options: dict[str, Any] | None = None,
           ) -> tuple[RoomCore, Connection, Connection, list[Effect]]:
    """A room of Ann (the host) and Bob whose match has started; the start's effects."""
    core = room(game_id)
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    if options:
        core.frame(ann, p.SetOptions(type="set_options", options=options), at(0))
    return core, ann, bob, core.frame(ann, p.Start(type="start"), at(1))


def test_a_join_is_welcomed_and_everyone_sees_the_room():
    core = room()
    ann, first = join(core, "Ann")
    (welcome,) = of_type(first, ann, "welcome")
    assert welcome["member"] == 1 and welcome["watching"] is False and welcome["token"]
    bob, second = join(core, "Bob")
    for conn in (ann, bob):
        (frame,) = of_type(second, conn, "room")
        assert [m["nickname"] for m in frame["members"]] == ["Ann", "Bob"]
        assert frame["host"] == 1 and frame["status"] == "waiting"
    assert core.state.members[1].conns == {ann}


def test_a_bad_token_is_refused_and_spends_a_probe():
    core = room()
    conn = Connection()
    effects = core.frame(conn, p.Join(type="join", token="not-a-token"), at(0))
    assert [f["code"] for f in of_type(effects, conn, "error")] == ["bad_token"]
    assert only(effects, BadJoin) == [BadJoin(conn)] and not core.state.members


def test_the_host_starts_and_each_seat_gets_its_own_view():
    core, ann, bob, effects = seated()
    assert core.state.status == "playing" and core.state.match_number == 1
    states = {c.seat: of_type(effects, c, "state")[-1] for c in (ann, bob)}
    assert states[0]["seat"] == 0 and states[1]["seat"] == 1
    assert states[0]["view"]["hand"] != states[1]["view"]["hand"]  # a hand is a secret
    assert states[0]["active"] == states[1]["active"] and states[0]["active"]
    assert all(bool(states[s]["legal"]) == (s in states[s]["active"]) for s in (0, 1))
    assert states[0]["events"][0]["kind"] == "start"
    again = core.frame(bob, p.Start(type="start"), at(2))
    assert [f["code"] for f in of_type(again, bob, "error")] == ["not_host"]


def test_an_action_is_applied_timed_and_sent_to_every_seat():
    core, ann, bob, start = seated()
    actor = ann if of_type(start, ann, "state")[-1]["legal"] else bob
    action = of_type(start, actor, "state")[-1]["legal"][0]
    effects = core.frame(actor, p.Action(type="action", action=action, ref=3), at(3.25))
    assert core.state.match is not None and core.state.match.version == 1
    (move,) = core.state.match.log
    assert move.seat == actor.seat and move.at_ms == 2250  # the match started at 1 s
    for conn in (ann, bob):
        state = of_type(effects, conn, "state")[-1]
        assert state["version"] == 1
        assert state["move"] == {"seq": 1, "seat": actor.seat, "at_ms": 2250}
    assert only(effects, Counted)[0].game == "panika"


def test_the_event_history_is_kept_as_text_and_a_late_joiner_gets_the_events_sent():
    """The history holds each event as JSON text, which the collector never walks
    (docs/performance.md, "The collector freezes what it has walked"); the ``history`` frame
    a late joiner gets carries the very events the state frames carried."""
    core, ann, bob, start = seated()
    actor = ann if of_type(start, ann, "state")[-1]["legal"] else bob
    action = of_type(start, actor, "state")[-1]["legal"][0]
    moved = core.frame(actor, p.Action(type="action", action=action), at(2))
    sent = of_type(start, ann, "state")[-1]["events"] + of_type(moved, ann, "state")[-1]["events"]
    assert core.state.history and all(type(e) is str and not gc.is_tracked(e) for e in core.state.history)
    late, effects = join(core, "Cy", 3)
    (history,) = of_type(effects, late, "history")
    assert history["events"] == [e for e in sent if not e.get("transient")]


def test_a_refused_action_answers_its_sender_and_changes_nothing():
    core, ann, bob, _ = seated()
    effects = core.frame(ann, p.Action(type="action", action={"type": "nonsense"}, ref=9),
                         at(2))
    (error,) = of_type(effects, ann, "error")
    assert error["ref"] == 9 and error["code"] == "malformed_action"
    assert core.state.match is not None and core.state.match.version == 0
    assert frames_to(effects, bob) == []


def test_a_move_past_the_games_bound_is_refused_as_a_backstop(monkeypatch):
    """The rules end every match within the game's bound (``max_moves``); should a game break
    its word, the room refuses the move past it (docs/protocol.md, "Limits"): the mover is told,
    nothing changes, and the log stays within the bound."""
    monkeypatch.setattr(type(get_game("panika")), "max_moves", 2)
    core, ann, bob, effects = seated()
    for t in (2, 3, 4):
        mover = next(c for c in (ann, bob) if of_type(effects, c, "state")[-1]["legal"])
        action = of_type(effects, mover, "state")[-1]["legal"][0]
        effects = core.frame(mover, p.Action(type="action", action=action, ref=t), at(t))
        assert core.state.match is not None and len(core.state.match.log) == min(t - 1, 2)
    (error,) = of_type(effects, mover, "error")
    assert (error["code"], error["ref"]) == ("illegal_action", 4)
    assert error["message"] == "this match has reached the most moves it may have (2)"
    assert core.state.match.version == 2 and frames_to(effects, ann if mover is bob else bob) == []


def test_a_timer_falls_due_at_its_deadline_and_plays_the_system_move():
    core, ann, bob, start = seated("panic_lab", {"countdown_seconds": 3})
    (wake,) = only(start, WakeAt)
    assert wake.at == at(1).mono + 3
    assert frames_to(core.timers_due(at(3.9)), ann) == []  # woken early: nothing due yet
    assert core.state.match is not None and core.state.match.version == 0
    effects = core.timers_due(at(4))
    (reveal,) = core.state.match.log
    assert reveal.seat is None and reveal.action == {"type": "reveal"} and reveal.at_ms == 3000
    assert of_type(effects, bob, "state")[-1]["view"]["phase"] == "search"
    assert only(effects, Counted) == [Counted("panic_lab")]


def play_out(core: RoomCore, conns: dict[int, Connection], game: Game,
             t: float = 1.0) -> tuple[float, list[Effect]]:
    """Plays a legal action (drawn from a seeded generator: always the first one could miss
    Panic Lab's answer in every round of a ring) of the first seat that has one, or lets the
    soonest timer fall due, from ``t`` on until the match ends; returns the time it ended and
    the last input's effects."""
    effects: list[Effect] = []
    pick = random.Random(7)
    for _ in range(5000):
        if core.state.status != "playing":
            return t, effects
        assert core.state.match is not None
        seat = next((s for s in conns if game.legal_actions(core.state.match.state, s)), None)
        if seat is None:
            soonest = core.state.timers.soonest()
            assert soonest is not None, "nothing to play and no timer"
            t = soonest - at(0).mono
            effects = core.timers_due(at(t))
        else:
            t += 0.1
            action = pick.choice(game.legal_actions(core.state.match.state, seat))
            effects = core.frame(conns[seat], p.Action(type="action", action=action), at(t))
    raise AssertionError("the match did not end")


def by_seat(ann: Connection, bob: Connection) -> dict[int, Connection]:
    return {c.seat: c for c in (ann, bob) if c.seat is not None}


TWO_PLAYER_GAMES = sorted(g.id for g in all_games() if not g.open_table and g.min_players <= 2)


@pytest.mark.parametrize("game_id", TWO_PLAYER_GAMES)
def test_a_match_plays_to_its_end_and_is_saved_with_its_whole_log(game_id):
    options = option_sets(get_game(game_id))[-1]  # every number at its smallest: the shortest
    core, ann, bob, _ = seated(game_id, options)
    game = get_game(game_id)
    ended, last = play_out(core, by_seat(ann, bob), game)
    assert core.state.status == "finished" and core.state.result is not None
    match = core.state.match
    assert match is not None
    (save,) = only(last, Save)  # the finished match is handed over for saving
    assert of_type(last, ann, "room")[-1]["save_state"] == "saving"
    record = save.record
    assert record.log == match.log and record.ended_at == at(ended).wall
    assert record.seed == match.seed.hex() and replay(game, 2, match.options, match.seed,
                                                           record.log).state is not None
    news = core.saved(match, "saved", 42, at(ended + 1))
    (frame,) = of_type(news, ann, "room")
    assert frame["save_state"] == "saved" and frame["match_id"] == 42



def test_a_rematch_lets_the_finished_match_go():
    """Memory stays bounded however many matches a room plays: once the next match starts, the
    room keeps nothing of the finished one (its log, state and generator); its save task held
    it until written (docs/performance.md, "Memory growth under load")."""
    core, ann, bob, _ = seated()
    game = get_game("panika")
    t, finished = 1.0, []
    for number in range(1, 6):
        t, last = play_out(core, by_seat(ann, bob), game, t)
        match = core.state.match
        assert match is not None and core.state.match_number == number and core.state.status == "finished"
        (save,) = only(last, Save)
        del last, save
        core.saved(match, "saved", number, at(t + 0.5))
        finished.append(weakref.ref(match))
        del match
        started = core.frame(ann, p.Rematch(type="rematch"), at(t + 1))
        assert of_type(started, ann, "room")[-1]["save_state"] is None  # the new match's
        t += 1
        del started
        gc.collect()
        assert [ref() is None for ref in finished] == [True] * number


def test_closing_an_open_table_ends_its_match_and_saves_it():
    core = room("panika_counter")
    ann, _ = join(core, "Ann")
    core.frame(ann, p.Action(type="action", action={"type": "tap"}), at(1))
    effects = core.shutdown(CLOSE_ROOM_CLOSED, durable=False, now=at(2))
    (save,) = only(effects, Save)
    assert save.record.game == "panika_counter" and save.record.log[0].action == {"type": "tap"}
    assert save.record.log[-1].seat is None  # the closing action, by the system
    (close,) = only(effects, Close)
    assert close.conn is ann and close.code == CLOSE_ROOM_CLOSED


def test_a_durable_room_restarting_keeps_its_open_match_running():
    core = room("panika_counter")
    ann, _ = join(core, "Ann")
    core.frame(ann, p.Action(type="action", action={"type": "tap"}), at(1))
    effects = core.shutdown(CLOSE_SERVER_RESTARTING, durable=True, now=at(2))
    assert only(effects, Save) == [] and core.state.status == "playing"
    assert [c.why for c in only(effects, Close)] == [
        ("server_restarting", "the server is restarting; back in a moment")]


def test_a_player_gone_mid_match_is_played_by_a_bot_after_the_grace():
    core, ann, bob, _ = seated()
    effects = core.closed_connection(bob, at(5))
    (check,) = only(effects, Later)
    grace = core.state.room_options["bot_takeover_seconds"]
    assert check.message == TakeoverCheck() and check.delay == pytest.approx(grace + 0.05)
    core.takeover_check(at(5 + grace / 2))
    assert core.state.bots.takeover_seats() == set()
    effects = core.takeover_check(at(5 + grace + 0.05))
    assert core.state.bots.takeover_seats() == {bob.seat}
    (frame,) = of_type(effects, ann, "room")
    assert [m.get("played_by_bot", False) for m in frame["members"]] == [False, True]
    if core.state.match is not None and core.state.game.legal_actions(core.state.match.state, bob.seat):
        (decision,) = [e for e in only(effects, Later) if e.key == ("bot", bob.seat)]
        assert isinstance(decision.message, BotDecision) and decision.message.seat == bob.seat


def test_the_tick_pings_every_connection_and_an_empty_room_closes_when_idle():
    core = room()
    ann, _ = join(core, "Ann")
    effects = core.tick(at(5))
    (ping,) = only(effects, Control)
    assert list(ping.conns) == [ann] and orjson.loads(ping.text)["type"] == "ping"
    core.closed_connection(ann, at(6))
    core.tick(at(100))
    assert not core.state.closed
    core.tick(at(5 + 600.5))  # nobody there for longer than the idle time
    assert core.state.closed


def test_a_removed_member_is_closed_and_their_name_banned():
    core = room()
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    effects = core.frame(ann, p.Kick(type="kick", member=2), at(1))
    assert [(c.conn, c.code) for c in only(effects, Close)] == [(bob, CLOSE_REMOVED)]
    assert 2 not in core.state.members
    _, again = join(core, "bob", t=2)
    assert [c.code for c in only(again, Close)] == [CLOSE_REMOVED]


def test_table_views_past_the_limit_are_closed():
    core = room(max_watchers_per_room=1)
    first, second = Connection(), Connection()
    core.frame(first, p.Join(type="join", watch=True), at(0))
    effects = core.frame(second, p.Join(type="join", watch=True), at(0))
    assert [(c.conn, c.code) for c in only(effects, Close)] == [(second, CLOSE_POLICY)]
    assert core.state.watchers == {first}


def test_the_core_reads_no_clock(monkeypatch):
    """Every time the core uses is the one it is given: with the clocks broken, a whole
    match still plays (and the time stamps are the given ones)."""
    core, ann, bob, _ = seated("panic_lab", {"target_tokens": 1})

    def broken() -> float:
        raise AssertionError("the core read the clock")

    monkeypatch.setattr(time, "monotonic", broken)
    ended, _ = play_out(core, by_seat(ann, bob), get_game("panic_lab"))
    monkeypatch.undo()
    assert core.state.status == "finished" and core.state.match is not None
    assert core.state.match.log[0].at_ms == 3000 and ended > 4


def test_an_input_that_fails_half_way_is_recovered_from_the_log(monkeypatch):
    """A bug in ``apply`` raises out of the core after answering the sender; ``recover``
    gives everyone the room and the state as the log says (issue 7, item 4)."""
    core, ann, bob, start = seated()
    actor = ann if of_type(start, ann, "state")[-1]["legal"] else bob
    action = of_type(start, actor, "state")[-1]["legal"][0]
    game = core.state.game

    def failing(*_args: Any) -> None:
        raise RuntimeError("injected")

    monkeypatch.setattr(game, "apply", failing)
    with pytest.raises(RuntimeError):
        core.frame(actor, p.Action(type="action", action=action, ref=4), at(2))
    partial = core.take()
    assert [f["code"] for f in of_type(partial, actor, "error")] == ["internal"]
    monkeypatch.undo()
    effects = core.recover(at(3))
    assert core.state.match is not None and core.state.match.version == 0 and core.state.status == "playing"
    for conn in (ann, bob):
        assert of_type(effects, conn, "room") and of_type(effects, conn, "state")[-1]["version"] == 0
    assert only(effects, WakeAt)  # the timers the rules ask for run again


def test_host_commands_are_checked_against_the_room():
    core, ann, bob, _ = seated()
    playing = core.frame(ann, p.SetOptions(type="set_options", options={}), at(2))
    assert [f["code"] for f in of_type(playing, ann, "error")] == ["playing"]
    rematch = core.frame(ann, p.Rematch(type="rematch"), at(2))
    assert [f["code"] for f in of_type(rematch, ann, "error")] == ["not_finished"]
    handed = core.frame(ann, p.MakeHost(type="make_host", member=2), at(3))
    assert core.state.host == 2 and of_type(handed, bob, "room")[-1]["host"] == 2
    refused = core.frame(ann, p.Kick(type="kick", member=2), at(4))
    assert [f["code"] for f in of_type(refused, ann, "error")] == ["not_host"]


def test_a_level_the_games_computer_players_do_not_play_is_refused(monkeypatch):
    """The host's menu lists the levels of the game's policy (``Bot.levels``); ``add_bot`` with
    another is refused as ``bad_level`` and adds nobody (docs/protocol.md, "add_bot")."""
    from app.bots import policy

    monkeypatch.setattr(policy("panika"), "levels", ("normal", "hard"))
    core = room("panika")
    ann, _ = join(core, "Ann")
    refused = core.frame(ann, p.AddBot(type="add_bot", difficulty="easy"), at(1))
    assert [f["code"] for f in of_type(refused, ann, "error")] == ["bad_level"]
    assert not any(m.bot for m in core.state.members.values())
    added = core.frame(ann, p.AddBot(type="add_bot", difficulty="hard"), at(2))
    assert of_type(added, ann, "room")[-1]["members"][-1]["bot"] == "hard"
