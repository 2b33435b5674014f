"""A room rebuilt from what the journal recorded (docs/architecture.md, "Durable rooms").

The room comes back with its options, host, public flag, status, match number and members (every
member as having left a moment ago: their pages reconnect with their seat tokens into the same
seats). The current match is replayed move by move from its seed, exactly as the engines replay;
the event history is rebuilt from the events the replay gives; the match clock continues from
the wall time the match started (the downtime counts, as it would for a player waiting), and
each timer the rules ask for runs on from the time it started, so a timer whose deadline passed
while the server was down fires at once. A match that the recorded moves show ended is finished
again (saving it is idempotent: ``matches.seed_hash`` is unique).

A release that changed a rule may refuse a recorded move: the match is replayed to the last move
the rules accept (``replay(..., stop_at_refusal=True)``), the refused move and those after it
are dropped, from the database too (the recorder writes the match again), and the pages are told
by a ``rules_changed`` event in the history (issue 25, item 11): a deploy never ends a game.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from app.db.rooms import StoredMatch, StoredRoom
from app.engine import EngineError, Event, Game, Move, Timer, get_game
from app.engine.replay import replay

from app.realtime.room.match import MatchRun
from app.realtime.room.members import Member
from app.realtime.actor import Room

log = logging.getLogger(__name__)

def _replay(room: Room, game: Game, stored: StoredMatch
            ) -> tuple[MatchRun, dict[str, int], tuple[int, EngineError] | None]:
    """The match replayed (the one replay, app/engine/replay.py) to the last move the rules
    now accept; the ``at_ms`` each running timer started; the move the rules refused, if any
    (its index in the log and the engine's error: it and every move after it are dropped)."""
    match = MatchRun(game, stored.players, dict(stored.options),
                     seed=bytes.fromhex(stored.seed), started_at=stored.started_at)
    timers: list[Timer] = []
    started: dict[str, int] = {}

    def watch(state: object, move: Move | None, events: list[Event]) -> None:
        nonlocal timers, started
        if move is None:  # the set-up
            timers = game.timers(state)
            started = {t.key: 0 for t in timers}
            room._record([Event(f"A new match of {game.title} begins.", kind="start")])
            return
        # A system move is the timer that fired: if the rules keep its key, it starts again
        # (as the room's timer board does).
        fired = {t.key for t in timers if t.action == move.action} if move.seat is None else set()
        room._record(events)
        match.log.append(move)
        timers = game.timers(state)
        started = {t.key: move.at_ms if t.key in fired else started.get(t.key, move.at_ms)
                   for t in timers}

    done = replay(game, stored.players, stored.options, match.seed, stored.moves,
                  stop_at_refusal=True, watch=watch)
    match.state, match.rng, match.version = done.state, done.rng, len(match.log)
    return match, started, done.refused


def _drop_refused_tail(room: Room, stored: StoredMatch, refused: tuple[int, EngineError]) -> int:
    """A rules release refuses move ``refused[0] + 1`` of the running match: it and the moves
    after it are dropped (the recorder writes the match again without them), the log says so,
    and so does the room's history, which every page gets when it reconnects (docs/protocol.md,
    "Saving: rooms that survive a restart"; docs/operations.md). Returns how many were dropped."""
    index, error = refused
    dropped = len(stored.moves) - index
    log.warning("room %s: match %d no longer replays under these rules from move %d of %d (%s); "
                "the last %d dropped, the match goes on from move %d", room.code,
                stored.match_number, index + 1, len(stored.moves), error, dropped, index)
    what = "the last move no longer counts" if dropped == 1 else \
        f"the last {dropped} moves no longer count"
    room._record([Event(  # worded as event.room.rules_changed (app/i18n)
        f"The rules changed with a server update: {what}; the match goes on from move {index}",
        kind="rules_changed", data={"n": dropped, "kept": index})])
    return dropped


def restore_room(
    stored: StoredRoom, make_room: Callable[..., Room]
) -> tuple[Room, dict[str, float]]:
    """A ``Room`` (not started yet) as ``stored`` describes it, and the seconds each of its
    match's timers has run; ``make_room(code=, game=, public=)`` builds an empty room with the
    registry's settings."""
    game = get_game(stored.game)
    room = make_room(code=stored.code, game=game, public=stored.public)
    room.options = dict(stored.options)
    if stored.room_options:
        room.room_options = {**room.room_options, **stored.room_options}
    room.match_number = stored.match_number
    room.restore_membership(stored.next_member, stored.banned)
    now = time.monotonic()
    room.members = {
        m.id: Member(m.id, m.nickname, m.nonce, m.player, m.seat, left_at=now,
                     left=m.bot is None, bot=m.bot)  # a bot never leaves: it plays on
        for m in stored.members
    }
    people = [m.id for m in room.members.values() if m.bot is None]  # a bot is never host
    room.host = stored.host if stored.host in people else next(iter(people), None)
    room.history.clear()
    room._timers.clear()
    room.match = None
    room.status = stored.status
    elapsed: dict[str, float] = {}
    room.dropped_moves = 0
    if stored.match is not None:
        match, started, refused = _replay(room, game, stored.match)
        if refused is not None and room.status != "playing":
            # A finished match (its record is saved as it was played) that these rules no
            # longer replay: the room waits for the next match without it.
            log.warning("room %s: its finished match no longer replays (%s); the room waits "
                        "for a new match", stored.code, refused[1])
            room.status = "waiting"
            room.history.clear()
            for member in room.members.values():
                member.seat = None
            return room, elapsed
        if refused is not None:
            room.dropped_moves = _drop_refused_tail(room, stored.match, refused)
        now_ms = max(int((datetime.now(UTC) - stored.match.started_at).total_seconds() * 1000),
                     stored.match.moves[-1].at_ms if stored.match.moves else 0)
        match.resume_clock(now_ms, time.monotonic())
        room.match = match
        elapsed = {key: (now_ms - at) / 1000 for key, at in started.items()}
    elif room.status == "playing":  # a start whose match was not recorded: back to waiting
        room.status = "waiting"
    return room, elapsed


def resume(room: Room, elapsed: dict[str, float]) -> None:
    """In the running event loop: the restored room's timers run on, or its ended match is
    finished (recorded, the seed revealed)."""
    room.resumed(elapsed)


def restored_summary(stored: StoredRoom) -> dict[str, Any]:
    """For the log line of a restart."""
    return {"code": stored.code, "game": stored.game, "status": stored.status,
            "members": len(stored.members),
            "moves": len(stored.match.moves) if stored.match is not None else 0}
