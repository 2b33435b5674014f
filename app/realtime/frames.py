"""Frame building for the room's core: the room frame, the state frames, events and errors.

A part of ``RoomCore`` (app/realtime/core.py), as a base class: it turns the room's state into
the frames of docs/protocol.md ("room", "state", "chat", "error", events) and hands them to the
actor as effects (``Send``, ``SendEach``; app/realtime/effects.py); it never writes to a socket.
A state frame is built once per seat (one view, one encoding), and a seat a bot plays gets the
very frame a client of that seat gets (decoded afresh).
"""

from __future__ import annotations

import re
from collections import deque
from typing import TYPE_CHECKING, Any

import orjson

from app.engine import Event, Game

from . import protocol as p
from .bots import BotSeats, has_bots
from .delta import StatePatches
from .effects import Effect, Now, Send, SendEach

if TYPE_CHECKING:
    from .connection import Connection
    from .match import MatchRun
    from .members import Member
    from .timers import TimerBoard

SEAT_MARKER = re.compile(r"\{seat:(\d+)\}")
"""How an engine's event text names a seat (docs/protocol.md, "Events")."""


class Frames:
    """The frames of one room (``RoomCore`` sets these attributes up)."""

    code: str
    game: Game
    public: bool
    status: str
    options: dict[str, Any]
    room_options: dict[str, Any]
    members: dict[int, Member]
    host: int | None
    watchers: set[Connection]
    match: MatchRun | None
    match_number: int
    match_id: int | None
    result: dict[str, Any] | None
    history: deque[str]
    out: list[Effect]
    now: Now
    paused: bool
    _timers: TimerBoard
    _bots: BotSeats
    _patches: StatePatches

    if TYPE_CHECKING:
        def _keeps_place(self, member: Member) -> bool: ...  # Membership
        def _match_save_state(self) -> str | None: ...  # MatchLife

    # --- sending -------------------------------------------------------------------------------
    def _send(self, conn: Connection, frame: dict[str, Any]) -> None:
        self.out.append(Send((conn,), p.encode(frame)))

    def _error(self, conn: Connection, code: str, message: str, ref: int | None = None) -> None:
        self._send(conn, p.error_frame(code, message, ref))

    def _broadcast(self, frame: dict[str, Any]) -> None:
        self.out.append(Send(self._all_connections(), p.encode(frame)))

    def _all_connections(self) -> list[Connection]:
        conns = list(self.watchers)
        for m in self.members.values():
            conns.extend(m.conns)
        return conns

    # --- the room frame ------------------------------------------------------------------------
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
            "paused": self.paused,
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
        elif m.seat is not None and not m.connected and self.status == "playing":
            frame.update(self._away(m))
        return frame

    def _away(self, m: Member) -> dict[str, Any]:
        """A seated person away from a running match (docs/protocol.md, "Presence"): for how
        long, and how long until a bot stands in (``None``: no bot will)."""
        away = max(0.0, self.now.mono - m.left_at)
        grace = self.room_options["bot_takeover_seconds"]
        stands_in = grace > 0 and has_bots(self.game.id) and not self.game.open_table
        bot_in = round(max(0.0, grace - away) * 1000) if stands_in else None
        return {"away_ms": round(away * 1000), "bot_in_ms": bot_in}

    def _broadcast_room(self) -> None:
        self._broadcast(self.room_frame())

    def _send_room(self, conn: Connection) -> None:
        self._send(conn, self.room_frame())

    # --- state frames --------------------------------------------------------------------------
    def _state_common(self, events: list[dict[str, Any]], moved: bool = False) -> dict[str, Any]:
        """The part of a state frame that every recipient shares; after a move, which move it
        was (its number, seat and time: never the action, which may be a secret)."""
        match = self.match
        assert match is not None
        common = {"match": self.match_number, "version": match.version,
                  "active": self.game.active_seats(match.state),
                  "timers": self._timers.visible(self.now.mono), "events": events}
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

    def _broadcast_state(self, events: list[dict[str, Any]], moved: bool = False,
                         skip: Connection | None = None) -> None:
        """Each recipient gets its own seat's view; one view and one encoding per seat, and a
        patch against the frame it holds for a client that asked for deltas (delta.py). A seat
        a bot plays gets the very frame a client of that seat gets (decoded afresh). ``skip``:
        a connection that gets its frame otherwise (a join)."""
        if self.match is None:
            return
        conns = self._all_connections()
        if skip is not None:
            conns = [c for c in conns if c is not skip]
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

        self.out.append(SendEach(self._patches.texts(conns, frames, full_text)))
        for seat in bot_seats:
            self._bots.deliver(seat, orjson.loads(full_text(seat)))

    def _send_state(self, conn: Connection) -> None:
        if self.match is not None:
            seat = conn.seat
            frame = self._state_dict(self._state_common([]), seat, self.match.view(seat))
            self.out.append(Send((conn,), p.encode(frame)))
            self._patches.sent_full(conn, frame)

    def _deliver_to_bots(self, seats: list[int]) -> None:
        """Seats a bot has just begun to play get their state frame now."""
        if self.match is None:
            return
        common = self._state_common([])
        views = self.match.views(set(seats))
        for seat in seats:
            self._bots.deliver(seat, orjson.loads(self._state_frame(common, seat, views[seat])))

    # --- events --------------------------------------------------------------------------------
    def _record(self, events: list[Event]) -> list[dict[str, Any]]:
        """Events as frames, kept in the room's history (their ``{seat:N}`` markers unexpanded:
        the page names the seats, docs/protocol.md "Events")."""
        frames = [event_frame(e) for e in events]
        self.history.extend(p.encode(f) for f, e in zip(frames, events, strict=True)
                            if not e.transient)
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


def event_frame(event: Event) -> dict[str, Any]:
    """An engine's event as the ``events`` of a state frame carry it."""
    frame: dict[str, Any] = {"text": event.text, "seat": event.seat, "kind": event.kind}
    if event.data:
        frame["data"] = event.data
    if event.transient:
        frame["transient"] = True
    return frame
