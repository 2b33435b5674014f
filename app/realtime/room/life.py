"""The match's life: start, moves (players', timers', bots'), the end, the save, the recovery.

A part of the room's core (``RoomCore``, app/realtime/room/core.py). ``MatchLife`` drives a
``MatchRun`` (app/realtime/room/match.py) through the shared engine interface, keeps exactly the
timers the rules ask for (``TimerBoard``), seats bots where they play (docs/bots.md, "In a
room"), and when the rules say the match ended, records it with its seed revealed and asks the
actor to save it (``Save``; docs/protocol.md, ``save_state``). It changes the room's state
(``RoomState``) and sends through ``Frames``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from app.db.matches import MatchRecord, PlayerResult
from app.engine import EngineError, Event, Outcome
from app.realtime.room import protocol as p
from app.realtime.room.bots import TAKEOVER_DIFFICULTY, has_bots
from app.realtime.room.effects import Counted, Effect, Later, Save, TakeoverCheck
from app.realtime.room.frames import Frames
from app.realtime.room.match import MatchRun
from app.realtime.room.members import Client, Member, Placed
from app.realtime.room.state import RoomState

log = logging.getLogger(__name__)

TAKEOVER_CHECK_SLACK = 0.05
"""The takeover check runs this long after a grace period ends (the tick is the backup)."""


class MatchLife:
    """The current match of one room: ``state`` is the room, ``frames`` its frames, ``out`` the
    effects of the input being handled."""

    def __init__(self, state: RoomState, frames: Frames, out: list[Effect]) -> None:
        self.state = state
        self.frames = frames
        self.out = out

    # --- moves ---------------------------------------------------------------------------------
    def on_action(self, conn: Client, member: Member, message: p.Action) -> None:
        if self.state.match is None or self.state.status != "playing":
            self.frames.error(conn, "not_playing", "no match is running", message.ref)
            return
        if member.seat is None:
            self.frames.error(conn, "spectator", "spectators cannot play", message.ref)
            return
        if self.state.journal_full:
            self.frames.error(conn, "saving",
                              "the server is saving the game; try again in a moment",
                        message.ref)
            return
        try:
            events = self.state.match.play(member.seat, message.action, conn.rtt_ms,
                                           now=self.state.now.mono)
        except EngineError as exc:
            self.frames.error(conn, exc.code, str(exc), message.ref)
            return
        except Exception:
            self.frames.error(conn, "internal", "the server could not apply this action",
                              message.ref)
            raise  # the actor recovers (``_recover``): the state as its log says, sent again
        self._after_move(events)
        self.out.append(Counted(self.state.game.id, message))

    def on_timer(self) -> None:
        """The room woke for its timers: each one due plays its action as the system's move."""
        while self.state.match is not None and self.state.status == "playing":
            timer = self.state.timers.pop_due(self.state.now.mono)
            if timer is None:
                return
            try:
                events = self.state.match.play(None, timer.action, now=self.state.now.mono)
            except EngineError as exc:
                log.warning("room %s: timer %s refused: %s", self.state.code, timer.key, exc)
                self._sync_timers()
                continue
            self._after_move(events)
            self.out.append(Counted(self.state.game.id))

    def on_bot(self, seat: int, generation: int, action: dict[str, Any]) -> None:
        """A bot's decision, its thinking time over: played like a player's action. A refused
        action costs that decision only (logged)."""
        if self.state.match is None or self.state.status != "playing" or self.state.paused \
                or self.state.bots.due(seat, generation) is None:
            return
        try:
            events = self.state.match.play(seat, action, 0, now=self.state.now.mono)
        except EngineError as exc:
            log.warning("room %s: the bot of seat %d sent a refused action %s: %s",
                        self.state.code, seat, action, exc)
            return
        self._after_move(events)

    def _after_move(self, events: list[Event]) -> None:
        assert self.state.match is not None
        if self.state.unseen:
            self._mark_seen()
        frames = self.frames.record(events)
        outcome = self.state.match.outcome()
        if outcome is None:
            self._sync_timers()
            self.frames.broadcast_state(frames, moved=True)
        else:
            self.state.timers.clear()
            self.frames.broadcast_state(frames, moved=True)
            self._end_match(outcome)

    def _sync_timers(self, elapsed: Mapping[str, float] | None = None) -> None:
        """Run exactly the timers the rules ask for now; a new key restarts a timer."""
        wanted = self.state.game.timers(self.state.match.state) if self.state.match else []
        self.state.timers.sync(wanted, self.state.now.mono, elapsed)

    # --- start and end -------------------------------------------------------------------------
    def start_match(self, *, players: int) -> None:
        self.state.match = MatchRun(self.state.game, players, dict(self.state.options),
                                    started_at=self.state.now.wall,
                              t0=self.state.now.mono)
        self.state.touch()
        self.state.match_number += 1
        self.state.status = "playing"
        self.state.result = None
        self.state.match_id = None
        self.state.save_state = None  # the finished match goes: its save task keeps it till written
        self.state.history.clear()
        self.state.timers.clear()
        self.state.bots.clear()
        self.state.paused = False
        self.state.unseen = set() if self.state.game.open_table else {
            m.seat for m in self.state.members.values() if m.seat is not None and m.bot is None}
        self.state.sat = self.state.seats_taken()
        begins = self.frames.record(
            [Event(f"A new match of {self.state.game.title} begins.", kind="start")])
        self._sync_timers()
        self.state.bots.wanted(self._bot_seats_wanted())  # their first frame is the one below
        self.frames.broadcast_room()
        self.frames.broadcast_state(begins)

    def _end_match(self, outcome: Outcome) -> None:
        """The match ended: recorded with its seed revealed (``_finish``). An open table (the
        counter) never waits between matches: a new match with a new seed starts at once."""
        self._finish(outcome)
        if self.state.game.open_table and not self.state.closed:
            self.start_match(players=self.state.game.max_players)

    def end_open_match(self) -> None:
        """The room closes: a running open-table match that saw moves is ended by the game's
        closing action and recorded, so its seed is revealed (docs/protocol.md, "Fair
        randomness")."""
        closing = self.state.game.closing_action
        match = self.state.match
        if closing is None or match is None or self.state.status != "playing" or not match.log:
            return
        try:
            match.play(None, closing, now=self.state.now.mono)
            outcome = match.outcome()
            if outcome is not None:
                self.state.timers.clear()
                self._finish(outcome)
        except Exception:  # noqa: BLE001 - the room closes all the same
            log.exception("room %s: could not end the open match", self.state.code)

    def _finish(self, outcome: Outcome) -> None:
        """The result with the seed revealed goes out; the actor saves the match (``Save``)."""
        assert self.state.match is not None
        self.state.touch()
        self.state.status = "finished"
        self.state.paused = False
        self.state.bots.clear()
        seat_names = {m.seat: m.nickname for m in self.state.members.values() if m.seat is not None}
        seat_bots = {m.seat: m.bot for m in self.state.members.values() if m.seat is not None}
        for seat in self.state.unseen:  # nobody played it but the stand-in (or the rules' timeouts)
            if seat in seat_bots and seat_bots[seat] is None:
                seat_bots[seat] = TAKEOVER_DIFFICULTY
        self.state.unseen = set()
        match = self.state.match
        seats: Iterable[int] = range(match.players)
        if self.state.game.open_table:  # set up for every seat; only those someone sat in count
            seats = sorted(self.state.sat)
            seat_names = {**self.state.sat, **seat_names}
        players = [
            PlayerResult(seat, seat_names.get(seat, f"Seat {seat + 1}"), outcome.scores[seat],
                         outcome.ranks[seat], seat in outcome.winners, seat_bots.get(seat))
            for seat in seats
        ]
        ending = str(outcome.ending)
        details = dict(outcome.details)
        self.state.result = {
            "ending": ending,
            "details": details,
            "seed": match.seed.hex(),
            "seed_hash": match.seed_hash,
            "players": [vars(pl) for pl in players],
        }
        self.state.save_state = (match, "saving")
        self.frames.broadcast_room()
        record = MatchRecord(
            game=self.state.game.id, room_code=self.state.code, options=match.options,
            seed=match.seed.hex(),
            seed_hash=match.seed_hash, started_at=match.started_at, ended_at=self.state.now.wall,
            players=players, log=match.log.snapshot(), ending=ending, details=details,
            draws=list(match.draws()), events_digest=match.events.hexdigest(),
        )
        self._count_standings(players)
        self.out.append(Save(record, match))

    def _count_standings(self, players: list[PlayerResult]) -> None:
        """The finished match in the evening's standings (``Standings``, in members.py), each
        seat as the member in it; an open table (the counter: no winners, no places) counts
        nothing."""
        if self.state.game.open_table:
            return
        members = {m.seat: m for m in self.state.members.values() if m.seat is not None}
        placed = [Placed(members[p.seat].id, p.nickname, p.rank, p.winner, members[p.seat].bot)
                  for p in players if p.seat in members]
        self.state.standings.count(self.state.match_number, placed)

    def drop_running_match(self) -> None:
        """The room closes (idle, or a stop without durable rooms) with a match still running:
        it ends unrecorded. An idle close finds it paused (nobody was connected, so nobody
        played it to the end: docs/protocol.md, "Computer players")."""
        if self.state.match is None or self.state.status != "playing" or self.state.game.open_table:
            return
        why = "paused, nobody connected" if self.state.paused else "the server stopped"
        log.info("room %s: match %d ended unrecorded when the room closed (%s; %d moves)",
                 self.state.code, self.state.match_number, why, len(self.state.match.log))

    def on_saved(self, match: MatchRun, news: str, match_id: int | None = None) -> None:
        """The writer's news about ``match``: "retrying", or "saved" with its id."""
        if match is self.state.match:
            self.state.save_state = (match, news)
            if news == "saved":
                self.state.match_id = match_id
            self.frames.broadcast_room()

    def recover_match(self) -> None:
        """After an input failed half-way: the match as its log says (a move that was applied
        is in the log; one that failed inside ``apply`` never was), its end if the rules say
        it ended, the timers the rules ask for, and the room and the state sent again to
        everyone (docs/decisions/0011: every input leaves the room consistent and running)."""
        match = self.state.match
        if match is not None and self.state.status == "playing":
            match.rebuild()
            outcome = match.outcome()
            if outcome is not None:
                self.state.timers.clear()
                self._end_match(outcome)
            else:
                self._sync_timers()
        self.frames.broadcast_room()
        self.frames.broadcast_state([])

    def resume_match(self, elapsed: Mapping[str, float]) -> None:
        """A restored room (app/realtime/durable/stored.py): its timers run on from where they were,
        or its ended match is finished (recorded, the seed revealed)."""
        match = self.state.match
        if match is None or self.state.status not in ("playing", "finished"):
            return
        self.state.sat = self.state.seats_taken()  # a restored counter: the seats held now
        outcome = match.outcome()
        if outcome is not None:
            self.state.timers.clear()
            self._finish(outcome)
            return
        if self.state.status == "playing":
            self._sync_timers(elapsed)
            # Its members come back as having left a moment ago: the match waits, paused,
            # until a page reconnects (then its timers run on and its bots play).
            self.pause_if_nobody()
            self.sync_bots(notify=False)

    # --- a match nobody plays: paused (docs/protocol.md, "Computer players") -----------------
    def pause_if_nobody(self) -> bool:
        """No person is connected to a running match any more: it pauses. Its timers stop,
        each keeping the time it had left; the bots and stand-ins hold (their pending decisions
        are dropped); nothing is decided or recorded until a person is back.
        An open table (the counter) plays for nobody and is never paused. True if it paused:
        the caller tells whoever still watches (room frame, state frame)."""
        if self.state.paused or self.state.match is None or self.state.status != "playing" \
                or self.state.game.open_table or self.state.people_connected():
            return False
        self.state.paused = True
        self.state.timers.pause(self.state.now.mono)
        self.state.bots.hold()
        log.info("room %s: match %d paused: no person is connected", self.state.code,
                 self.state.match_number)
        return True

    def resume_for(self, member: Member) -> bool:
        """``member`` is connecting: a person ends the pause. The timers run on from the time
        each had left, and those that ran out meanwhile (a restored room's, whose deadline
        passed while the server was down) play at once, before the joiner's own frames, so the
        joiner is shown the match as it now stands. True if it resumed: the caller sends the
        joiner their frames, then calls ``_play_on``."""
        if not self.state.paused or member.bot is not None:
            return False
        self.state.paused = False
        self.state.timers.resume(self.state.now.mono)
        log.info("room %s: match %d resumed", self.state.code, self.state.match_number)
        self.on_timer()
        return True

    def play_on(self, skip: Client | None = None) -> None:
        """After a resume: everyone else gets the state with its timers running again, and every
        bot its seat's frame, on which it decides again."""
        self.state.bots.release()
        self.frames.broadcast_state([], skip=skip)

    def _mark_seen(self) -> None:
        """Seats whose person is connected while a move is played count as played by them."""
        for m in self.state.members.values():
            if m.seat in self.state.unseen and m.bot is None and m.connected:
                self.state.unseen.discard(m.seat)

    # --- bots in the match ---------------------------------------------------------------------
    def _bot_seats_wanted(self) -> dict[int, tuple[int, str, bool]]:
        """Seat: (member, difficulty, takeover) for every seat a bot plays now: bot members'
        seats, the seats of players disconnected past ``bot_takeover_seconds``, and a seat
        whose player was removed during the match (member 0: nobody; docs/protocol.md,
        "Computer players"), which would otherwise wait for ever."""
        if self.state.status != "playing" or self.state.match is None or self.state.game.open_table:
            return {}
        grace = self.state.room_options["bot_takeover_seconds"]
        now = self.state.now.mono
        wanted: dict[int, tuple[int, str, bool]] = {}
        for m in self.state.members.values():
            if m.seat is None:
                continue
            if m.bot is not None:
                wanted[m.seat] = (m.id, m.bot, False)
            elif grace > 0 and m.left and not m.connected and now - m.left_at >= grace:
                wanted[m.seat] = (m.id, TAKEOVER_DIFFICULTY, True)
        seated = {m.seat for m in self.state.members.values()}
        for seat in range(self.state.match.players):
            if seat not in seated:
                wanted[seat] = (0, TAKEOVER_DIFFICULTY, True)
        return wanted

    def sync_bots(self, *, notify: bool = True) -> None:
        """Bots play exactly the seats they should; a seat newly played gets its frame now.
        With ``notify``, the room frame goes out when a takeover began or ended."""
        if not has_bots(self.state.game.id):
            return
        new, changed = self.state.bots.wanted(self._bot_seats_wanted())
        if changed and notify:
            self.frames.broadcast_room()
        if new:
            self.frames.deliver_to_bots(new)

    def schedule_takeover_check(self) -> None:
        """Look again when a disconnected player's grace would end (the tick is the backup)."""
        grace = self.state.room_options["bot_takeover_seconds"]
        if grace > 0 and self.state.status == "playing" and not self.state.closed:
            self.out.append(Later(grace + TAKEOVER_CHECK_SLACK, TakeoverCheck()))
