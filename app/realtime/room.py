"""The room actor: one asyncio task per room, its queue the only door to the room's state.

Every input (a client's frame, a new or closed connection, a timer, the periodic tick, a saved
match) is a message on the queue, handled one at a time in arrival order: arrival order at the
actor is the arbitration order. The room knows no game's rules; it drives a ``MatchRun`` through
the shared engine interface and builds each recipient's frame from that seat's view.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import orjson

from app import logs, metrics
from app.db.matches import LoggedMove, MatchRecord, PlayerResult
from app.engine import EngineError, Event, Game

from . import protocol as p
from .bots import TAKEOVER_DIFFICULTY, BotSeats, bot_name, has_bots
from .connection import Connection
from .delta import Frames
from .guard import CLOSE_POLICY, SocketPolicy, TokenBucket
from .journal import RoomRecorder
from .match import MatchRun
from .members import Member
from .membership import Membership
from .timers import TimerBoard
from .tokens import SeatTokens

log = logging.getLogger(__name__)

HISTORY_LIMIT = 100
HOST_HANDOVER_SECONDS = 30.0
RECOVERY_ATTEMPTS = 5
CLOSE_ROOM_CLOSED = 4003
CLOSE_SERVER_RESTARTING = 1012
RECOVERY_DELAY_SECONDS = 1.0
SEAT_MARKER = re.compile(r"\{seat:(\d+)\}")
"""How an engine's event text names a seat (docs/protocol.md, "Events")."""

SaveMatch = Callable[[MatchRecord, Callable[[str], None]], Awaitable[int]]
"""Writes a finished match (through the outbox, app/db/outbox.py) and returns its id once the
database has it; told ``"retrying"`` while the match waits for the database."""


