"""The room's core: every decision of a room, as a pure function of its inputs and the time.

``RoomCore`` holds a room's state (``RoomState``, app/realtime/room/state.py: members, options,
the match, history and chat) and takes one input at a time, each with the time it is handled at
(``Now``): a client's frame, a closed connection, the room's timers falling due, the periodic
tick, a bot's decision, the takeover check, a saved match, a recovery, the shutdown, a restored
room's resumption. Each input returns the effects it asks for, in order
(app/realtime/room/effects.py): frames to connections, closes, messages to post back later, when
the timers next fall due, a match to save, a move to count.

It never sends, sleeps, reads a clock or starts a task: the actor (``Room``,
app/realtime/actor.py) does all that, and tests drive the core with no sockets and no event loop
(docs/architecture.md, "The room's core"). It is composed of the room's jobs, one small class
each, every one given the state and the parts it needs: ``Frames`` (frame building,
``frames.py``), ``MatchLife`` (the match's life, ``life.py``), ``Membership`` (joining and seats,
``membership.py``) and ``HostCommands`` (``host.py``).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from app.engine.registry import AnyGame
from app.realtime.room import protocol as p
from app.realtime.room.bots import BotSeats
from app.realtime.room.effects import Close, Control, Effect, Listed, Now, WakeAt
from app.realtime.room.frames import Frames
from app.realtime.room.host import HostCommands
from app.realtime.room.life import MatchLife
from app.realtime.room.match import MatchRun
from app.realtime.room.members import Client, Member
from app.realtime.room.membership import Membership
from app.realtime.room.protocol import (
    CLOSE_FELL_BEHIND, CLOSE_ROOM_CLOSED, CLOSE_SERVER_RESTARTING,
)
from app.realtime.room.state import RoomState, SocketPolicy
from app.realtime.room.tokens import SeatTokens

__all__ = ["CLOSE_ROOM_CLOSED", "CLOSE_SERVER_RESTARTING", "RoomCore"]


class RoomCore:
    """A room's state and decisions; each input returns the effects it asks for."""


    def __init__(self, *, code: str, game: AnyGame, public: bool, tokens: SeatTokens, now: Now,
                 idle_seconds: float = 600.0, ping_seconds: float = 5.0,
                 policy: SocketPolicy | None = None) -> None:
        self.out: list[Effect] = []
        """The effects of the input being handled, in order (``take`` hands them over); every
        part appends to this one list."""
        policy = policy or SocketPolicy()
        self.state = RoomState(
            code=code, game=game, public=public, now=now,
            bots=BotSeats(game.id, self.out.append, policy.bot_think_scale),
            policy=policy, ping_ms=round(ping_seconds * 1000), idle_seconds=idle_seconds,
            options=game.parse_options({}).model_dump(mode="json"),
            room_options=p.RoomOptions().model_dump(mode="json"),
            created_at=now.mono, last_activity=now.mono)
        self.frames = Frames(self.state, self.out)
        self.life = MatchLife(self.state, self.frames, self.out)
        self.membership = Membership(self.state, self.frames, self.life, tokens, self.out)
        self.commands = HostCommands(self.state, self.frames, self.life, self.membership,
                                     self.out)
        if game.open_table:
            self.life.start_match(players=game.max_players)

    def take(self) -> list[Effect]:
        """The effects asked for since the last call (the timers' next wake-up last)."""
        soonest = self.state.timers.soonest()
        if soonest is not None:
            self.out.append(WakeAt(soonest))
        effects = self.out[:]
        self.out.clear()
        return effects

    # --- what the actor asks of the room for the registry and the pages ----------------------
    def room_frame(self) -> dict[str, Any]:
        """The room as its ``room`` frame shows it (docs/protocol.md)."""
        return self.frames.room_frame()

    def add_member(self, nickname: str) -> Member:
        """A new member (the host of a room being created: ``Membership.add_member``)."""
        return self.membership.add_member(nickname)

    def token_for(self, member: Member) -> str:
        """The seat token that brings ``member`` back to this room."""
        return self.membership.token_for(member)

    # --- inputs --------------------------------------------------------------------------------
    def frame(self, conn: Client, message: Any, now: Now) -> list[Effect]:
        """A client's frame (already parsed, app/realtime/room/protocol.py)."""
        self.state.now = now
        self.state.last_activity = now.mono
        self._on_frame(conn, message)
        return self.take()

    def closed_connection(self, conn: Client, now: Now) -> list[Effect]:
        self.state.now = now
        self.membership.on_closed(conn)
        self._relist()
        return self.take()

    def timers_due(self, now: Now) -> list[Effect]:
        """The room woke for its timers (``WakeAt``)."""
        self.state.now = now
        self.life.on_timer()
        return self.take()

    def tick(self, now: Now) -> list[Effect]:
        """The periodic tick: pings, the idle close (and the close of a room nobody joined),
        members gone, takeovers, host handover."""
        self.state.now = now
        self._on_tick(now.mono)
        self._relist()
        return self.take()

    def bot_decision(self, seat: int, generation: int, action: dict[str, Any],
                     now: Now) -> list[Effect]:
        self.state.now = now
        self.life.on_bot(seat, generation, action)
        return self.take()

    def takeover_check(self, now: Now) -> list[Effect]:
        """A disconnected player's grace may be over: bots play exactly the seats they should."""
        self.state.now = now
        self.life.sync_bots()
        return self.take()

    def saved(self, match: MatchRun, news: str, match_id: int | None, now: Now) -> list[Effect]:
        self.state.now = now
        self.life.on_saved(match, news, match_id)
        return self.take()

    def recover(self, now: Now) -> list[Effect]:
        """After an input failed half-way (its effects so far already taken): see
        ``MatchLife.recover_match``."""
        self.state.now = now
        self.state.touch()  # the failed input may have changed the room half-way
        self.out.clear()
        self.life.recover_match()
        return self.take()

    def resume(self, elapsed: Mapping[str, float], now: Now) -> list[Effect]:
        """A restored room starts: see ``MatchLife.resume_match``."""
        self.state.now = now
        self.state.touch()
        self.life.resume_match(elapsed)
        return self.take()

    def shutdown(self, close_code: int, durable: bool, now: Now) -> list[Effect]:
        """Every connection is closed: 4003 when the room closes, 1012 when the server stops
        (a durable room's match then carries on after the restart instead of ending)."""
        state = self.state
        state.now = now
        state.touch()
        state.closed = True
        if not durable or close_code != CLOSE_SERVER_RESTARTING:
            self.life.end_open_match()
            self.life.drop_running_match()
        state.timers.clear()
        state.bots.clear()
        why = ("room_closed", "this room has closed") if close_code == CLOSE_ROOM_CLOSED \
            else ("server_restarting", "the server is restarting; back in a moment")
        self.out.extend(Close(conn, close_code, why) for conn in state.all_connections())
        return self.take()

    def saving(self, waiting: bool) -> list[Effect]:
        """The journal waits for the database (or is through): every page hears it at once
        (docs/protocol.md, "Saving")."""
        return [Control(self.state.all_connections(),
                        p.encode({"type": "saving", "waiting": waiting}))]

    # --- dispatch ------------------------------------------------------------------------------
    def _on_frame(self, conn: Client, message: Any) -> None:
        if isinstance(message, p.Join):
            self.state.touch()  # a join may add a member, seat them, make them host
            self.membership.on_join(conn, message)
            self._relist()
            return
        if isinstance(message, p.Ping):
            self.out.append(Control((conn,), p.encode({"type": "pong", "t": message.t})))
            return
        if isinstance(message, p.Pong):
            # Counts only for a ping this connection was sent (none before it joined); any
            # other pong is ignored, without an error (docs/protocol.md).
            conn.answer_ping(message.t, self.state.now.mono)
            return
        ref = getattr(message, "ref", None)
        if not conn.joined:
            self.frames.error(conn, "join_first", "send a 'join' frame first", ref)
            return
        if isinstance(message, p.Resync):
            self.frames.send_room(conn)
            self.frames.send_state(conn)
        elif conn.member is None:
            self.frames.error(conn, "watching", "the table view only watches", ref)
        elif isinstance(message, p.Action):
            self.life.on_action(conn, conn.member, message)
        elif isinstance(message, p.Chat):
            self._on_chat(conn.member, message.text)
        else:
            self.state.touch()  # a host command may change the room (the parts mark it too)
            self.commands.on_command(conn, conn.member, message)
            self._relist()  # a start leaves the lobby, a removal may empty the room

    def _on_chat(self, member: Member, text: str) -> None:
        line = {"member": member.id, "nickname": member.nickname, "text": text,
                "at": self.state.now.wall.isoformat(timespec="seconds")}
        self.state.chat.append(line)
        self.frames.broadcast({"type": "chat", **line})

    def _on_tick(self, now: float) -> None:
        self._close_silent(now)
        state = self.state
        conns = state.all_connections()
        if conns:
            state.last_activity = now
            t = secrets.randbits(48)
            rtts = {str(m.id): m.rtt_ms for m in state.members.values() if m.connected}
            for conn in conns:
                conn.ping_sent(t, now)
            self.out.append(Control(conns, p.encode({"type": "ping", "t": t, "rtt": rtts})))
        elif not state.joined and now - state.created_at > state.policy.unjoined_seconds:
            state.closed = True  # made, and never opened by anyone (docs/decisions/0044)
            return
        elif now - state.last_activity > state.idle_seconds:
            state.closed = True
            return
        self.membership.drop_gone_members(now)
        self.life.sync_bots()
        self.membership.hand_host_over(now)

    def _relist(self) -> None:
        """After an input that can change who is connected or the room's status (a join, a
        closed connection, a host command, the tick): a ``Listed`` effect when the room's
        place in the lobby changed. A move or a chat line changes neither, and costs nothing
        here."""
        listed = self.state.listed()
        if listed != self.state.in_lobby:
            self.state.in_lobby = listed
            self.out.append(Listed(listed))

    def _close_silent(self, now: float) -> None:
        """Presence (docs/protocol.md, "Presence"): a connection that answered the server's pings
        and has answered none for ``silence_seconds`` (at least two ping intervals) is given up,
        as a dead network would never tell: closed (``too_slow``), its member away at once, so
        every other screen can say so while the phone itself is reconnecting."""
        state = self.state
        limit = state.policy.silence_seconds
        if limit <= 0:
            return
        limit = max(limit, 2 * state.ping_ms / 1000)
        for conn in state.all_connections():
            if conn.heard is not None and now - conn.heard >= limit:
                self.out.append(Close(conn, CLOSE_FELL_BEHIND,
                                      ("too_slow", "no answer to the server's pings")))
                self.membership.on_closed(conn)
