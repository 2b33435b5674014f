"""A room rebuilt from its records (app/realtime/durable/restore.py; docs/architecture.md, "Durable
rooms"): members, host and bans as recorded, the match replayed from its seed, the match clock
continued from its start, and timers re-armed from when they started."""

from __future__ import annotations

import dataclasses

import asyncio
import time
from datetime import UTC, datetime, timedelta

import orjson

from app.db.rooms import MemberRecord, StoredMatch, StoredRoom
from app.engine import Move, get_game
from app.games import load_all
from app.realtime.durable.stored import restore_room
from app.realtime.actor import Room
from app.realtime.room.effects import CloseRoom, Frame, Now
from app.realtime.room.text import name_keys
from app.realtime.room.tokens import SeatTokens
from tests.clock import until
from tests.live import run_async

SEED = "ab" * 32


def _stored(started_ago: float, moves: tuple[Move, ...] = ()) -> StoredRoom:
    now = datetime.now(UTC)
    options = {"target_tokens": 2, "countdown_seconds": 3, "search_seconds": 60}
    return StoredRoom(
        code="LABS", game="panic_lab", options=options, host=2, public=True, status="playing",
        match_number=3, next_member=4, banned={"nonces": ["gone"], "names": ["eve"]},
        created_at=now, updated_at=now,
        members=(MemberRecord(1, "Ann", 0, True, "n1"), MemberRecord(2, "Bob", 1, True, "n2"),
                 MemberRecord(3, "Cy", None, False, "n3")),
        match=StoredMatch(3, SEED, 2, options, now - timedelta(seconds=started_ago), moves),
    )


def _make_room(**kwargs):  # type: ignore[no-untyped-def]
    async def save(*_args):  # type: ignore[no-untyped-def]
        return 7

    return Room(tokens=SeatTokens("k"), save_match=save, **kwargs)


def test_a_restored_room_has_its_members_host_bans_and_match():
    load_all()

    async def scenario() -> None:
        stored = _stored(1.0)
        room, elapsed = restore_room(stored, _make_room)
        assert stored.match is not None and room.state.match is not None
        shown_ms = room.state.match.now_ms(time.monotonic())
        # The match started 1 s before the record was made, and at most this long ago now:
        # bounds that hold however long the restore took.
        since = (datetime.now(UTC) - stored.match.started_at).total_seconds()
        assert [(m.id, m.nickname, m.seat, m.player) for m in room.state.members.values()] == [
            (1, "Ann", 0, True), (2, "Bob", 1, True), (3, "Cy", None, False)]
        assert all(m.left and not m.connected for m in room.state.members.values())
        assert room.state.host == 2 and room.state.match_number == 3 and room.state.status == "playing"
        assert room.state.next_member == 4 and room.state.banned_lists() == {
            "nonces": ["gone"], "names": ["eve"]}
        assert room.state.match is not None and room.state.match.seed.hex() == SEED
        assert room.state.match.version == 0
        assert 1000 <= shown_ms <= since * 1000 + 1
        assert list(elapsed) == ["countdown:1"] and 1.0 <= elapsed["countdown:1"] <= since
        assert [orjson.loads(e)["kind"] for e in room.state.history] == ["start"]

    run_async(scenario())


def test_a_ban_recorded_as_an_older_key_holds_for_the_names_look_alikes():
    """Bans are stored as name keys; one recorded when names were compared only without case
    ("hоst", a Cyrillic "о") is read back with its skeleton keys too, so "Host" stays banned."""
    load_all()

    async def scenario() -> None:
        stored = dataclasses.replace(_stored(1.0), banned={"nonces": [], "names": ["h\u043est"]})
        room, _ = restore_room(stored, _make_room)
        assert name_keys("Host") & room.state.banned_names
        assert not name_keys("Hosta") & room.state.banned_names

    run_async(scenario())


def test_a_restored_room_never_makes_a_bot_its_host():
    """The recorded host is gone (only bots were left when it was recorded, or the host's
    record is missing): the first person becomes host, never a bot (docs/protocol.md,
    "Computer players"); with no person at all the room has no host."""
    load_all()
    bot = MemberRecord(1, "Bot Ada", 0, True, "n1", bot="normal")
    person = MemberRecord(2, "Bob", 1, True, "n2")

    async def scenario() -> None:
        room, _ = restore_room(dataclasses.replace(_stored(1.0), host=None,
                                                   members=(bot, person)), _make_room)
        assert room.state.host == 2
        room, _ = restore_room(dataclasses.replace(_stored(1.0), host=None, members=(bot,)),
                               _make_room)
        assert room.state.host is None

    run_async(scenario())


def test_a_timer_that_ran_out_during_the_downtime_fires_once_a_person_is_back():
    """The restored match starts paused (its members come back as having left: issue 25, item
    4, docs/protocol.md "Computer players"); the first page that reconnects resumes it, and a
    timer that ran out during the downtime fires at once, with the clock run on."""
    from app.realtime.room import protocol as p
    from app.realtime.transport.connection import Connection

    load_all()

    async def scenario() -> None:
        room, elapsed = restore_room(_stored(10.0), _make_room)
        room.start(on_close=lambda _room: None)
        room.resumed(elapsed)
        # Restored paused (nobody is back yet): no timer is armed, nothing has fired.
        assert room.state.match is not None and room.state.paused and room._wake is None
        assert room.state.match.log == [] and room.room_frame()["paused"] is True
        ann = Connection()
        room.post(Frame(ann, p.Join(type="join", token=room.token_for(room.state.members[1]))))
        await until(lambda: bool(room.state.match.log), what="the reveal")  # type: ignore[union-attr]
        assert not room.state.paused
        (reveal,) = room.state.match.log
        assert reveal.seat is None and reveal.action == {"type": "reveal"}
        assert reveal.at_ms >= 10_000  # the match clock counted the downtime
        assert room.state.game.view(room.state.match.state, None)["phase"] == "search"
        room.post(CloseRoom())
        await asyncio.wait_for(room.task, 5)  # type: ignore[arg-type]

    run_async(scenario())