class Room(Membership):
    """A room: its members, its options, its current match, and the actor that serialises them."""

    def __init__(
        self,
        *,
        code: str,
        game: Game,
        public: bool,
        tokens: SeatTokens,
        save_match: SaveMatch,
        idle_seconds: float = 600.0,
        ping_seconds: float = 5.0,
        policy: SocketPolicy | None = None,
    ) -> None:
        self.code = code
        self.game = game
        self.public = public
        self.options: dict[str, Any] = game.parse_options({}).model_dump(mode="json")
        self.room_options: dict[str, Any] = p.RoomOptions().model_dump(mode="json")
        """The room's own options, the same for every game (docs/protocol.md, "Room options")."""
        self.status = "waiting"
        self.members: dict[int, Member] = {}
        self.host: int | None = None
        self.watchers: set[Connection] = set()
        self.match: MatchRun | None = None
        self.match_number = 0
        """1 for the room's first match, +1 on each start or rematch (0 before the first)."""
        self.match_id: int | None = None
        self.result: dict[str, Any] | None = None
        self.history: deque[dict[str, Any]] = deque(maxlen=HISTORY_LIMIT)
        self.chat: deque[dict[str, Any]] = deque(maxlen=HISTORY_LIMIT)
        self.created_at = time.monotonic()
        self.last_activity = self.created_at
        self.closed = False
        self.close_code = CLOSE_ROOM_CLOSED
        self._tokens = tokens
        self._save_match = save_match
        self._idle_seconds = idle_seconds
        self._ping_seconds = ping_seconds
        self._ping_ms = round(ping_seconds * 1000)
        self.policy = policy or SocketPolicy()
        self.inbox = TokenBucket(self.policy.room_frames_per_second)
        """The room's share of client frames per second, from all its clients together."""
        self._next_member = 1
        self._banned_nonces: set[str] = set()
        self._banned_names: set[str] = set()
        self._recoveries = 0
        self._timers = TimerBoard(lambda key: self.post("timer", key))
        self._saving: set[asyncio.Task[None]] = set()
        self._save_state: tuple[MatchRun, str] | None = None
        self._queue: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._on_close: Callable[[Room], None] | None = None
        self.recorder: RoomRecorder | None = None
        """Durable rooms: records every change before its frames go out (journal.py)."""
        self._bots = BotSeats(game.id, self.post, self.policy.bot_think_scale)
        self._frames = Frames()
        """Each seat's last state frame that a delta client holds (app/realtime/delta.py)."""
        if game.open_table:
            self._start_match(players=game.max_players)

    # --- the actor ---------------------------------------------------------------------------
    def start(self, on_close: Callable[[Room], None]) -> None:
        self._on_close = on_close
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"room-{self.code}")

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The room's actor (done once the room has closed)."""
        return self._task

    def queued(self) -> int:
        """Messages waiting for the actor."""
        return self._queue.qsize()

    def post(self, *message: Any) -> None:
        """Put one message on the room's queue (the only way in)."""
        if not self.closed:
            self._queue.put_nowait(message)

    async def _run(self) -> None:
        logs.bind_room(self)
        tick = asyncio.get_running_loop().create_task(self._ticker())
        try:
            while not self.closed:
                message = await self._queue.get()
                recorder = self.recorder
                if recorder is not None:
                    recorder.begin()
                try:
                    self._handle(*message)
                except Exception:  # noqa: BLE001 - a bug costs one message, never the room
                    log.exception("room %s: failed to handle %s", self.code, message[0])
                    self._recover()
                finally:
                    if recorder is not None:
                        recorder.end(self)
        finally:
            tick.cancel()
            self._shutdown()

    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(self._ping_seconds)
            self.post("tick")

    def _handle(self, kind: str, *args: Any) -> None:
        logs.handling(args[0] if kind == "frame" else None)
        if kind == "frame":
            conn, message = args
            self.last_activity = time.monotonic()
            if self.recorder is not None and conn.gate is None:
                conn.gate = self.recorder.gate
            self._on_frame(conn, message)
        elif kind == "closed":
            self._on_closed(args[0])
        elif kind == "timer":
            self._on_timer(args[0])
        elif kind == "tick":
            self._on_tick()
        elif kind == "saved":
            self._on_saved(*args)
        elif kind == "bot":
            self._on_bot(*args)
        elif kind == "bots":
            self._sync_bots()
        elif kind == "recover":
            self._recover()
        elif kind == "close":
            self.close_code = args[0] if args else CLOSE_ROOM_CLOSED
            self.closed = True

    def _recover(self) -> None:
        """After an input failed half-way: the match as its log says, the end of the match if
        the rules say it ended, the timers the rules ask for, and the room and the state sent
        again to everyone (issue 7, item 4: every input leaves the room consistent and running).

        A move that was applied is in the log, so replaying the log from the seed gives exactly
        the state the rules reached; a move that failed inside ``apply`` was never logged. If the
        recovery itself fails (the engine fails again), it is tried again a moment later.
        """
        try:
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
        except Exception:  # noqa: BLE001 - try again shortly rather than stay frozen
            log.exception("room %s: recovery failed; trying again", self.code)
            self._recoveries += 1
            if self._recoveries <= RECOVERY_ATTEMPTS:
                asyncio.get_running_loop().call_later(
                    RECOVERY_DELAY_SECONDS * self._recoveries, self.post, "recover")
        else:
            self._recoveries = 0

    def _shutdown(self) -> None:
        """Every connection is closed: 4003 when the room closes, 1012 when the server stops."""
        self.closed = True
        if self.recorder is None or self.close_code != CLOSE_SERVER_RESTARTING:
            self._end_open_match()  # a durable room carries on after the restart instead
        self._timers.clear()
        self._bots.clear()
        why = ("room_closed", "this room has closed") if self.close_code == CLOSE_ROOM_CLOSED \
            else ("server_restarting", "the server is restarting; back in a moment")
        for conn in self._all_connections():
            conn.close(self.close_code, why)
        if self._on_close is not None:
            self._on_close(self)

    # --- frames from clients -----------------------------------------------------------------
    def _on_frame(self, conn: Connection, message: Any) -> None:
        if isinstance(message, p.Join):
            self._on_join(conn, message)
            return
        if isinstance(message, p.Ping):
            conn.send_control(p.encode({"type": "pong", "t": message.t}))
            return
        ref = getattr(message, "ref", None)
        if not conn.joined:
            conn.error("join_first", "send a 'join' frame first", ref)
            return
        if isinstance(message, p.Pong):
            conn.answer_ping(message.t, time.monotonic())
        elif isinstance(message, p.Resync):
            self._send_room(conn)
            self._send_state(conn)
        elif conn.member is None:
            conn.error("watching", "the table view only watches", ref)
        elif isinstance(message, p.Action):
            self._on_action(conn, conn.member, message)
        elif isinstance(message, p.Chat):
            self._on_chat(conn.member, message.text)
        else:
            self._on_host_command(conn, conn.member, message)

    def _on_join(self, conn: Connection, message: p.Join) -> None:
        if conn.joined:
            conn.error("already_joined", "this connection has joined already")
            return
        conn.deltas = message.deltas
        if message.watch:
            if len(self.watchers) >= self.policy.max_watchers_per_room:
                conn.close(CLOSE_POLICY, ("watchers_full", "this room has as many table views "
                                          "as it allows"))
                return
            conn.watcher = True
            self.watchers.add(conn)
            conn.send({"type": "welcome", "room": self.code, "member": None, "seat": None,
                       "token": None, "watching": True, "ping_ms": self._ping_ms})
        else:
            member = self._member_for(conn, message)
            if member is None:
                return
            member.left = False
            member.conns.add(conn)
            conn.member = member
            self._sync_bots(notify=False)  # a player back takes their seat over at once
            welcome = {"type": "welcome", "room": self.code, "member": member.id,
                       "seat": member.seat, "token": self.token_for(member), "watching": False,
                       "ping_ms": self._ping_ms}
            if not member.player:
                welcome["watching_reason"] = "full" if self.status == "waiting" \
                    or self.game.open_table else "started"
            conn.send(welcome)
        self._broadcast_room()
        self._send_state(conn)
        if self.history:
            conn.send({"type": "history", "events": list(self.history), "chat": list(self.chat)})
        elif self.chat:
            conn.send({"type": "history", "events": [], "chat": list(self.chat)})

    def _on_action(self, conn: Connection, member: Member, message: p.Action) -> None:
        if self.match is None or self.status != "playing":
            conn.error("not_playing", "no match is running", message.ref)
            return
        if member.seat is None:
            conn.error("spectator", "spectators cannot play", message.ref)
            return
        if self.recorder is not None and self.recorder.gate.full:
            conn.error("saving", "the server is saving the game; try again in a moment",
                       message.ref)
            return
        try:
            events = self.match.play(member.seat, message.action, conn.rtt_ms)
        except EngineError as exc:
            conn.error(exc.code, str(exc), message.ref)
            return
        except Exception:
            conn.error("internal", "the server could not apply this action", message.ref)
            raise  # the room recovers (``_recover``): the state as its log says, sent again
        self._after_move(events)
        metrics.player_move(self.game.id, message)

    def _on_chat(self, member: Member, text: str) -> None:
        line = {"member": member.id, "nickname": member.nickname, "text": text,
                "at": datetime.now(UTC).isoformat(timespec="seconds")}
        self.chat.append(line)
        self._broadcast({"type": "chat", **line})

    def _on_host_command(self, conn: Connection, member: Member, message: Any) -> None:
        if member.id != self.host:
            conn.error("not_host", "only the host can do that")
            return
        if isinstance(message, p.Start):
            self._host_start(conn)
        elif isinstance(message, p.Rematch):
            if self.status != "finished":
                conn.error("not_finished", "a rematch follows a finished match")
                return
            self._host_start(conn)
        elif isinstance(message, p.SetOptions):
            self._set_options(conn, message)
        elif isinstance(message, p.AddBot):
            self._add_bot(conn, message.difficulty)
        elif isinstance(message, p.RemoveBot):
            self._remove_bot(conn, message.member)
        elif isinstance(message, p.Kick):
            target = self.members.get(message.member)
            if target is None or target.id == member.id:
                conn.error("bad_member", "no such member to remove")
                return
            if target.bot is not None:
                self._remove_bot(conn, target.id)
                return
            self._remove(target)
        elif isinstance(message, p.MakeHost):
            target = self.members.get(message.member)
            if target is None or target.bot is not None:
                conn.error("bad_member", "no such member")
                return
            self.host = message.member
            self._broadcast_room()

    def _set_options(self, conn: Connection, message: p.SetOptions) -> None:
        """The game's options change between matches; the room's own options at any time
        (docs/protocol.md, "Room options")."""
        if message.options is not None:
            if self.status == "playing":
                conn.error("playing", "options change between matches")
                return
            try:
                parsed = self.game.parse_options(message.options)
            except EngineError as exc:
                conn.error("bad_options", str(exc))
                return
            self.options = parsed.model_dump(mode="json")
        if message.room is not None:
            self.room_options = message.room.model_dump(mode="json")
            self._sync_bots(notify=False)
            self._schedule_takeover_check()
        self._broadcast_room()

    # --- computer players (docs/bots.md, "In a room") ----------------------------------------
    def _add_bot(self, conn: Connection, difficulty: str) -> None:
        """The host seats a computer player while a seat is free, between matches."""
        if not has_bots(self.game.id) or self.game.open_table:
            conn.error("no_bots", f"{self.game.title} has no computer players")
            return
        if self.status == "playing":
            conn.error("playing", "computer players join between matches")
            return
        players = [m for m in self.members.values() if m.player and not m.left]
        if len(players) >= self.game.max_players:
            conn.error("seats_full", "every seat is taken")
            return
        self.add_bot_member(bot_name({m.nickname for m in self.members.values()}), difficulty)
        self._broadcast_room()

    def _remove_bot(self, conn: Connection, member_id: int) -> None:
        target = self.members.get(member_id)
        if target is None or target.bot is None:
            conn.error("bad_member", "no such computer player")
            return
        if self.status == "playing":
            conn.error("playing", "computer players leave between matches")
            return
        self._drop(target)
        self._broadcast_room()

    def _bot_seats_wanted(self) -> dict[int, tuple[int, str, bool]]:
        """Seat: (member, difficulty, takeover) for every seat a bot plays now: bot members'
        seats, and the seats of players disconnected past ``bot_takeover_seconds``."""
        if self.status != "playing" or self.match is None or self.game.open_table:
            return {}
        grace = self.room_options["bot_takeover_seconds"]
        now = time.monotonic()
        wanted: dict[int, tuple[int, str, bool]] = {}
        for m in self.members.values():
            if m.seat is None:
                continue
            if m.bot is not None:
                wanted[m.seat] = (m.id, m.bot, False)
            elif grace > 0 and m.left and not m.connected and now - m.left_at >= grace:
                wanted[m.seat] = (m.id, TAKEOVER_DIFFICULTY, True)
        return wanted

    def _sync_bots(self, *, notify: bool = True) -> None:
        """Bots play exactly the seats they should; a seat newly played gets its frame now.
        With ``notify``, the room frame goes out when a takeover began or ended."""
        if not has_bots(self.game.id):
            return
        new, changed = self._bots.wanted(self._bot_seats_wanted())
        if changed and notify:
            self._broadcast_room()
        if new and self.match is not None:
            common = self._state_common([])
            views = self.match.views(set(new))
            for seat in new:
                self._bots.deliver(seat, orjson.loads(self._state_frame(common, seat, views[seat])))

    def _schedule_takeover_check(self) -> None:
        """Look again when a disconnected player's grace would end (the tick is the backup)."""
        grace = self.room_options["bot_takeover_seconds"]
        if grace > 0 and self.status == "playing" and not self.closed:
            asyncio.get_running_loop().call_later(grace + 0.05, self.post, "bots")

    def _on_bot(self, seat: int, generation: int, action: dict[str, Any]) -> None:
        """A bot's decision, its thinking time over: played like a player's action. A refused
        action costs that decision only (logged)."""
        if self.match is None or self.status != "playing" or self._bots.due(seat, generation) \
                is None:
            return
        try:
            events = self.match.play(seat, action, 0)
        except EngineError as exc:
            log.warning("room %s: the bot of seat %d sent a refused action %s: %s",
                        self.code, seat, action, exc)
            return
        self._after_move(events)

    def _host_start(self, conn: Connection) -> None:
        if self.status == "playing":
            conn.error("playing", "a match is already running")
            return
        players = sorted((m for m in self.members.values() if m.player and not m.left),
                         key=lambda m: m.id)
        if len(players) not in self.game.player_counts():
            conn.error(
                "player_count",
                f"{self.game.title} needs {self.game.min_players} to {self.game.max_players} players",
            )
            return
        for m in self.members.values():
            if m.left:  # gone from the waiting room: not seated (issue 7, item 7)
                m.player, m.seat = False, None
        for seat, m in enumerate(players):
            m.seat = seat
        self._start_match(players=len(players))

    def _start_match(self, *, players: int) -> None:
        self.match = MatchRun(self.game, players, dict(self.options))
        self.match_number += 1
        self.status = "playing"
        self.result = None
        self.match_id = None
        self.history.clear()
        self._timers.clear()
        self._bots.clear()
        begins = self._record([Event(f"A new match of {self.game.title} begins.", kind="start")])
        self._sync_timers()
        self._bots.wanted(self._bot_seats_wanted())  # their first frame is the one below
        self._broadcast_room()
        self._broadcast_state(begins)

    # --- moves, timers, the end of a match ---------------------------------------------------
    def _after_move(self, events: list[Event]) -> None:
        assert self.match is not None
        frames = self._record(events)
        outcome = self.match.outcome()
        if outcome is None:
            self._sync_timers()
            self._broadcast_state(frames, moved=True)
        else:
            self._timers.clear()
            self._broadcast_state(frames, moved=True)
            self._end_match(outcome)

    def _end_match(self, outcome: Any) -> None:
        """The match ended: recorded with its seed revealed (``_finish``). An open table (the
        counter) never waits between matches: a new match with a new seed starts at once."""
        self._finish(outcome)
        if self.game.open_table and not self.closed:
            self._start_match(players=self.game.max_players)

    def _end_open_match(self) -> None:
        """The room closes: a running open-table match that saw moves is ended by the game's
        closing action and recorded, so its seed is revealed (docs/games/panika-counter.md)."""
        closing = getattr(self.game, "closing_action", None)
        match = self.match
        if closing is None or match is None or self.status != "playing" or not match.log:
            return
        try:
            match.play(None, closing)
            outcome = match.outcome()
            if outcome is not None:
                self._timers.clear()
                self._finish(outcome)
        except Exception:  # noqa: BLE001 - the room closes all the same
            log.exception("room %s: could not end the open match", self.code)

    def _record(self, events: list[Event]) -> list[dict[str, Any]]:
        """Events as frames, kept in the room's history (their ``{seat:N}`` markers unexpanded:
        the page names the seats, docs/protocol.md "Events")."""
        frames = [self._event_frame(e) for e in events]
        self.history.extend(f for f, e in zip(frames, events, strict=True) if not e.transient)
        return frames

    def _names(self, text: str) -> str:
        """``{seat:N}`` in an engine's text replaced by that seat's nickname, in one pass: a
        nickname that looks like a marker is pasted as it is, never expanded again (issue 7,
        item 3). Used for the stored summary only; events go out with their markers."""
        names = {m.seat: m.nickname for m in self.members.values() if m.seat is not None}

        def name(found: re.Match[str]) -> str:
            seat = int(found.group(1))
            return names.get(seat, f"Seat {seat + 1}")

        return SEAT_MARKER.sub(name, text)

    @staticmethod
    def _event_frame(event: Event) -> dict[str, Any]:
        frame: dict[str, Any] = {"text": event.text, "seat": event.seat, "kind": event.kind}
        if event.data:
            frame["data"] = event.data
        if event.transient:
            frame["transient"] = True
        return frame

    def _sync_timers(self) -> None:
        """Run exactly the timers the rules ask for now; a new key restarts a timer."""
        self._timers.sync(self.game.timers(self.match.state) if self.match else [])

    def _on_timer(self, key: str) -> None:
        timer = self._timers.expire(key)
        if timer is None or self.match is None or self.status != "playing":
            return
        try:
            events = self.match.play(None, timer.action)
        except EngineError as exc:
            log.warning("room %s: timer %s refused: %s", self.code, key, exc)
            self._sync_timers()
            return
        self._after_move(events)
        metrics.system_move(self.game.id)

    def _finish(self, outcome: Any) -> None:
        assert self.match is not None
        self.status = "finished"
        self._bots.clear()
        seat_names = {m.seat: m.nickname for m in self.members.values() if m.seat is not None}
        seat_bots = {m.seat: m.bot for m in self.members.values() if m.seat is not None}
        match = self.match
        players = [
            PlayerResult(seat, seat_names.get(seat, f"Seat {seat + 1}"), outcome.scores[seat],
                         outcome.ranks[seat], seat in outcome.winners, seat_bots.get(seat))
            for seat in range(match.players)
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
            seed_hash=match.seed_hash, started_at=match.started_at, ended_at=datetime.now(UTC),
            summary=summary, players=players,
            log=[LoggedMove(m.seat, m.action, m.at_ms, m.rtt_ms) for m in match.log],
        )
        task = asyncio.get_running_loop().create_task(self._save(record, match))
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    async def _save(self, record: MatchRecord, match: MatchRun) -> None:
        """Hand the match to the writer; the room hears "retrying" while the database is away
        and "saved" (with the id) once the database has it (docs/protocol.md, ``save_state``)."""
        try:
            match_id = await self._save_match(record, lambda state: self.post("saved", match, state))
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a failure must not kill the room; the outbox keeps it
            log.exception("room %s: could not save the match", self.code)
            self.post("saved", match, "retrying")
            return
        self.post("saved", match, "saved", match_id)

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

    # --- connections -------------------------------------------------------------------------
    def _on_closed(self, conn: Connection) -> None:
        """A connection ended (its socket closed, or the server gave up on it): told once or
        twice, it counts once."""
        member = conn.member
        if conn in self.watchers:
            self.watchers.discard(conn)
            self._broadcast_room()  # the room frame counts the table views
        elif member is not None and conn in member.conns:
            member.conns.discard(conn)
            if not member.conns:
                member.left_at = time.monotonic()
                member.left = True
                if member.seat is not None:
                    self._schedule_takeover_check()
            self._broadcast_room()

    def _on_tick(self) -> None:
        now = time.monotonic()
        conns = self._all_connections()
        if conns:
            self.last_activity = now
            t = secrets.randbits(48)
            frame = p.encode({"type": "ping", "t": t, "rtt": self._rtts()})
            for conn in conns:
                conn.ping_sent(t, now)
                conn.send_control(frame)
        elif now - self.last_activity > self._idle_seconds:
            self.closed = True
            return
        self._drop_gone_members(now)
        self._sync_bots()
        host = self.members.get(self.host) if self.host is not None else None
        if host is not None and not host.connected and now - host.left_at > HOST_HANDOVER_SECONDS:
            successor = next((m for m in self.members.values() if m.connected), None)
            if successor is not None:
                self.host = successor.id
                self._broadcast_room()

    def _rtts(self) -> dict[str, int]:
        return {str(m.id): m.rtt_ms for m in self.members.values() if m.connected}

    def _all_connections(self) -> list[Connection]:
        conns = list(self.watchers)
        for m in self.members.values():
            conns.extend(m.conns)
        return conns

    # --- frames to clients -------------------------------------------------------------------
    def room_frame(self) -> dict[str, Any]:
        match = self.match
        takeovers = self._bots.takeover_seats()
        return {
            "type": "room",
            "code": self.code,
            "game": self.game.id,
            "status": self.status,
            "public": self.public,
            "host": self.host,
            "options": self.options,
            "members": [self._member_frame(m, takeovers) for m in self.members.values()],
            "room_options": self.room_options,
            "bots": has_bots(self.game.id) and not self.game.open_table,
            "watchers": len(self.watchers),
            "seed_hash": match.seed_hash if match else None,
            "result": self.result,
            "match_id": self.match_id,
            "save_state": self._match_save_state(),
            "match_number": self.match_number,
        }

    def _member_frame(self, m: Member, takeovers: set[int]) -> dict[str, Any]:
        """A member as the room frame lists them: a bot with its difficulty (always connected,
        it needs no socket), a player whose seat a bot plays meanwhile with ``played_by_bot``."""
        frame: dict[str, Any] = {
            "id": m.id, "nickname": m.nickname, "seat": m.seat, "player": m.player,
            "connected": m.connected or m.bot is not None, "rtt_ms": m.rtt_ms}
        if m.left and not self._keeps_place(m):
            frame["left"] = True
        if m.bot is not None:
            frame["bot"] = m.bot
        elif m.seat is not None and m.seat in takeovers:
            frame["played_by_bot"] = True
        return frame

    def _broadcast_room(self) -> None:
        self._broadcast(self.room_frame())

    def _send_room(self, conn: Connection) -> None:
        conn.send(self.room_frame())

    def _broadcast(self, frame: dict[str, Any]) -> None:
        text = p.encode(frame)
        for conn in self._all_connections():
            conn.send_text(text)

    def _state_common(self, events: list[dict[str, Any]], moved: bool = False) -> dict[str, Any]:
        """The part of a state frame that every recipient shares; after a move, which move it
        was (its number, seat and time: never the action, which may be a secret)."""
        match = self.match
        assert match is not None
        timers = self._timers.visible()
        common = {"match": self.match_number, "version": match.version,
                  "active": self.game.active_seats(match.state),
                  "timers": timers, "events": events}
        if moved and match.log:
            last = match.log[-1]
            common["move"] = {"seq": match.version, "seat": last.seat, "at_ms": last.at_ms}
        return common

    def _state_frame(self, common: dict[str, Any], seat: int | None, view: dict[str, Any]) -> str:
        return p.encode(self._state_dict(common, seat, view))

    def _state_dict(self, common: dict[str, Any], seat: int | None,
                    view: dict[str, Any]) -> dict[str, Any]:
        """A seat's state frame: its view and, for a seat, its ``legal`` actions now (the
        table and spectators get the public view only)."""
        frame: dict[str, Any] = {"type": "state", "seat": seat, "view": view}
        if seat is not None and self.match is not None:
            frame["legal"] = self.game.legal_actions(self.match.state, seat)
        frame.update(common)
        return frame

    def _broadcast_state(self, events: list[dict[str, Any]], moved: bool = False) -> None:
        """Each recipient gets its own seat's view; one view and one encoding per seat. A seat
        a bot plays gets the very frame a client of that seat gets (decoded afresh)."""
        if self.match is None:
            return
        conns = self._all_connections()
        common = self._state_common(events, moved)
        bot_seats = list(self._bots.seats)
        views = self.match.views({conn.seat for conn in conns} | set(bot_seats))
        frames = {seat: self._state_dict(common, seat, view) for seat, view in views.items()}
        texts: dict[int | None, str] = {}

        def full_text(seat: int | None) -> str:
            text = texts.get(seat)
            if text is None:
                text = texts[seat] = p.encode(frames[seat])
            return text

        self._frames.send(conns, frames, full_text)  # patches to delta clients (delta.py)
        for seat in bot_seats:
            self._bots.deliver(seat, orjson.loads(full_text(seat)))

    def _send_state(self, conn: Connection) -> None:
        if self.match is not None:
            seat = conn.seat
            frame = self._state_dict(self._state_common([]), seat, self.match.view(seat))
            conn.send_text(p.encode(frame))
            self._frames.sent_full(conn, frame)

    # --- durable rooms (app/realtime/journal.py, app/realtime/restore.py) ---------------------
    @property
    def next_member_id(self) -> int:
        return self._next_member

    @property
    def banned_count(self) -> int:
        return len(self._banned_nonces) + len(self._banned_names)

    def banned_lists(self) -> dict[str, list[str]]:
        return {"nonces": sorted(self._banned_nonces), "names": sorted(self._banned_names)}

    def restore_membership(self, next_member: int, banned: dict[str, list[str]]) -> None:
        self._next_member = next_member
        self._banned_nonces = set(banned.get("nonces", ()))
        self._banned_names = set(banned.get("names", ()))

    def on_saving(self, waiting: bool) -> None:
        """The journal waits for the database (or is through): every page hears it at once
        (docs/protocol.md, "Saving")."""
        frame = p.encode({"type": "saving", "waiting": waiting})
        for conn in self._all_connections():
            conn.send_control(frame)
