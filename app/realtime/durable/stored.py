"""The room's state to and from the stored rows: the one conversion of durable rooms
(docs/architecture.md, "Durable rooms").

To the rows: ``save_room`` and ``start_match`` turn a ``RoomState`` (app/realtime/room/state.py)
into the operations the journal writes (app/db/rooms.py); ``fingerprint`` is what a
``SaveRoom`` holds, compared when the room's ``revision`` moved (the recorder writes the room
again only when it changed: app/realtime/durable/journal.py).

From the rows: ``restore_state`` fills a new room's state from what was recorded. The room comes
back with its options, host, public flag, status, match number, bans and members (every member as
having left a moment ago: their pages reconnect with their seat tokens into the same seats). The
current match is replayed move by move from its seed by the one replay (app/engine/replay.py);
the event history is rebuilt from the events the replay gives; the match clock continues from
the wall time the match started (the downtime counts, as it would for a player waiting), and
each timer the rules ask for runs on from the time it started, so a timer whose deadline passed
while the server was down fires at once. A match that the recorded moves show ended is finished
again (saving it is idempotent: ``matches.seed_hash`` is unique).

A release that changed a rule may refuse a recorded move: the match is replayed to the last move
the rules accept (``replay(..., stop_at_refusal=True)``), the refused move and those after it
are dropped, from the database too (the recorder writes the match again), and the pages are told
by a ``rules_changed`` event in the history (docs/decisions/0022): a deploy never ends a game.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from app.db.rooms import MemberRecord, SaveRoom, StartMatch, StoredMatch, StoredRoom
from app.engine import EngineError, Event, Game, Move, Timer, get_game
from app.engine.chance import EventDigest
from app.engine.replay import replay
from app.engine.rng import RecordingRng
from app.realtime.room.frames import record_events
from app.realtime.room.match import MatchRun
from app.realtime.room.members import Member
from app.realtime.room.members import Standings
from app.realtime.room.state import RoomState
from app.realtime.room.text import name_keys

log = logging.getLogger(__name__)


# --- to the rows ---------------------------------------------------------------------------------
def member_records(state: RoomState) -> tuple[MemberRecord, ...]:
    return tuple(MemberRecord(m.id, m.nickname, m.seat, m.player, m.nonce, m.bot)
                 for m in state.members.values())


def fingerprint(state: RoomState) -> tuple[Any, ...]:
    """What a ``SaveRoom`` holds, compared after an input that moved the room's ``revision``
    (a join by token, say, moves it and changes nothing stored)."""
    return (state.host, state.public, state.status, state.match_number, state.next_member,
            len(state.banned_nonces) + len(state.banned_names), state.options, state.room_options,
            state.standings.through,
            tuple((m.id, m.nickname, m.seat, m.player, m.bot) for m in state.members.values()))


def save_room(state: RoomState) -> SaveRoom:
    """The room and its members, written whole."""
    return SaveRoom(
        code=state.code, game=state.game.id, options=dict(state.options), host=state.host,
        public=state.public, status=state.status, match_number=state.match_number,
        next_member=state.next_member, banned=state.banned_lists(),
        members=member_records(state), room_options=dict(state.room_options),
        standings=state.standings.to_json())


def start_match(state: RoomState, match: MatchRun) -> StartMatch:
    """The room's current match as it started (its moves follow as ``AddMove``)."""
    return StartMatch(
        code=state.code, match_number=state.match_number, seed=match.seed.hex(),
        players=match.players, options=dict(match.options), started_at=match.started_at)


# --- from the rows -------------------------------------------------------------------------------
def _replay(state: RoomState, game: Game, stored: StoredMatch
            ) -> tuple[MatchRun, dict[str, int], tuple[int, EngineError] | None]:
    """The match replayed (the one replay, app/engine/replay.py) to the last move the rules
    now accept, its events into the room's history; the ``at_ms`` each running timer started;
    the move the rules refused, if any (its index in the log and the engine's error: it and
    every move after it are dropped)."""
    match = MatchRun(game, stored.players, dict(stored.options),
                     seed=bytes.fromhex(stored.seed), started_at=stored.started_at)
    timers: list[Timer] = []
    started: dict[str, int] = {}

    def watch(rules_state: object, move: Move | None, events: list[Event]) -> None:
        nonlocal timers, started
        if move is None:  # the set-up
            timers = game.timers(rules_state)
            started = {t.key: 0 for t in timers}
            record_events(state.history,
                          [Event(f"A new match of {game.title} begins.", kind="start")])
            return
        # A system move is the timer that fired: if the rules keep its key, it starts again
        # (as the room's timer board does).
        fired = {t.key for t in timers if t.action == move.action} if move.seat is None else set()
        record_events(state.history, events)
        match.events.add(events)
        match.log.append(move)
        timers = game.timers(rules_state)
        started = {t.key: move.at_ms if t.key in fired else started.get(t.key, move.at_ms)
                   for t in timers}

    rng = RecordingRng(match.seed)  # the chance steps and the events' digest, as recorded live
    match.events = EventDigest()
    done = replay(game, stored.players, stored.options, match.seed, stored.moves, rng=rng,
                  stop_at_refusal=True, watch=watch)
    match.state, match.rng, match.version = done.state, rng, len(match.log)
    return match, started, done.refused


