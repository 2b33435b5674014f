"""A match nobody plays (issue 25, item 4; docs/protocol.md, "Computer players"): a running match
plays only while a person is connected to its room. The last person's connection closing pauses
it (timers stopped with the time each had left, bots and stand-ins holding, the room frame
``paused``), the first person back resumes it; a paused match closed by the idle close is not
recorded; a seat whose person was not connected while any move was played is recorded as the
stand-in's. The room's core driven directly, with the time named by each test."""

from __future__ import annotations

from dataclasses import astuple
import logging
import random
from typing import Any

from app.engine import get_game
from app.realtime.room import protocol as p
from app.realtime.transport.connection import Connection
from app.realtime.room.core import CLOSE_ROOM_CLOSED, RoomCore
from app.realtime.room.effects import (
    BotDecision, Cancel, Effect, Later, Message, Save, WakeAt,
)
from tests.realtime.core_helpers import at, join, of_type, only, room


def watch(core: RoomCore, t: float) -> tuple[Connection, list[Effect]]:
    conn = Connection()
    return conn, core.frame(conn, p.Join(type="join", watch=True), at(t))


def back(core: RoomCore, token: str, t: float) -> tuple[Connection, list[Effect]]:
    conn = Connection()
    return conn, core.frame(conn, p.Join(type="join", token=token), at(t))


def started(game_id: str = "panika", options: dict[str, Any] | None = None,
            ) -> tuple[RoomCore, Connection, Connection]:
    core = room(game_id)
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    if options:
        core.frame(ann, p.SetOptions(type="set_options", options=options), at(0))
    core.frame(ann, p.Start(type="start"), at(1))
    return core, ann, bob


def test_the_last_person_leaving_pauses_the_match_and_the_first_back_resumes_it():
    core, ann, bob = started("panika")
    tokens = {c: core.token_for(c.member) for c in (ann, bob)}
    table, _ = watch(core, 2)
    core.closed_connection(ann, at(5))
    assert not core.state.paused  # Bob is still there
    effects = core.closed_connection(bob, at(6))
    assert core.state.paused
    (room_frame,) = of_type(effects, table, "room")
    assert room_frame["paused"] is True and room_frame["status"] == "playing"
    (state,) = of_type(effects, table, "state")
    (turn,) = state["timers"]
    assert turn["paused"] is True and turn["remaining_ms"] == 25_000  # 30 s, 5 of them run
    assert only(effects, WakeAt) == []
    version = core.state.match.version
    # Nothing is decided meanwhile: no timer falls due (the turn's 30 s are long past), and the
    # stand-ins due by now (both away past the takeover time) hold.
    assert of_type(core.timers_due(at(100)), table, "state") == []
    effects = core.tick(at(101)) + core.takeover_check(at(102))
    assert core.state.bots.takeover_seats() == {ann.seat, bob.seat}
    assert _pending_bots(effects) == {} and only(effects, WakeAt) == []
    assert core.state.match.version == version
    # Ann is back: the match plays on from where it was.
    ann2, effects = back(core, tokens[ann], 200)
    assert not core.state.paused
    (room_frame,) = of_type(effects, ann2, "room")
    assert room_frame["paused"] is False
    (state,) = of_type(effects, ann2, "state")
    assert state["timers"] == [{"key": turn["key"], "label": "Turn", "seats": turn["seats"],
                                "remaining_ms": 25_000}]
    (wake,) = only(effects, WakeAt)
    assert wake.at == at(200).mono + 25
    (told,) = of_type(effects, table, "state")  # the table sees the timer running again
    assert "paused" not in told["timers"][0] and told["timers"][0]["remaining_ms"] == 25_000


def _pending_bots(effects: list[Effect]) -> dict[int, Later]:
    return {e.key[1]: e for e in only(effects, Later) if isinstance(e.key, tuple)
            and e.key[0] == "bot"}


def test_bots_hold_while_the_match_is_paused_and_decide_again_when_it_resumes():
    core = room("panic_lab")
    ann, _ = join(core, "Ann")
    token = core.token_for(ann.member)
    core.frame(ann, p.AddBot(type="add_bot", difficulty="normal"), at(0))
    core.frame(ann, p.SetOptions(type="set_options", options={"countdown_seconds": 2}), at(0))
    core.frame(ann, p.Start(type="start"), at(1))
    effects = core.timers_due(at(3))  # the dice are revealed: everyone searches
    bot_seat = next(m.seat for m in core.state.members.values() if m.bot is not None)
    (decision,) = _pending_bots(effects).values()
    effects = core.closed_connection(ann, at(3.1))
    assert core.state.paused
    assert Cancel(("bot", bot_seat)) in effects
    version = core.state.match.version
    seat, generation, action = astuple(decision.message)
    core.bot_decision(seat, generation, action, at(3.1 + decision.delay))  # it arrives anyway
    assert core.state.match.version == version
    assert _pending_bots(core.tick(at(10))) == {} and core.state.match.version == version
    _, effects = back(core, token, 50)
    assert set(_pending_bots(effects)) == {bot_seat}  # it decides again on the frame it got


