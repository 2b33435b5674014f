"""A room's members: who joins as what, who keeps their place, and who is banned.

The part of the room actor (``app/realtime/room.py``) that decides membership, as a base class
of ``Room``: a join by token or by nickname, a full room making room, removal by the host as a
ban for the room (docs/protocol.md, "Members"), and members who left losing their place after the
grace period (issue 7, item 7). Like the rest of the room, it runs only inside the room's actor.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import protocol as p
from .connection import Connection
from .members import Member, unique_nickname
from .text import name_key
from .tokens import SeatClaim, SeatTokens

if TYPE_CHECKING:
    from app.engine import Game

    from .guard import SocketPolicy

MAX_MEMBERS = 40
CLOSE_REMOVED = 4000


class Membership:
    """Membership for ``Room`` (which sets these attributes up and sends the frames)."""

    code: str
    game: Game
    status: str
    members: dict[int, Member]
    host: int | None
    policy: SocketPolicy
    _tokens: SeatTokens
    _next_member: int
    _banned_nonces: set[str]
    _banned_names: set[str]

    _broadcast_room: Callable[[], None]

    def _member_for(self, conn: Connection, message: p.Join) -> Member | None:
        if message.token:
            claim = self._tokens.read(message.token)
            if claim is not None and claim.room == self.code and claim.nonce in self._banned_nonces:
                self._refuse_removed(conn)
                return None
            member = self.members.get(claim.member) if claim and claim.room == self.code else None
            if member is None or claim is None or member.nonce != claim.nonce:
                conn.error("bad_token", "this seat token is not valid in this room")
                if conn.on_bad_join is not None:
                    conn.on_bad_join()
                return None
            return member
        if not message.nickname:
            conn.error("nickname_required", "a nickname (or a seat token) is needed to join")
            return None
        if name_key(message.nickname) in self._banned_names:
            self._refuse_removed(conn)
            return None
        if len(self.members) >= MAX_MEMBERS and not self._make_room():
            conn.error("room_full", "this room is full")
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

    @staticmethod
    def _refuse_removed(conn: Connection) -> None:
        conn.close(CLOSE_REMOVED, ("removed", "the host removed you from this room"))

    def add_member(self, nickname: str) -> Member:
        """A new member: a player while seats remain, else a spectator."""
        name = unique_nickname(nickname, (m.nickname for m in self.members.values()))
        member = Member(self._next_member, name, secrets.token_hex(8), player=False)
        self._next_member += 1
        players = [m for m in self.members.values() if m.player]
        if self.game.open_table:
            used = {m.seat for m in players}
            free = [s for s in range(self.game.max_players) if s not in used]
            if free:
                member.player, member.seat = True, free[0]
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
                        bot=difficulty)
        self._next_member += 1
        self.members[member.id] = member
        return member

    def token_for(self, member: Member) -> str:
        """The seat token that brings ``member`` back to this room."""
        return self._tokens.issue(SeatClaim(self.code, member.id, member.nonce))

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
