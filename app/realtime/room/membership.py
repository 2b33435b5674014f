"""Joining and seats: who joins as what, who keeps their place, who is banned, who hosts.

A part of the room's core (``RoomCore``, app/realtime/room/core.py). ``Membership`` handles a
join by token or by nickname (or as a table view), a full room making room, a closed connection,
removal by the host as a ban for the room (docs/protocol.md, "Members"), members who left losing
their place after the grace period and the host handed over when they stay
away. Like the rest of the core it decides only: frames and closes are effects for the actor.
"""

from __future__ import annotations

import secrets

import orjson

from app.realtime.room import protocol as p
from app.realtime.room.effects import BadJoin, Close, Effect
from app.realtime.room.frames import Frames
from app.realtime.room.life import MatchLife
from app.realtime.room.members import Client, Member, unique_nickname
from app.realtime.room.protocol import CLOSE_POLICY, CLOSE_TAKEN_OVER
from app.realtime.room.state import RoomState
from app.realtime.room.text import name_keys
from app.realtime.room.tokens import SeatClaim, SeatTokens

MAX_MEMBERS = 40
CLOSE_REMOVED = 4000
HOST_HANDOVER_SECONDS = 30.0


class Membership:
    """The members of one room: ``state`` is the room, ``frames`` its frames, ``life`` its
    match (a player back ends a pause), ``tokens`` signs seat tokens."""

    def __init__(self, state: RoomState, frames: Frames, life: MatchLife, tokens: SeatTokens,
                 out: list[Effect]) -> None:
        self.state = state
        self.frames = frames
        self.life = life
        self.tokens = tokens
        self.out = out

    # --- joining -------------------------------------------------------------------------------
    def on_join(self, conn: Client, message: p.Join) -> None:
        if conn.joined:
            self.frames.error(conn, "already_joined", "this connection has joined already")
            return
        resumed = False
        if message.watch:
            if len(self.state.watchers) >= self.state.policy.max_watchers_per_room:
                self.out.append(Close(conn, CLOSE_POLICY, (
                    "watchers_full", "this room has as many table views as it allows")))
                return
            conn.watcher = True
            self.state.watchers.add(conn)
            self.frames.send(conn, {"type": "welcome", "room": self.state.code, "member": None,
                                    "seat": None,
                              "token": None, "watching": True, "ping_ms": self.state.ping_ms})
        else:
            member = self._member_for(conn, message)
            if member is None:
                return
            self._take_over(member)
            member.left = False
            resumed = self.life.resume_for(member)  # a person is back: a paused match plays on
            member.conns.add(conn)
            conn.member = member
            if self.state.status == "playing" and member.seat is not None:
                self.state.unseen.discard(member.seat)
            self.life.sync_bots(notify=False)  # a player back takes their seat over at once
            welcome = {"type": "welcome", "room": self.state.code, "member": member.id,
                       "seat": member.seat, "token": self.token_for(member), "watching": False,
                       "ping_ms": self.state.ping_ms}
            if not member.player:
                welcome["watching_reason"] = "full" if self.state.status == "waiting" \
                    or self.state.game.open_table else "started"
            self.frames.send(conn, welcome)
        self.state.joined = True  # the room is someone's: no close for want of a join
        self.frames.broadcast_room()
        self.frames.send_state(conn)
        if self.state.history:
            self.frames.send(conn, {"type": "history",
                              "events": [orjson.Fragment(e) for e in self.state.history],
                              "chat": list(self.state.chat)})
        elif self.state.chat:
            self.frames.send(conn, {"type": "history", "events": [], "chat": list(self.state.chat)})
        if resumed:
            self.life.play_on(skip=conn)

    def _take_over(self, member: Member) -> None:
        """One seat, one connection: a join with a seat token whose member is connected already
        (the same seat opened in a second tab) takes the seat over. The older connections stop
        being the member's at once (no move, no frame of the room reaches them from now on) and
        are closed with ``CLOSE_TAKEN_OVER``, which tells their page not to reconnect by itself
        (docs/protocol.md, "Close codes"; docs/decisions/0057)."""
        for old in list(member.conns):
            member.conns.discard(old)
            old.member = None
            self.out.append(Close(old, CLOSE_TAKEN_OVER, (
                "taken_over", "this seat is open in another tab")))

    def _member_for(self, conn: Client, message: p.Join) -> Member | None:
        if message.token:
            claim = self.tokens.read(message.token)
            ours = claim is not None and claim.room == self.state.code
            if claim is not None and ours and claim.nonce in self.state.banned_nonces:
                self._refuse_removed(conn)
                return None
            member = self.state.members.get(claim.member) if claim is not None and ours else None
            if member is None or claim is None or member.nonce != claim.nonce:
                self.frames.error(conn, "bad_token", "this seat token is not valid in this room")
                self.out.append(BadJoin(conn))
                return None
            return member
        if not message.nickname:
            self.frames.error(conn, "nickname_required",
                              "a nickname (or a seat token) is needed to join")
            return None
        if name_keys(message.nickname) & self.state.banned_names:
            self._refuse_removed(conn)
            return None
        if len(self.state.members) >= MAX_MEMBERS and not self.make_room():
            self.frames.error(conn, "room_full", "this room is full")
            return None
        return self.add_member(message.nickname)

    def make_room(self) -> bool:
        """A full room drops the member who left longest ago (within their grace period) to
        let a newcomer in; False when no one has left."""
        gone = [m for m in self.state.members.values()
                if m.left and not m.connected and not self.state.keeps_place(m)]
        if not gone:
            return False
        self.drop(min(gone, key=lambda m: m.left_at))
        return True

    def _refuse_removed(self, conn: Client) -> None:
        self.out.append(Close(conn, CLOSE_REMOVED,
                              ("removed", "the host removed you from this room")))

    def add_member(self, nickname: str) -> Member:
        """A new member: a player while seats remain, else a spectator. The time of the input
        (or of the room's creation) starts their host handover delay before a first
        connection."""
        name = unique_nickname(nickname, (m.nickname for m in self.state.members.values()))
        member = Member(self.state.next_member, name, secrets.token_hex(8), player=False,
                        left_at=self.state.now.mono)
        self.state.touch()
        self.state.next_member += 1
        players = [m for m in self.state.members.values() if m.player]
        if self.state.game.open_table:
            used = {m.seat for m in players}
            free = [s for s in range(self.state.game.max_players) if s not in used]
            if free:
                member.player, member.seat = True, free[0]
                self.state.sat.setdefault(free[0], name)  # recorded with the running counter
        elif self.state.status == "waiting" and len(players) < self.state.game.max_players:
            member.player = True
        self.state.members[member.id] = member
        if self.state.host is None:
            self.state.host = member.id
        return member

    def add_bot_member(self, name: str, difficulty: str) -> Member:
        """A computer player with a free seat (docs/bots.md, "In a room"): a player like any
        other, but with no connections and no token; never the host, never "left"."""
        name = unique_nickname(name, (m.nickname for m in self.state.members.values()))
        member = Member(self.state.next_member, name, secrets.token_hex(8), player=True,
                        left_at=self.state.now.mono, bot=difficulty)
        self.state.touch()
        self.state.next_member += 1
        self.state.members[member.id] = member
        return member

    def token_for(self, member: Member) -> str:
        """The seat token that brings ``member`` back to this room."""
        return self.tokens.issue(SeatClaim(self.state.code, member.id, member.nonce))

    # --- leaving -------------------------------------------------------------------------------
    def on_closed(self, conn: Client) -> None:
        """A connection ended (its socket closed, or the server gave up on it): told once or
        twice, it counts once."""
        member = conn.member
        if conn in self.state.watchers:
            self.state.watchers.discard(conn)
            self.frames.broadcast_room()  # the room frame counts the table views
        elif member is not None and conn in member.conns:
            member.conns.discard(conn)
            if not member.conns:
                member.left_at = self.state.now.mono
                member.left = True
                if member.seat is not None:
                    self.life.schedule_takeover_check()
            paused = self.life.pause_if_nobody()  # the last person gone: the match pauses
            self.frames.broadcast_room()
            if paused:
                self.frames.broadcast_state([])  # what still watches sees the timers stopped

    def remove(self, target: Member) -> None:
        """The host removes a member: a ban for this room (docs/protocol.md, "Removal"). Their
        connections close with 4000, their seat token is refused from now on, and so is their
        nickname (compared as names are); without accounts that is all a ban can hold."""
        self.state.touch()
        self.state.banned_nonces.add(target.nonce)
        self.state.banned_names |= name_keys(target.nickname)
        for conn in list(target.conns):
            self._refuse_removed(conn)
        self.drop(target)
        self.frames.broadcast_room()

    def drop(self, target: Member) -> None:
        """``target`` is no longer a member (removed, or gone past their grace period)."""
        self.state.touch()
        del self.state.members[target.id]
        if self.state.host == target.id:
            connected = (m.id for m in self.state.members.values() if m.connected)
            people = (m.id for m in self.state.members.values() if m.bot is None)
            self.state.host = next(connected, next(people, None))

    def drop_gone_members(self, now: float) -> None:
        """Members who left lose their place after the grace period."""
        grace = self.state.policy.left_grace_seconds
        gone = [m for m in self.state.members.values() if m.left and not m.connected
                and not self.state.keeps_place(m) and now - m.left_at > grace]
        if not gone:
            return
        for member in gone:
            self.drop(member)
        self.frames.broadcast_room()

    def hand_host_over(self, now: float) -> None:
        """A host away for ``HOST_HANDOVER_SECONDS`` hands the room to a connected member."""
        host = self.state.members.get(self.state.host) if self.state.host is not None else None
        if host is not None and not host.connected and now - host.left_at > HOST_HANDOVER_SECONDS:
            successor = next((m for m in self.state.members.values() if m.connected), None)
            if successor is not None:
                self.state.touch()
                self.state.host = successor.id
                self.frames.broadcast_room()
