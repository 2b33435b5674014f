"""Host commands: start, rematch, options, computer players, removal, a new host.

A part of the room's core (``RoomCore``, app/realtime/room/core.py), as a base class. Only the host
may send these (docs/protocol.md, "Host commands"); each is checked against the room's state
and either changes it (and the room frame goes out) or answers the sender with an ``error``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.engine import EngineError, Game

from app.realtime.room import protocol as p
from app.realtime.room.bots import bot_name, has_bots
from app.realtime.room.effects import Effect, Later, Now
from app.realtime.room.life import TAKEOVER_CHECK_SLACK
from app.realtime.room.membership import MAX_MEMBERS

if TYPE_CHECKING:
    from app.realtime.transport.connection import Connection
    from app.realtime.room.members import Member


class HostCommands:
    """The host's commands for ``RoomCore``."""

    game: Game
    status: str
    options: dict[str, Any]
    room_options: dict[str, Any]
    members: dict[int, Member]
    host: int | None
    closed: bool
    out: list[Effect]
    now: Now

    if TYPE_CHECKING:
        def _error(self, conn: Connection, code: str, message: str,
                   ref: int | None = None) -> None: ...
        def _broadcast_room(self) -> None: ...
        def _remove(self, target: Member) -> None: ...
        def _drop(self, target: Member) -> None: ...
        def _make_room(self) -> bool: ...
        def add_bot_member(self, name: str, difficulty: str) -> Member: ...
        def _start_match(self, *, players: int) -> None: ...
        def _sync_bots(self, *, notify: bool = True) -> None: ...

    def _on_host_command(self, conn: Connection, member: Member, message: Any) -> None:
        if member.id != self.host:
            self._error(conn, "not_host", "only the host can do that")
            return
        if isinstance(message, p.Start):
            self._host_start(conn)
        elif isinstance(message, p.Rematch):
            if self.status != "finished":
                self._error(conn, "not_finished", "a rematch follows a finished match")
                return
            self._host_start(conn)
        elif isinstance(message, p.SetOptions):
            self._set_options(conn, message)
        elif isinstance(message, p.AddBot):
            self._add_bot(conn, message.difficulty)
        elif isinstance(message, p.RemoveBot):
            self._remove_bot(conn, message.member)
        elif isinstance(message, p.Kick):
            self._kick(conn, member, message.member)
        elif isinstance(message, p.MakeHost):
            target = self.members.get(message.member)
            if target is None or target.bot is not None:
                self._error(conn, "bad_member", "no such member")
                return
            self.host = message.member
            self._broadcast_room()

    def _host_start(self, conn: Connection) -> None:
        """Seat the players present, in the order they joined, and start a match."""
        if self.status == "playing":
            self._error(conn, "playing", "a match is already running")
            return
        players = sorted((m for m in self.members.values() if m.player and not m.left),
                         key=lambda m: m.id)
        if len(players) not in self.game.player_counts():
            self._error(
                conn, "player_count",
                f"{self.game.title} needs {self.game.min_players} to {self.game.max_players} players",
            )
            return
        for m in self.members.values():
            if m.left:  # gone from the waiting room: not seated (issue 7, item 7)
                m.player, m.seat = False, None
        for seat, m in enumerate(players):
            m.seat = seat
        self._start_match(players=len(players))

    def _set_options(self, conn: Connection, message: p.SetOptions) -> None:
        """The game's options change between matches; the room's own options at any time
        (docs/protocol.md, "Room options")."""
        if message.options is not None:
            if self.status == "playing":
                self._error(conn, "playing", "options change between matches")
                return
            try:
                parsed = self.game.parse_options(message.options)
            except EngineError as exc:
                self._error(conn, "bad_options", str(exc))
                return
            self.options = parsed.model_dump(mode="json")
        if message.room is not None:
            self.room_options = message.room.model_dump(mode="json")
            self._sync_bots(notify=False)
            self._schedule_takeover_checks()
        self._broadcast_room()

    def _schedule_takeover_checks(self) -> None:
        """A new ``bot_takeover_seconds`` during a match: each seated player away now is
        looked at again when their time away reaches it (counted from when they left, not from
        the change; those already past it were taken over by ``_sync_bots``)."""
        grace = self.room_options["bot_takeover_seconds"]
        if grace <= 0 or self.status != "playing" or self.closed:
            return
        now = self.now.mono
        for m in self.members.values():
            if m.seat is None or m.bot is not None or not m.left or m.connected:
                continue
            due = m.left_at + grace - now
            if due > 0:
                self.out.append(Later(due + TAKEOVER_CHECK_SLACK, ("bots",)))

    def _kick(self, conn: Connection, member: Member, target_id: int) -> None:
        """Remove a member (a ban, ``Membership._remove``), or a computer player."""
        target = self.members.get(target_id)
        if target is None or target.id == member.id:
            self._error(conn, "bad_member", "no such member to remove")
            return
        if target.bot is not None:
            self._remove_bot(conn, target.id)
            return
        self._remove(target)
        self._sync_bots()  # a seat left empty mid-match: a computer player plays it out

    # --- computer players (docs/bots.md, "In a room") ----------------------------------------
    def _add_bot(self, conn: Connection, difficulty: str) -> None:
        """The host seats a computer player while a seat is free, between matches. A seat held
        only by a player who left (within their grace) counts as free: the bot takes it, and
        that player, still a member, watches from then on, so the room never has more players
        than the game's most (docs/protocol.md, "Computer players"; issue 25, item 2)."""
        if not has_bots(self.game.id) or self.game.open_table:
            self._error(conn, "no_bots", f"{self.game.title} has no computer players")
            return
        if self.status == "playing":
            self._error(conn, "playing", "computer players join between matches")
            return
        present = [m for m in self.members.values() if m.player and not m.left]
        if len(present) >= self.game.max_players:
            self._error(conn, "seats_full", "every seat is taken")
            return
        # A bot is a member: a full room makes room as for a newcomer (docs/protocol.md,
        # "Members"), else it is full.
        if len(self.members) >= MAX_MEMBERS and not self._make_room():
            self._error(conn, "room_full", "this room is full")
            return
        players = [m for m in self.members.values() if m.player]
        if len(players) >= self.game.max_players:
            gone = min((m for m in players if m.left), key=lambda m: m.left_at)
            gone.player, gone.seat = False, None
        self.add_bot_member(bot_name({m.nickname for m in self.members.values()}), difficulty)
        self._broadcast_room()

    def _remove_bot(self, conn: Connection, member_id: int) -> None:
        target = self.members.get(member_id)
        if target is None or target.bot is None:
            self._error(conn, "bad_member", "no such computer player")
            return
        if self.status == "playing":
            self._error(conn, "playing", "computer players leave between matches")
            return
        self._drop(target)
        self._broadcast_room()