def test_a_paused_match_the_idle_close_ends_is_not_recorded(caplog):
    core, ann, bob = started("panika")
    core.closed_connection(ann, at(2))
    core.closed_connection(bob, at(2))
    assert core.state.paused
    core.tick(at(2 + 601))  # nobody for longer than the idle time
    assert core.state.closed
    with caplog.at_level(logging.INFO, logger="app.realtime.room.life"):
        effects = core.shutdown(CLOSE_ROOM_CLOSED, durable=True, now=at(604))
    assert only(effects, Save) == []
    assert any("ended unrecorded" in r.getMessage() and "paused" in r.getMessage()
               for r in caplog.records)


def test_the_counter_is_never_paused_and_is_still_recorded_when_its_room_closes():
    """An open table plays for nobody (no bots, no turn timers) and its record is the audit of
    the bursts people saw: leaving it does not pause it (docs/games/panika-counter.md)."""
    core = room("panika_counter")
    ann, _ = join(core, "Ann")
    core.frame(ann, p.Action(type="action", action={"type": "tap"}), at(1))
    effects = core.closed_connection(ann, at(2))
    assert not core.state.paused and of_type(effects, ann, "room") == []
    core.tick(at(2 + 601))
    (save,) = only(core.shutdown(CLOSE_ROOM_CLOSED, durable=True, now=at(604)), Save)
    assert save.record.game == "panika_counter"


def _play_to_the_end(core: RoomCore, ann: Connection, t: float) -> list[Effect]:
    """Ann plays her seat (random legal actions), bots' decisions arrive after their thinking
    time, the takeover checks and the timers fall due, until the match ends; the last effects."""
    game = get_game(core.state.game.id)
    pick = random.Random(3)
    pending: dict[Any, tuple[float, Message]] = {}
    effects: list[Effect] = []

    def note(new: list[Effect]) -> list[Effect]:
        for e in new:
            if isinstance(e, Later):
                pending[e.key if e.key is not None else object()] = (t + e.delay, e.message)
            elif isinstance(e, Cancel):
                pending.pop(e.key, None)
        return new

    for _ in range(20_000):
        if core.state.status != "playing":
            return effects
        legal = game.legal_actions(core.state.match.state, ann.seat)
        if legal:
            t += 0.05
            effects = note(core.frame(ann, p.Action(type="action", action=pick.choice(legal)),
                                      at(t)))
            continue
        soonest = core.state.timers.soonest()
        due = min(pending.items(), key=lambda item: item[1][0], default=None)
        if due is not None and (soonest is None or due[1][0] <= soonest - at(0).mono):
            del pending[due[0]]
            t = max(t, due[1][0])
            message = due[1][1]
            if isinstance(message, BotDecision):
                effects = note(core.bot_decision(*astuple(message), at(t)))
            else:
                effects = note(core.takeover_check(at(t)))
            continue
        assert soonest is not None, "nothing to play, no timer, no bot"
        t = max(t, soonest - at(0).mono)
        effects = note(core.timers_due(at(t)))
    raise AssertionError("the match did not end")


def test_a_seat_whose_person_was_never_there_is_recorded_as_the_stand_ins():
    """Bob's browser closed right after the start, before any move: the stand-in played his
    whole seat, so the record (and the result) mark it ``bot: "normal"``; Ann's seat is hers."""
    core = room("panika")
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    core.frame(ann, p.SetOptions(type="set_options", room={"bot_takeover_seconds": 1}), at(0))
    core.frame(ann, p.Start(type="start"), at(1))
    core.closed_connection(bob, at(1.01))
    effects = _play_to_the_end(core, ann, 1.01)
    (save,) = only(effects, Save)
    by_seat = {pl.seat: pl for pl in save.record.players}
    assert by_seat[bob.seat].nickname == "Bob" and by_seat[bob.seat].bot == "normal"
    assert by_seat[ann.seat].bot is None
    (frame,) = of_type(effects, ann, "room")
    assert {pl["seat"]: pl["bot"] for pl in frame["result"]["players"]} == {
        ann.seat: None, bob.seat: "normal"}


def test_a_person_who_dropped_for_a_while_keeps_their_seat_on_the_record():
    """Bob was connected while a move was played, then left for good: the stand-in finished
    his seat, and the record keeps it his (``bot: null``), as a player who drops keeps it."""
    core = room("panika")
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    core.frame(ann, p.SetOptions(type="set_options", room={"bot_takeover_seconds": 1}), at(0))
    core.frame(ann, p.Start(type="start"), at(1))
    game = get_game("panika")
    mover = ann if game.legal_actions(core.state.match.state, ann.seat) else bob
    action = game.legal_actions(core.state.match.state, mover.seat)[0]
    core.frame(mover, p.Action(type="action", action=action), at(1.5))
    core.closed_connection(bob, at(2))
    effects = _play_to_the_end(core, ann, 2)
    (save,) = only(effects, Save)
    assert [pl.bot for pl in save.record.players] == [None, None]
