"""Joining and seats: who joins as what, who keeps their place, who is banned, who hosts.

A part of the room's core (``RoomCore``, app/realtime/room/core.py), as a base class: a join by token
or by nickname (or as a table view), a full room making room, a closed connection, removal by
the host as a ban for the room (docs/protocol.md, "Members"), members who left losing their
place after the grace period (issue 7, item 7) and the host handed over when they stay away.
Like the rest of the core it decides only: frames and closes are effects for the actor.
"""

from __future__ import annotations

import secrets
from collections import deque
from typing import TYPE_CHECKING, Any

import orjson

from app.realtime.room import protocol as p
from app.realtime.transport.connection import Connection
from app.realtime.room.effects import BadJoin, Close, Effect, Now
from app.realtime.transport.guard import CLOSE_POLICY
from app.realtime.room.members import Member, unique_nickname
from app.realtime.room.text import name_key
from app.realtime.room.tokens import SeatClaim, SeatTokens

if TYPE_CHECKING:
    from app.engine import Game

    from app.realtime.transport.guard import SocketPolicy

MAX_MEMBERS = 40
CLOSE_REMOVED = 4000
HOST_HANDOVER_SECONDS = 30.0


class Membership:
    """Membership for ``RoomCore`` (which sets these attributes up)."""

    code: str
    game: Game
    status: str
    members: dict[int, Member]
    host: int | None
    watchers: set[Connection]
    history: deque[str]
    chat: deque[dict[str, Any]]
    policy: SocketPolicy
    out: list[Effect]
    now: Now
    ping_ms: int
    _tokens: SeatTokens
    _next_member: int
    _banned_nonces: set[str]
    _banned_names: set[str]

    paused: bool
    _unseen: set[int]
    _sat: dict[int, str]

    if TYPE_CHECKING:
        def _send(self, conn: Connection, frame: dict[str, Any]) -> None: ...
        def _broadcast_state(self, events: list[dict[str, Any]], moved: bool = False,
                             skip: Connection | None = None) -> None: ...
        def _pause_if_nobody(self) -> bool: ...
        def _resume_for(self, member: Member) -> bool: ...
        def _play_on(self, skip: Connection | None = None) -> None: ...
        def _error(self, conn: Connection, code: str, message: str,
                   ref: int | None = None) -> None: ...
        def _broadcast_room(self) -> None: ...
        def _send_state(self, conn: Connection) -> None: ...
        def _sync_bots(self, *, notify: bool = True) -> None: ...
        def _schedule_takeover_check(self) -> None: ...

    # --- joining -------------------------------------------------------------------------------
    def _on_join(self, conn: Connection, message: p.Join) -> None:
        if conn.joined:
            self._error(conn, "already_joined", "this connection has joined already")
            return
        resumed = False
        if message.watch:
            if len(self.watchers) >= self.policy.max_watchers_per_room:
                self.out.append(Close(conn, CLOSE_POLICY, (
                    "watchers_full", "this room has as many table views as it allows")))
                return
            conn.watcher = True
            self.watchers.add(conn)
            self._send(conn, {"type": "welcome", "room": self.code, "member": None, "seat": None,
                              "token": None, "watching": True, "ping_ms": self.ping_ms})
        else:
            member = self._member_for(conn, message)
            if member is None:
                return
            member.left = False
            resumed = self._resume_for(member)  # a person is back: a paused match plays on
            member.conns.add(conn)
            conn.member = member
            if self.status == "playing" and member.seat is not None:
                self._unseen.discard(member.seat)
            self._sync_bots(notify=False)  # a player back takes their seat over at once
            welcome = {"type": "welcome", "room": self.code, "member": member.id,
                       "seat": member.seat, "token": self.token_for(member), "watching": False,
                       "ping_ms": self.ping_ms}
            if not member.player:
                welcome["watching_reason"] = "full" if self.status == "waiting" \
                    or self.game.open_table else "started"
            self._send(conn, welcome)
        self._broadcast_room()
        self._send_state(conn)
        if self.history:
            self._send(conn, {"type": "history",
                              "events": [orjson.Fragment(e) for e in self.history],
                              "chat": list(self.chat)})
        elif self.chat:
            self._send(conn, {"type": "history", "events": [], "chat": list(self.chat)})
        if resumed:
            self._play_on(skip=conn)

    def _member_for(self, conn: Connection, message: p.Join) -> Member | None:
        if message.token:
            claim = self._tokens.read(message.token)
            if claim is not None and claim.room == self.code and claim.nonce in self._banned_nonces:
                self._refuse_removed(conn)
                return None
            member = self.members.get(claim.member) if claim and claim.room == self.code else None
            if member is None or claim is None or member.nonce != claim.nonce:
                self._error(conn, "bad_token", "this seat token is not valid in this room")
                self.out.append(BadJoin(conn))
                return None
            return member
        if not message.nickname:
            self._error(conn, "nickname_required", "a nickname (or a seat token) is needed to join")
            return None
        if name_key(message.nickname) in self._banned_names:
            self._refuse_removed(conn)
            return None
        if len(self.members) >= MAX_MEMBERS and not self._make_room():
            self._error(conn, "room_full", "this room is full")
            return None
        return self.add_member(message.nickname)

    def _make_room(self) -> bool:
        """A full room drops the member who left longest ago (within their grace period) to
        let a newcomer in; False when no one has left."""
        gone = [m for m in self.members.values()
                if m.left and not m.connected and not self._keeps_place(m)]
        if not gone:
            return False
        self._drop(min(gone, key=lambda m: m.left_at))
        return True

    def _refuse_removed(self, conn: Connection) -> None:
        self.out.append(Close(conn, CLOSE_REMOVED, ("removed", "the host removed you from this room")))

    def add_member(self, nickname: str) -> Member:
        """A new member: a player while seats remain, else a spectator. The time of the input
        (or of the room's creation) starts their host handover delay before a first connection
        (issue 7, item 13)."""
        name = unique_nickname(nickname, (m.nickname for m in self.members.values()))
        member = Member(self._next_member, name, secrets.token_hex(8), player=False,
                        left_at=self.now.mono)
        self._next_member += 1
        players = [m for m in self.members.values() if m.player]
        if self.game.open_table:
            used = {m.seat for m in players}
            free = [s for s in range(self.game.max_players) if s not in used]
            if free:
                member.player, member.seat = True, free[0]
                self._sat.setdefault(free[0], name)  # recorded with the running counter
        elif self.status == "waiting" and len(players) < self.game.max_players:
            member.player = True
        self.members[member.id] = member
        if self.host is None:
            self.host = member.id
        return member

    def add_bot_member(self, name: str, difficulty: str) -> Member:
        """A computer player with a free seat (docs/bots.md, "In a room"): a player like any
        other, but with no connections and no token; never the host, never "left"."""
        name = unique_nickname(name, (m.nickname for m in self.members.values()))
        member = Member(self._next_member, name, secrets.token_hex(8), player=True,
                        left_at=self.now.mono, bot=difficulty)
        self._next_member += 1
        self.members[member.id] = member
        return member

    def token_for(self, member: Member) -> str:
        """The seat token that brings ``member`` back to this room."""
        return self._tokens.issue(SeatClaim(self.code, member.id, member.nonce))

    # --- leaving -------------------------------------------------------------------------------
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
                member.left_at = self.now.mono
                member.left = True
                if member.seat is not None:
                    self._schedule_takeover_check()
            paused = self._pause_if_nobody()  # the last person gone: the match pauses
            self._broadcast_room()
            if paused:
                self._broadcast_state([])  # what still watches sees the timers stopped

    def _remove(self, target: Member) -> None:
        """The host removes a member: a ban for this room (docs/protocol.md, "Removal"). Their
        connections close with 4000, their seat token is refused from now on, and so is their
        nickname (compared as names are); without accounts that is all a ban can hold."""
        self._banned_nonces.add(target.nonce)
        self._banned_names.add(name_key(target.nickname))
        for conn in list(target.conns):
            self._refuse_removed(conn)
        self._drop(target)
        self._broadcast_room()

    def _drop(self, target: Member) -> None:
        """``target`` is no longer a member (removed, or gone past their grace period)."""
        del self.members[target.id]
        if self.host == target.id:
            connected = (m.id for m in self.members.values() if m.connected)
            people = (m.id for m in self.members.values() if m.bot is None)
            self.host = next(connected, next(people, None))

    def _keeps_place(self, member: Member) -> bool:
        """Whether ``member``, having left, keeps their place however long they are away: a
        seated player of a running match (they come back to their seat)."""
        return self.status == "playing" and member.seat is not None

    def _drop_gone_members(self, now: float) -> None:
        """Members who left lose their place after the grace period (issue 7, item 7)."""
        grace = self.policy.left_grace_seconds
        gone = [m for m in self.members.values() if m.left and not m.connected
                and not self._keeps_place(m) and now - m.left_at > grace]
        if not gone:
            return
        for member in gone:
            self._drop(member)
        self._broadcast_room()

    def _hand_host_over(self, now: float) -> None:
        """A host away for ``HOST_HANDOVER_SECONDS`` hands the room to a connected member."""
        host = self.members.get(self.host) if self.host is not None else None
        if host is not None and not host.connected and now - host.left_at > HOST_HANDOVER_SECONDS:
            successor = next((m for m in self.members.values() if m.connected), None)
            if successor is not None:
                self.host = successor.id
                self._broadcast_room()

    # --- durable rooms (app/realtime/durable/journal.py, app/realtime/durable/restore.py) ---------------------
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
