"""The match's life: start, moves (players', timers', bots'), the end, the save, the recovery.

A part of the room's core (``RoomCore``, app/realtime/room/core.py), as a base class. It drives a
``MatchRun`` (app/realtime/room/match.py) through the shared engine interface, keeps exactly the
timers the rules ask for (``TimerBoard``), seats bots where they play (docs/bots.md, "In a
room"), and when the rules say the match ended, records it with its seed revealed and asks the
actor to save it (``Save``; docs/protocol.md, ``save_state``).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from app.db.matches import MatchRecord, PlayerResult
from app.engine import EngineError, Event, Game, Outcome

from app.realtime.room import protocol as p
from app.realtime.room.bots import TAKEOVER_DIFFICULTY, BotSeats, has_bots
from app.realtime.room.effects import Counted, Effect, Later, Now, Save
from app.realtime.room.match import MatchRun

if TYPE_CHECKING:
    from app.realtime.transport.connection import Connection
    from app.realtime.room.members import Member
    from app.realtime.room.timers import TimerBoard

log = logging.getLogger(__name__)

TAKEOVER_CHECK_SLACK = 0.05
"""The takeover check runs this long after a grace period ends (the tick is the backup)."""


class MatchLife:
    """The current match of ``RoomCore``."""

    code: str
    game: Game
    status: str
    options: dict[str, Any]
    room_options: dict[str, Any]
    members: dict[int, Member]
    match: MatchRun | None
    match_number: int
    match_id: int | None
    result: dict[str, Any] | None
    history: deque[str]
    closed: bool
    paused: bool
    journal_full: bool
    out: list[Effect]
    now: Now
    _timers: TimerBoard
    _bots: BotSeats
    _save_state: tuple[MatchRun, str] | None
    _unseen: set[int]
    _sat: dict[int, str]

    if TYPE_CHECKING:
        def _error(self, conn: Connection, code: str, message: str,
                   ref: int | None = None) -> None: ...
        def _broadcast_room(self) -> None: ...
        def _broadcast_state(self, events: list[dict[str, Any]], moved: bool = False,
                             skip: Connection | None = None) -> None: ...
        def _deliver_to_bots(self, seats: list[int]) -> None: ...
        def _record(self, events: list[Event]) -> list[dict[str, Any]]: ...
        def _names(self, text: str) -> str: ...

    # --- moves ---------------------------------------------------------------------------------
    def _on_action(self, conn: Connection, member: Member, message: p.Action) -> None:
        if self.match is None or self.status != "playing":
            self._error(conn, "not_playing", "no match is running", message.ref)
            return
        if member.seat is None:
            self._error(conn, "spectator", "spectators cannot play", message.ref)
            return
        if self.journal_full:
            self._error(conn, "saving", "the server is saving the game; try again in a moment",
                        message.ref)
            return
        try:
            events = self.match.play(member.seat, message.action, conn.rtt_ms, now=self.now.mono)
        except EngineError as exc:
            self._error(conn, exc.code, str(exc), message.ref)
            return
        except Exception:
            self._error(conn, "internal", "the server could not apply this action", message.ref)
            raise  # the actor recovers (``_recover``): the state as its log says, sent again
        self._after_move(events)
        self.out.append(Counted(self.game.id, message))

    def _on_timer(self) -> None:
        """The room woke for its timers: each one due plays its action as the system's move."""
        while self.match is not None and self.status == "playing":
            timer = self._timers.pop_due(self.now.mono)
            if timer is None:
                return
            try:
                events = self.match.play(None, timer.action, now=self.now.mono)
            except EngineError as exc:
                log.warning("room %s: timer %s refused: %s", self.code, timer.key, exc)
                self._sync_timers()
                continue
            self._after_move(events)
            self.out.append(Counted(self.game.id))

    def _on_bot(self, seat: int, generation: int, action: dict[str, Any]) -> None:
        """A bot's decision, its thinking time over: played like a player's action. A refused
        action costs that decision only (logged)."""
        if self.match is None or self.status != "playing" or self.paused \
                or self._bots.due(seat, generation) is None:
            return
        try:
            events = self.match.play(seat, action, 0, now=self.now.mono)
        except EngineError as exc:
            log.warning("room %s: the bot of seat %d sent a refused action %s: %s",
                        self.code, seat, action, exc)
            return
        self._after_move(events)

    def _after_move(self, events: list[Event]) -> None:
        assert self.match is not None
        if self._unseen:
            self._mark_seen()
        frames = self._record(events)
        outcome = self.match.outcome()
        if outcome is None:
            self._sync_timers()
            self._broadcast_state(frames, moved=True)
        else:
            self._timers.clear()
            self._broadcast_state(frames, moved=True)
            self._end_match(outcome)

    def _sync_timers(self, elapsed: Mapping[str, float] | None = None) -> None:
        """Run exactly the timers the rules ask for now; a new key restarts a timer."""
        wanted = self.game.timers(self.match.state) if self.match else []
        self._timers.sync(wanted, self.now.mono, elapsed)

    # --- start and end -------------------------------------------------------------------------
    def _start_match(self, *, players: int) -> None:
        self.match = MatchRun(self.game, players, dict(self.options), started_at=self.now.wall,
                              t0=self.now.mono)
        self.match_number += 1
        self.status = "playing"
        self.result = None
        self.match_id = None
        self._save_state = None  # the finished match goes: its save task keeps it till written
        self.history.clear()
        self._timers.clear()
        self._bots.clear()
        self.paused = False
        self._unseen = set() if self.game.open_table else {
            m.seat for m in self.members.values() if m.seat is not None and m.bot is None}
        self._sat = self._seats_taken()
        begins = self._record([Event(f"A new match of {self.game.title} begins.", kind="start")])
        self._sync_timers()
        self._bots.wanted(self._bot_seats_wanted())  # their first frame is the one below
        self._broadcast_room()
        self._broadcast_state(begins)

    def _end_match(self, outcome: Outcome) -> None:
        """The match ended: recorded with its seed revealed (``_finish``). An open table (the
        counter) never waits between matches: a new match with a new seed starts at once."""
        self._finish(outcome)
        if self.game.open_table and not self.closed:
            self._start_match(players=self.game.max_players)

    def _end_open_match(self) -> None:
        """The room closes: a running open-table match that saw moves is ended by the game's
        closing action and recorded, so its seed is revealed (docs/games/panika-counter.md)."""
        closing = self.game.closing_action
        match = self.match
        if closing is None or match is None or self.status != "playing" or not match.log:
            return
        try:
            match.play(None, closing, now=self.now.mono)
            outcome = match.outcome()
            if outcome is not None:
                self._timers.clear()
                self._finish(outcome)
        except Exception:  # noqa: BLE001 - the room closes all the same
            log.exception("room %s: could not end the open match", self.code)

    def _finish(self, outcome: Outcome) -> None:
        """The result with the seed revealed goes out; the actor saves the match (``Save``)."""
        assert self.match is not None
        self.status = "finished"
        self.paused = False
        self._bots.clear()
        seat_names = {m.seat: m.nickname for m in self.members.values() if m.seat is not None}
        seat_bots = {m.seat: m.bot for m in self.members.values() if m.seat is not None}
        for seat in self._unseen:  # nobody played it but the stand-in (or the rules' timeouts)
            if seat in seat_bots and seat_bots[seat] is None:
                seat_bots[seat] = TAKEOVER_DIFFICULTY
        self._unseen = set()
        match = self.match
        seats: Iterable[int] = range(match.players)
        if self.game.open_table:  # set up for every seat; only those someone sat in count
            seats = sorted(self._sat)
            seat_names = {**self._sat, **seat_names}
        players = [
            PlayerResult(seat, seat_names.get(seat, f"Seat {seat + 1}"), outcome.scores[seat],
                         outcome.ranks[seat], seat in outcome.winners, seat_bots.get(seat))
            for seat in seats
        ]
        summary = self._names(outcome.summary)
        self.result = {
            "summary": summary,
            "seed": match.seed.hex(),
            "seed_hash": match.seed_hash,
            "players": [vars(pl) for pl in players],
        }
        self._save_state = (match, "saving")
        self._broadcast_room()
        record = MatchRecord(
            game=self.game.id, room_code=self.code, options=match.options, seed=match.seed.hex(),
            seed_hash=match.seed_hash, started_at=match.started_at, ended_at=self.now.wall,
            summary=summary, players=players, log=list(match.log),
        )
        self.out.append(Save(record, match))

    def _seats_taken(self) -> dict[int, str]:
        """An open table's seats that members hold now, with their nicknames."""
        if not self.game.open_table:
            return {}
        return {m.seat: m.nickname for m in self.members.values() if m.seat is not None}

    def _drop_running_match(self) -> None:
        """The room closes (idle, or a stop without durable rooms) with a match still running:
        it ends unrecorded. An idle close finds it paused (nobody was connected, so nobody
        played it to the end: docs/protocol.md, "Computer players")."""
        if self.match is None or self.status != "playing" or self.game.open_table:
            return
        why = "paused, nobody connected" if self.paused else "the server stopped"
        log.info("room %s: match %d ended unrecorded when the room closed (%s; %d moves)",
                 self.code, self.match_number, why, len(self.match.log))

    def _on_saved(self, match: MatchRun, state: str, match_id: int | None = None) -> None:
        """The writer's news about ``match``: "retrying", or "saved" with its id."""
        if match is self.match:
            self._save_state = (match, state)
            if state == "saved":
                self.match_id = match_id
            self._broadcast_room()

    def _match_save_state(self) -> str | None:
        """``save_state`` of the room frame: the current match's, ``None`` before it ends."""
        saved = self._save_state
        return saved[1] if saved is not None and saved[0] is self.match else None

    def _recover_match(self) -> None:
        """After an input failed half-way: the match as its log says (a move that was applied
        is in the log; one that failed inside ``apply`` never was), its end if the rules say
        it ended, the timers the rules ask for, and the room and the state sent again to
        everyone (issue 7, item 4: every input leaves the room consistent and running)."""
        match = self.match
        if match is not None and self.status == "playing":
            match.rebuild()
            outcome = match.outcome()
            if outcome is not None:
                self._timers.clear()
                self._end_match(outcome)
            else:
                self._sync_timers()
        self._broadcast_room()
        self._broadcast_state([])

    def _resume_match(self, elapsed: Mapping[str, float]) -> None:
        """A restored room (app/realtime/durable/restore.py): its timers run on from where they were,
        or its ended match is finished (recorded, the seed revealed)."""
        match = self.match
        if match is None or self.status not in ("playing", "finished"):
            return
        self._sat = self._seats_taken()  # a restored counter: the seats held now
        outcome = match.outcome()
        if outcome is not None:
            self._timers.clear()
            self._finish(outcome)
            return
        if self.status == "playing":
            self._sync_timers(elapsed)
            # Its members come back as having left a moment ago: the match waits, paused,
            # until a page reconnects (then its timers run on and its bots play).
            self._pause_if_nobody()
            self._sync_bots(notify=False)

    # --- a match nobody plays: paused (docs/protocol.md, "Computer players") -----------------
    def _people_connected(self) -> bool:
        """Whether a person (a member who is not a bot) is connected; table views do not count."""
        return any(m.bot is None and m.connected for m in self.members.values())

    def _pause_if_nobody(self) -> bool:
        """No person is connected to a running match any more: it pauses. Its timers stop,
        each keeping the time it had left; the bots and stand-ins hold (their pending decisions
        are dropped); nothing is decided or recorded until a person is back (issue 25, item 4).
        An open table (the counter) plays for nobody and is never paused. True if it paused:
        the caller tells whoever still watches (room frame, state frame)."""
        if self.paused or self.match is None or self.status != "playing" \
                or self.game.open_table or self._people_connected():
            return False
        self.paused = True
        self._timers.pause(self.now.mono)
        self._bots.hold()
        log.info("room %s: match %d paused: no person is connected", self.code,
                 self.match_number)
        return True

    def _resume_for(self, member: Member) -> bool:
        """``member`` is connecting: a person ends the pause. The timers run on from the time
        each had left, and those that ran out meanwhile (a restored room's, whose deadline
        passed while the server was down) play at once, before the joiner's own frames, so the
        joiner is shown the match as it now stands. True if it resumed: the caller sends the
        joiner their frames, then calls ``_play_on``."""
        if not self.paused or member.bot is not None:
            return False
        self.paused = False
        self._timers.resume(self.now.mono)
        log.info("room %s: match %d resumed", self.code, self.match_number)
        self._on_timer()
        return True

    def _play_on(self, skip: Connection | None = None) -> None:
        """After a resume: everyone else gets the state with its timers running again, and every
        bot its seat's frame, on which it decides again."""
        self._bots.release()
        self._broadcast_state([], skip=skip)

    def _mark_seen(self) -> None:
        """Seats whose person is connected while a move is played count as played by them."""
        for m in self.members.values():
            if m.seat in self._unseen and m.bot is None and m.connected:
                self._unseen.discard(m.seat)

    # --- bots in the match ---------------------------------------------------------------------
    def _bot_seats_wanted(self) -> dict[int, tuple[int, str, bool]]:
        """Seat: (member, difficulty, takeover) for every seat a bot plays now: bot members'
        seats, the seats of players disconnected past ``bot_takeover_seconds``, and a seat
        whose player was removed during the match (member 0: nobody; docs/protocol.md,
        "Computer players"), which would otherwise wait for ever."""
        if self.status != "playing" or self.match is None or self.game.open_table:
            return {}
        grace = self.room_options["bot_takeover_seconds"]
        now = self.now.mono
        wanted: dict[int, tuple[int, str, bool]] = {}
        for m in self.members.values():
            if m.seat is None:
                continue
            if m.bot is not None:
                wanted[m.seat] = (m.id, m.bot, False)
            elif grace > 0 and m.left and not m.connected and now - m.left_at >= grace:
                wanted[m.seat] = (m.id, TAKEOVER_DIFFICULTY, True)
        seated = {m.seat for m in self.members.values()}
        for seat in range(self.match.players):
            if seat not in seated:
                wanted[seat] = (0, TAKEOVER_DIFFICULTY, True)
        return wanted

    def _sync_bots(self, *, notify: bool = True) -> None:
        """Bots play exactly the seats they should; a seat newly played gets its frame now.
        With ``notify``, the room frame goes out when a takeover began or ended."""
        if not has_bots(self.game.id):
            return
        new, changed = self._bots.wanted(self._bot_seats_wanted())
        if changed and notify:
            self._broadcast_room()
        if new:
            self._deliver_to_bots(new)

    def _schedule_takeover_check(self) -> None:
        """Look again when a disconnected player's grace would end (the tick is the backup)."""
        grace = self.room_options["bot_takeover_seconds"]
        if grace > 0 and self.status == "playing" and not self.closed:
            self.out.append(Later(grace + TAKEOVER_CHECK_SLACK, ("bots",)))