def _drop_refused_tail(state: RoomState, stored: StoredMatch,
                       refused: tuple[int, EngineError]) -> int:
    """A rules release refuses move ``refused[0] + 1`` of the running match: it and the moves
    after it are dropped (the recorder writes the match again without them), the log says so,
    and so does the room's history, which every page gets when it reconnects (docs/protocol.md,
    "Saving: rooms that survive a restart"; docs/operations.md). Returns how many were dropped."""
    index, error = refused
    dropped = len(stored.moves) - index
    log.warning("room %s: match %d no longer replays under these rules from move %d of %d (%s); "
                "the last %d dropped, the match goes on from move %d", state.code,
                stored.match_number, index + 1, len(stored.moves), error, dropped, index)
    what = "the last move no longer counts" if dropped == 1 else \
        f"the last {dropped} moves no longer count"
    record_events(state.history, [Event(  # worded as event.room.rules_changed (app/i18n)
        f"The rules changed with a server update: {what}; the match goes on from move {index}",
        kind="rules_changed", data={"n": dropped, "kept": index})])
    return dropped


def restore_state(state: RoomState, stored: StoredRoom) -> dict[str, float]:
    """``state`` (a new, empty room of ``stored``'s game) as ``stored`` describes it; returns the
    seconds each of its match's timers has run (the room's ``resume`` runs them on)."""
    game = state.game
    state.options = dict(stored.options)
    if stored.room_options:
        state.room_options = {**state.room_options, **stored.room_options}
    state.match_number = stored.match_number
    state.standings = Standings.from_json(stored.standings)
    state.next_member = stored.next_member
    state.banned_nonces = set(stored.banned.get("nonces", ()))
    names = stored.banned.get("names", ())
    # Stored keys as they are, and their own keys: a ban recorded under an older comparison
    # (names without case only) still holds for the look-alikes of the removed name.
    state.banned_names = set(names).union(*(name_keys(name) for name in names))
    now = time.monotonic()
    state.members = {
        m.id: Member(m.id, m.nickname, m.nonce, m.player, m.seat, left_at=now,
                     left=m.bot is None, bot=m.bot)  # a bot never leaves: it plays on
        for m in stored.members
    }
    people = [m.id for m in state.members.values() if m.bot is None]  # a bot is never host
    state.host = stored.host if stored.host in people else next(iter(people), None)
    state.history.clear()
    state.timers.clear()
    state.match = None
    state.status = stored.status
    state.dropped_moves = 0
    state.joined = True  # its pages come back with their tokens; it closes when idle, as before
    state.touch()
    elapsed: dict[str, float] = {}
    if stored.match is not None:
        match, started, refused = _replay(state, game, stored.match)
        if refused is not None and state.status != "playing":
            # A finished match (its record is saved as it was played) that these rules no
            # longer replay: the room waits for the next match without it.
            log.warning("room %s: its finished match no longer replays (%s); the room waits "
                        "for a new match", stored.code, refused[1])
            state.status = "waiting"
            state.history.clear()
            for member in state.members.values():
                member.seat = None
            return elapsed
        if refused is not None:
            state.dropped_moves = _drop_refused_tail(state, stored.match, refused)
        now_ms = max(int((datetime.now(UTC) - stored.match.started_at).total_seconds() * 1000),
                     stored.match.moves[-1].at_ms if stored.match.moves else 0)
        match.resume_clock(now_ms, time.monotonic())
        state.match = match
        elapsed = {key: (now_ms - at) / 1000 for key, at in started.items()}
    elif state.status == "playing":  # a start whose match was not recorded: back to waiting
        state.status = "waiting"
    return elapsed


class HasState(Protocol):
    """A room (the actor, app/realtime/actor.py) as restoring it needs it: its state."""

    @property
    def state(self) -> RoomState: ...


R = TypeVar("R", bound=HasState)


def restore_room(stored: StoredRoom, make_room: Callable[..., R]) -> tuple[R, dict[str, float]]:
    """A room (not started yet) as ``stored`` describes it, and the seconds each of its match's
    timers has run; ``make_room(code=, game=, public=)`` builds an empty room with the
    registry's settings. Started, the room is told ``resumed(elapsed)``."""
    room = make_room(code=stored.code, game=get_game(stored.game), public=stored.public)
    return room, restore_state(room.state, stored)
