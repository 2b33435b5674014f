"""Host commands: start, rematch, options, computer players, removal, a new host.

A part of the room's core (``RoomCore``, app/realtime/room/core.py). Only the host may send
these (docs/protocol.md, "Host commands"); ``HostCommands`` checks each against the room's state
and either changes it (and the room frame goes out) or answers the sender with an ``error``.
"""

from __future__ import annotations

from typing import Any

from app.engine import EngineError
from app.realtime.room import protocol as p
from app.realtime.room.bots import bot_levels, bot_name, has_bots
from app.realtime.room.effects import Effect, Later, TakeoverCheck
from app.realtime.room.frames import Frames
from app.realtime.room.life import TAKEOVER_CHECK_SLACK, MatchLife
from app.realtime.room.members import Client, Member
from app.realtime.room.membership import MAX_MEMBERS, Membership
from app.realtime.room.state import RoomState


class HostCommands:
    """The host's commands in one room: ``state`` is the room; a command may send
    (``frames``), start a match or seat bots (``life``), remove a member (``membership``)."""

    def __init__(self, state: RoomState, frames: Frames, life: MatchLife,
                 membership: Membership, out: list[Effect]) -> None:
        self.state = state
        self.frames = frames
        self.life = life
        self.membership = membership
        self.out = out

    def on_command(self, conn: Client, member: Member, message: Any) -> None:
        if member.id != self.state.host:
            self.frames.error(conn, "not_host", "only the host can do that")
            return
        if isinstance(message, p.Start):
            self._host_start(conn)
        elif isinstance(message, p.Rematch):
            if self.state.status != "finished":
                self.frames.error(conn, "not_finished", "a rematch follows a finished match")
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
            target = self.state.members.get(message.member)
            if target is None or target.bot is not None:
                self.frames.error(conn, "bad_member", "no such member")
                return
            self.state.touch()
            self.state.host = message.member
            self.frames.broadcast_room()

    def _host_start(self, conn: Client) -> None:
        """Seat the players present, in the order they joined, and start a match."""
        if self.state.status == "playing":
            self.frames.error(conn, "playing", "a match is already running")
            return
        players = sorted((m for m in self.state.members.values() if m.player and not m.left),
                         key=lambda m: m.id)
        game = self.state.game
        if len(players) not in game.player_counts():
            self.frames.error(
                conn, "player_count",
                f"{game.title} needs {game.min_players} to {game.max_players} players",
            )
            return
        self.state.touch()  # the seats
        for m in self.state.members.values():
            if m.left:  # gone from the waiting room: not seated
                m.player, m.seat = False, None
        for seat, m in enumerate(players):
            m.seat = seat
        self.life.start_match(players=len(players))

    def _set_options(self, conn: Client, message: p.SetOptions) -> None:
        """The game's options change between matches; the room's own options at any time
        (docs/protocol.md, "Room options")."""
        if message.options is not None:
            if self.state.status == "playing":
                self.frames.error(conn, "playing", "options change between matches")
                return
            try:
                parsed = self.state.game.parse_options(message.options)
            except EngineError as exc:
                self.frames.error(conn, "bad_options", str(exc))
                return
            self.state.touch()
            self.state.options = parsed.model_dump(mode="json")
        if message.room is not None:
            self.state.touch()
            self.state.room_options = message.room.model_dump(mode="json")
            self.life.sync_bots(notify=False)
            self._schedule_takeover_checks()
        self.frames.broadcast_room()

    def _schedule_takeover_checks(self) -> None:
        """A new ``bot_takeover_seconds`` during a match: each seated player away now is
        looked at again when their time away reaches it (counted from when they left, not from
        the change; those already past it were taken over by ``_sync_bots``)."""
        grace = self.state.room_options["bot_takeover_seconds"]
        if grace <= 0 or self.state.status != "playing" or self.state.closed:
            return
        now = self.state.now.mono
        for m in self.state.members.values():
            if m.seat is None or m.bot is not None or not m.left or m.connected:
                continue
            due = m.left_at + grace - now
            if due > 0:
                self.out.append(Later(due + TAKEOVER_CHECK_SLACK, TakeoverCheck()))

    def _kick(self, conn: Client, member: Member, target_id: int) -> None:
        """Remove a member (a ban, ``Membership.remove``), or a computer player."""
        target = self.state.members.get(target_id)
        if target is None or target.id == member.id:
            self.frames.error(conn, "bad_member", "no such member to remove")
            return
        if target.bot is not None:
            self._remove_bot(conn, target.id)
            return
        self.membership.remove(target)
        self.life.sync_bots()  # a seat left empty mid-match: a computer player plays it out

    # --- computer players (docs/bots.md, "In a room") ----------------------------------------
    def _add_bot(self, conn: Client, difficulty: str) -> None:
        """The host seats a computer player while a seat is free, between matches. A seat held
        only by a player who left (within their grace) counts as free: the bot takes it, and
        that player, still a member, watches from then on, so the room never has more players
        than the game's most (docs/protocol.md, "Computer players")."""
        if not has_bots(self.state.game.id) or self.state.game.open_table:
            self.frames.error(conn, "no_bots", f"{self.state.game.title} has no computer players")
            return
        if difficulty not in bot_levels(self.state.game.id):
            self.frames.error(conn, "bad_level",
                              f"{self.state.game.title}'s computer players have no level {difficulty}")
            return
        if self.state.status == "playing":
            self.frames.error(conn, "playing", "computer players join between matches")
            return
        present = [m for m in self.state.members.values() if m.player and not m.left]
        if len(present) >= self.state.game.max_players:
            self.frames.error(conn, "seats_full", "every seat is taken")
            return
        # A bot is a member: a full room makes room as for a newcomer (docs/protocol.md,
        # "Members"), else it is full.
        if len(self.state.members) >= MAX_MEMBERS and not self.membership.make_room():
            self.frames.error(conn, "room_full", "this room is full")
            return
        players = [m for m in self.state.members.values() if m.player]
        if len(players) >= self.state.game.max_players:
            gone = min((m for m in players if m.left), key=lambda m: m.left_at)
            self.state.touch()
            gone.player, gone.seat = False, None
        taken = {m.nickname for m in self.state.members.values()}
        self.membership.add_bot_member(bot_name(taken), difficulty)
        self.frames.broadcast_room()

    def _remove_bot(self, conn: Client, member_id: int) -> None:
        target = self.state.members.get(member_id)
        if target is None or target.bot is None:
            self.frames.error(conn, "bad_member", "no such computer player")
            return
        if self.state.status == "playing":
            self.frames.error(conn, "playing", "computer players leave between matches")
            return
        self.membership.drop(target)
        self.frames.broadcast_room()