def test_a_replayed_match_equals_the_match_that_was_played():
    """The moves replay to the very state (the engines replay exactly from seed and log)."""
    load_all()
    game = get_game("panic_lab")

    async def scenario() -> None:
        original = _make_room(code="LABS", game=game, public=True)
        original.add_member("Ann")
        original.add_member("Bob")
        original.state.options = _stored(0).options
        original.core.life.start_match(players=2)
        match = original.state.match
        assert match is not None
        match.play(None, {"type": "reveal"}, now=time.monotonic())
        legal = game.legal_actions(match.state, 0)
        match.play(0, legal[0], now=time.monotonic())
        moves = tuple(match.log)
        stored = _stored(0.5, moves)
        stored = dataclasses.replace(stored, match=StoredMatch(
            3, match.seed.hex(), 2, stored.options, match.started_at, moves))
        room, _elapsed = restore_room(stored, _make_room)
        assert room.state.match is not None and room.state.match.version == 2
        for seat in (None, 0, 1):
            assert room.state.match.view(seat) == match.view(seat)
        # The generator stands where it stood: the next draws are the same.
        assert [room.state.match.rng.getrandbits(32) for _ in range(4)] == \
            [match.rng.getrandbits(32) for _ in range(4)]
        original.state.timers.clear()
        room.state.timers.clear()

    run_async(scenario())


def test_the_first_page_back_sees_the_match_after_the_timers_that_ran_out():
    """Issue 25, item 4: the restored match waits paused; the first person back resumes it, and
    the timer that ran out while the server was down plays before that person's ``welcome``, so
    their first state is the match as it now stands (the dice revealed)."""
    import orjson as json_codec

    from app.realtime.room import protocol as p
    from app.realtime.transport.connection import Connection
    from app.realtime.room.effects import Now, Send, SendEach

    load_all()
    room, elapsed = restore_room(_stored(10.0), _make_room)  # the actor is not started
    room.core.resume(elapsed, Now.read())
    assert room.state.paused and room.state.match is not None and room.state.match.log == []
    ann = Connection()
    effects = room.core.frame(ann, p.Join(type="join", token=room.token_for(room.state.members[1])),
                              Now.read())
    frames = []  # what Ann is sent, in order
    for effect in effects:
        if isinstance(effect, Send) and ann in effect.conns:
            frames.append(json_codec.loads(effect.text))
        elif isinstance(effect, SendEach):
            frames += [json_codec.loads(text) for conn, text in effect.frames if conn is ann]
    kinds = [f["type"] for f in frames]
    assert kinds[0] == "welcome" and "state" in kinds
    state = next(f for f in frames if f["type"] == "state")
    assert state["view"]["phase"] == "search" and state["version"] == 1
    assert not room.state.paused and room.room_frame()["paused"] is False


def test_a_match_the_rules_now_refuse_is_restored_to_its_last_accepted_move():
    """Issue 25, item 11: the second "reveal" of this log is refused by the rules (a release
    changed them, say): the room comes back with the first move only, says so in its history,
    and its recorder will write the match again without the dropped moves."""
    load_all()
    moves = (Move(None, {"type": "reveal"}, 3000), Move(None, {"type": "reveal"}, 3100),
             Move(0, {"type": "claim", "tile": 0}, 3200))
    room, _ = restore_room(_stored(5.0, moves), _make_room)
    assert room.state.status == "playing" and room.state.match is not None
    assert [m.action for m in room.state.match.log] == [{"type": "reveal"}]
    assert room.state.match.version == 1 and room.state.dropped_moves == 2
    told = [orjson.loads(e) for e in room.state.history][-1]
    assert told["kind"] == "rules_changed" and told["data"] == {"n": 2, "kept": 1}
    assert told["text"] == ("The rules changed with a server update: the last 2 moves no longer "
                            "count; the match goes on from move 1")


def test_a_finished_match_the_rules_now_refuse_leaves_its_room_waiting():
    """Issue 25, item 11: a finished match was saved as it was played; if it no longer replays,
    its room comes back waiting for a new match rather than being deleted."""
    load_all()
    moves = (Move(None, {"type": "next_round"}, 3000),)
    stored = dataclasses.replace(_stored(5.0, moves), status="finished")
    room, _ = restore_room(stored, _make_room)
    assert room.state.status == "waiting" and room.state.match is None and list(room.state.history) == []


def test_a_restored_room_counts_as_joined_and_waits_its_idle_time():
    """Its pages come back with their tokens when they can: a restored room closes when idle,
    never for want of a join (docs/decisions/0044), or a restart would delete a waiting room
    whose players took a minute to come back."""
    load_all()

    async def scenario() -> None:
        stored = dataclasses.replace(_stored(1.0), status="waiting", match=None)
        room, _ = restore_room(stored, _make_room)
        assert room.state.joined
        later = room.state.created_at + room.state.policy.unjoined_seconds + 1
        room.core.tick(Now(later, datetime.now(UTC)))
        assert not room.state.closed

    run_async(scenario())
