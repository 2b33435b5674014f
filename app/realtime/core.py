"""The room's core: every decision of a room, as a pure function of its inputs and the time.

``RoomCore`` holds a room's state (members, options, the match, history and chat) and takes one
input at a time, each with the time it is handled at (``Now``): a client's frame, a closed
connection, the room's timers falling due, the periodic tick, a bot's decision, the takeover
check, a saved match, a recovery, the shutdown, a restored room's resumption. Each input returns
the effects it asks for, in order (app/realtime/effects.py): frames to connections, closes,
messages to post back later, when the timers next fall due, a match to save, a move to count.

It never sends, sleeps, reads a clock or starts a task: the actor (``Room``, app/realtime/room.py)
does all that, and tests drive the core with no sockets and no event loop (docs/architecture.md,
"The room's core"). Its parts, one module each: joining and seats (``membership.py``), host
commands (``host.py``), the match's life (``life.py``) and frame building (``frames.py``).
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Mapping
from typing import Any

from app.engine import Game

from . import protocol as p
from .bots import BotSeats
from .connection import CLOSE_FELL_BEHIND, Connection
from .delta import StatePatches
from .effects import Close, Control, Effect, Now, WakeAt
from .frames import Frames
from .guard import SocketPolicy
from .host import HostCommands
from .life import MatchLife
from .match import MatchRun
from .members import Member
from .membership import Membership
from .timers import TimerBoard
from .tokens import SeatTokens

HISTORY_LIMIT = 100
CLOSE_ROOM_CLOSED = 4003
CLOSE_SERVER_RESTARTING = 1012


class RoomCore(Membership, HostCommands, MatchLife, Frames):
    """A room's state and decisions; each input returns the effects it asks for."""

    def __init__(self, *, code: str, game: Game, public: bool, tokens: SeatTokens, now: Now,
                 idle_seconds: float = 600.0, ping_seconds: float = 5.0,
                 policy: SocketPolicy | None = None) -> None:
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
        self.history: deque[str] = deque(maxlen=HISTORY_LIMIT)
        """The match's last events as JSON text: kept as text, the collector never walks them
        (docs/performance.md, "The collector freezes what it has walked"); a ``str``, as orjson's
        ``bytes`` would keep a 4 KB buffer each (app/engine/movelog.py)."""
        self.chat: deque[dict[str, Any]] = deque(maxlen=HISTORY_LIMIT)
        self.now = now
        """The time of the input being handled (of the room's creation before the first)."""
        self.created_at = now.mono
        self.last_activity = now.mono
        self.closed = False
        self.paused = False
        """The running match is paused: no person is connected (docs/protocol.md, "Computer
        players"; issue 25, item 4)."""
        self.journal_full = False
        """Durable rooms: the actor sets it before each input while too many of the room's
        changes wait for the database; actions are refused (``saving``) meanwhile."""
        self.policy = policy or SocketPolicy()
        self.ping_ms = round(ping_seconds * 1000)
        self.out: list[Effect] = []
        """The effects of the input being handled, in order (``take`` hands them over)."""
        self._tokens = tokens
        self._idle_seconds = idle_seconds
        self._next_member = 1
        self._banned_nonces: set[str] = set()
        self._banned_names: set[str] = set()
        self._timers = TimerBoard()
        self._save_state: tuple[MatchRun, str] | None = None
        self.dropped_moves = 0
        """A restored room: the moves of its match that the rules now refuse, dropped
        (app/realtime/restore.py; the recorder writes the match again without them)."""
        self._sat: dict[int, str] = {}
        """An open table's match: every seat a member sat in while it ran, with the nickname
        (only those seats are recorded: docs/games/panika-counter.md)."""
        self._unseen: set[int] = set()
        """Seats of the current match whose person has not been connected while it was played
        (recorded as the stand-in's if that lasts to the end: ``MatchLife._finish``)."""
        self._bots = BotSeats(game.id, self.out.append, self.policy.bot_think_scale)
        self._patches = StatePatches()
        """Each seat's last state frame that a delta client holds (app/realtime/delta.py)."""
        if game.open_table:
            self._start_match(players=game.max_players)

    def take(self) -> list[Effect]:
        """The effects asked for since the last call (the timers' next wake-up last)."""
        soonest = self._timers.soonest()
        if soonest is not None:
            self.out.append(WakeAt(soonest))
        effects = self.out[:]
        self.out.clear()
        return effects

    # --- inputs --------------------------------------------------------------------------------
    def frame(self, conn: Connection, message: Any, now: Now) -> list[Effect]:
        """A client's frame (already parsed, app/realtime/protocol.py)."""
        self.now = now
        self.last_activity = now.mono
        self._on_frame(conn, message)
        return self.take()

    def closed_connection(self, conn: Connection, now: Now) -> list[Effect]:
        self.now = now
        self._on_closed(conn)
        return self.take()

    def timers_due(self, now: Now) -> list[Effect]:
        """The room woke for its timers (``WakeAt``)."""
        self.now = now
        self._on_timer()
        return self.take()

    def tick(self, now: Now) -> list[Effect]:
        """The periodic tick: pings, the idle close, members gone, takeovers, host handover."""
        self.now = now
        self._on_tick(now.mono)
        return self.take()

    def bot_decision(self, seat: int, generation: int, action: dict[str, Any],
                     now: Now) -> list[Effect]:
        self.now = now
        self._on_bot(seat, generation, action)
        return self.take()

    def takeover_check(self, now: Now) -> list[Effect]:
        """A disconnected player's grace may be over: bots play exactly the seats they should."""
        self.now = now
        self._sync_bots()
        return self.take()

    def saved(self, match: MatchRun, state: str, match_id: int | None, now: Now) -> list[Effect]:
        self.now = now
        self._on_saved(match, state, match_id)
        return self.take()

    def recover(self, now: Now) -> list[Effect]:
        """After an input failed half-way (its effects so far already taken): see
        ``MatchLife._recover_match``."""
        self.now = now
        self.out.clear()
        self._recover_match()
        return self.take()

    def resume(self, elapsed: Mapping[str, float], now: Now) -> list[Effect]:
        """A restored room starts: see ``MatchLife._resume_match``."""
        self.now = now
        self._resume_match(elapsed)
        return self.take()

    def shutdown(self, close_code: int, durable: bool, now: Now) -> list[Effect]:
        """Every connection is closed: 4003 when the room closes, 1012 when the server stops
        (a durable room's match then carries on after the restart instead of ending)."""
        self.now = now
        self.closed = True
        if not durable or close_code != CLOSE_SERVER_RESTARTING:
            self._end_open_match()
            self._drop_running_match()
        self._timers.clear()
        self._bots.clear()
        why = ("room_closed", "this room has closed") if close_code == CLOSE_ROOM_CLOSED \
            else ("server_restarting", "the server is restarting; back in a moment")
        self.out.extend(Close(conn, close_code, why) for conn in self._all_connections())
        return self.take()

    def saving(self, waiting: bool) -> list[Effect]:
        """The journal waits for the database (or is through): every page hears it at once
        (docs/protocol.md, "Saving")."""
        return [Control(self._all_connections(),
                        p.encode({"type": "saving", "waiting": waiting}))]

    # --- dispatch ------------------------------------------------------------------------------
    def _on_frame(self, conn: Connection, message: Any) -> None:
        if isinstance(message, p.Join):
            self._on_join(conn, message)
            return
        if isinstance(message, p.Ping):
            self.out.append(Control((conn,), p.encode({"type": "pong", "t": message.t})))
            return
        if isinstance(message, p.Pong):
            # Counts only for a ping this connection was sent (none before it joined); any
            # other pong is ignored, without an error (docs/protocol.md).
            conn.answer_ping(message.t, self.now.mono)
            return
        ref = getattr(message, "ref", None)
        if not conn.joined:
            self._error(conn, "join_first", "send a 'join' frame first", ref)
            return
        if isinstance(message, p.Resync):
            self._send_room(conn)
            self._send_state(conn)
        elif conn.member is None:
            self._error(conn, "watching", "the table view only watches", ref)
        elif isinstance(message, p.Action):
            self._on_action(conn, conn.member, message)
        elif isinstance(message, p.Chat):
            self._on_chat(conn.member, message.text)
        else:
            self._on_host_command(conn, conn.member, message)

    def _on_chat(self, member: Member, text: str) -> None:
        line = {"member": member.id, "nickname": member.nickname, "text": text,
                "at": self.now.wall.isoformat(timespec="seconds")}
        self.chat.append(line)
        self._broadcast({"type": "chat", **line})

    def _on_tick(self, now: float) -> None:
        self._close_silent(now)
        conns = self._all_connections()
        if conns:
            self.last_activity = now
            t = secrets.randbits(48)
            rtts = {str(m.id): m.rtt_ms for m in self.members.values() if m.connected}
            for conn in conns:
                conn.ping_sent(t, now)
            self.out.append(Control(conns, p.encode({"type": "ping", "t": t, "rtt": rtts})))
        elif now - self.last_activity > self._idle_seconds:
            self.closed = True
            return
        self._drop_gone_members(now)
        self._sync_bots()
        self._hand_host_over(now)

    def _close_silent(self, now: float) -> None:
        """Presence (docs/protocol.md, "Presence"): a connection that answered the server's pings
        and has answered none for ``silence_seconds`` (at least two ping intervals) is given up,
        as a dead network would never tell: closed (``too_slow``), its member away at once, so
        every other screen can say so while the phone itself is reconnecting."""
        limit = self.policy.silence_seconds
        if limit <= 0:
            return
        limit = max(limit, 2 * self.ping_ms / 1000)
        for conn in self._all_connections():
            if conn.heard is not None and now - conn.heard >= limit:
                self.out.append(Close(conn, CLOSE_FELL_BEHIND,
                                      ("too_slow", "no answer to the server's pings")))
                self._on_closed(conn)
