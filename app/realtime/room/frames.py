"""Frame building for the room's core: the room frame, the state frames, events and errors.

A part of ``RoomCore`` (app/realtime/room/core.py): ``Frames`` turns the room's state
(``RoomState``, app/realtime/room/state.py) into the frames of docs/protocol.md ("room",
"state", "chat", "error", events) and hands them to the actor as effects (``Send``,
``SendEach``; app/realtime/room/effects.py) as encoded bytes; it never writes to a socket. A
state frame is one view per seat, the part every recipient shares encoded once per move and
spliced onto each seat's own part (``spliced``), and a seat a bot plays gets the very frame a
client of that seat gets, as a value (``to_bot``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

import orjson

from app.engine import Event
from app.realtime.room import protocol as p
from app.realtime.room.bots import has_bots
from app.realtime.room.effects import Effect, Send, SendEach
from app.realtime.room.members import Client, Member
from app.realtime.room.state import RoomState


class Frames:
    """The frames of one room: ``state`` is the room, ``out`` the effects of the input being
    handled."""

    def __init__(self, state: RoomState, out: list[Effect]) -> None:
        self.state = state
        self.out = out

    # --- sending -------------------------------------------------------------------------------
    def send(self, conn: Client, frame: dict[str, Any]) -> None:
        self.out.append(Send((conn,), orjson.dumps(frame)))

    def error(self, conn: Client, code: str, message: str, ref: int | None = None) -> None:
        self.send(conn, p.error_frame(code, message, ref))

    def broadcast(self, frame: dict[str, Any]) -> None:
        self.out.append(Send(self.state.all_connections(), orjson.dumps(frame)))

    # --- the room frame ------------------------------------------------------------------------
    def room_frame(self) -> dict[str, Any]:
        match = self.state.match
        takeovers = self.state.bots.takeover_seats()
        return {
            "type": "room",
            "code": self.state.code,
            "game": self.state.game.id,
            "status": self.state.status,
            "public": self.state.public,
            "host": self.state.host,
            "options": self.state.options,
            "members": [self._member_frame(m, takeovers) for m in self.state.members.values()],
            "room_options": self.state.room_options,
            "bots": has_bots(self.state.game.id) and not self.state.game.open_table,
            "watchers": len(self.state.watchers),
            "seed_hash": match.seed_hash if match else None,
            "result": self.state.result,
            "standings": self.state.standings.table(
                {m.id: m.nickname for m in self.state.members.values()}),
            "match_id": self.state.match_id,
            "save_state": self.state.match_save_state(),
            "match_number": self.state.match_number,
            "paused": self.state.paused,
        }

    def _member_frame(self, m: Member, takeovers: set[int]) -> dict[str, Any]:
        """A member as the room frame lists them: a bot with its difficulty (always connected,
        it needs no socket), a player whose seat a bot plays meanwhile with ``played_by_bot``."""
        frame: dict[str, Any] = {
            "id": m.id, "nickname": m.nickname, "seat": m.seat, "player": m.player,
            "connected": m.connected or m.bot is not None, "rtt_ms": m.rtt_ms}
        if m.left and not self.state.keeps_place(m):
            frame["left"] = True
        if m.bot is not None:
            frame["bot"] = m.bot
        elif m.seat is not None and m.seat in takeovers:
            frame["played_by_bot"] = True
        elif m.seat is not None and not m.connected and self.state.status == "playing":
            frame.update(self._away(m))
        return frame

    def _away(self, m: Member) -> dict[str, Any]:
        """A seated person away from a running match (docs/protocol.md, "Presence"): for how
        long, and how long until a bot stands in (``None``: no bot will)."""
        state = self.state
        away = max(0.0, state.now.mono - m.left_at)
        grace = state.room_options["bot_takeover_seconds"]
        stands_in = grace > 0 and has_bots(state.game.id) and not state.game.open_table
        bot_in = round(max(0.0, grace - away) * 1000) if stands_in else None
        return {"away_ms": round(away * 1000), "bot_in_ms": bot_in}

    def broadcast_room(self) -> None:
        self.broadcast(self.room_frame())

    def send_room(self, conn: Client) -> None:
        self.send(conn, self.room_frame())

    # --- state frames --------------------------------------------------------------------------
    def _state_common(self, events: list[dict[str, Any]], moved: bool = False) -> dict[str, Any]:
        """The part of a state frame that every recipient shares; after a move, which move it
        was (its number, seat and time: never the action, which may be a secret)."""
        match = self.state.match
        assert match is not None
        common = {"match": self.state.match_number, "version": match.version,
                  "active": self.state.game.active_seats(match.state),
                  "timers": self.state.timers.visible(self.state.now.mono), "events": events}
        if moved and match.log:
            last = match.log.entry(-1)  # its seat and time, the action not decoded
            common["move"] = {"seq": match.version, "seat": last.seat, "at_ms": last.at_ms}
        return common

    def _state_head(self, seat: int | None, view: dict[str, Any] | orjson.Fragment
                    ) -> dict[str, Any]:
        """A seat's own part of its state frame: its view and, for a seat, its ``legal``
        actions now (the table and spectators get the public view only)."""
        head: dict[str, Any] = {"type": "state", "seat": seat, "view": view}
        if seat is not None and self.state.match is not None:
            head["legal"] = self.state.game.legal_actions(self.state.match.state, seat)
        return head

    def broadcast_state(self, events: list[dict[str, Any]], moved: bool = False,
                         skip: Client | None = None) -> None:
        """Each recipient gets its own seat's view: one view per seat, the shared part encoded
        once (``spliced``). A seat a bot plays gets the same frame as a value (``to_bot``).
        ``skip``: a connection that gets its frame otherwise (a join)."""
        if self.state.match is None:
            return
        conns = self.state.all_connections()
        if skip is not None:
            conns = [c for c in conns if c is not skip]
        common = self._state_common(events, moved)
        tail = common_tail(common)
        bots = self.state.bots
        bot_seats = list(bots.seats)
        seats = {conn.seat for conn in conns} | set(bot_seats)
        parts = self.state.match.view_parts(seats)
        views: dict[int | None, Any]
        if parts is None:
            views = self.state.match.views(seats)
        else:  # the shared part encoded once; a bot reads its view as a value
            shared, own = parts
            opened = orjson.dumps(shared)[:-1]
            views = {seat: {**shared, **own[seat]} if seat in bots.seats
                     else joined_view(opened, own[seat]) for seat in seats}
        heads = {seat: self._state_head(seat, view) for seat, view in views.items()}
        data = {seat: spliced(head, tail) for seat, head in heads.items()}
        self.out.append(SendEach([(conn, data[conn.seat]) for conn in conns]))
        for seat in bot_seats:
            bots.deliver(seat, to_bot(heads[seat], common))

    def send_state(self, conn: Client) -> None:
        if self.state.match is not None:
            seat = conn.seat
            head = self._state_head(seat, self.state.match.view(seat))
            self.out.append(Send((conn,), spliced(head, common_tail(self._state_common([])))))

    def deliver_to_bots(self, seats: list[int]) -> None:
        """Seats a bot has just begun to play get their state frame now."""
        if self.state.match is None:
            return
        common = self._state_common([])
        views = self.state.match.views(set(seats))
        for seat in seats:
            self.state.bots.deliver(seat, to_bot(self._state_head(seat, views[seat]), common))

    # --- events --------------------------------------------------------------------------------
    def record(self, events: list[Event]) -> list[dict[str, Any]]:
        """Events as frames, kept in the room's history (``record_events``)."""
        return record_events(self.state.history, events)


def record_events(history: deque[str], events: Iterable[Event]) -> list[dict[str, Any]]:
    """Events as the frames carry them, the lasting ones kept in ``history`` as JSON text (their
    ``{seat:N}`` markers unexpanded: the page names the seats, docs/protocol.md "Events")."""
    frames = []
    for event in events:
        frame = event_frame(event)
        frames.append(frame)
        if not event.transient:
            history.append(p.encode(frame))
    return frames


def event_frame(event: Event) -> dict[str, Any]:
    """An engine's event as the ``events`` of a state frame carry it."""
    frame: dict[str, Any] = {"text": event.text, "seat": event.seat, "kind": event.kind}
    if event.data:
        frame["data"] = event.data
    if event.transient:
        frame["transient"] = True
    return frame


def common_tail(common: dict[str, Any]) -> bytes:
    """The shared part of a state frame as the end of every seat's frame: its members after a
    comma, and the closing brace (``spliced``)."""
    return b"," + orjson.dumps(common)[1:]


def joined_view(shared_open: bytes, own: dict[str, Any]) -> orjson.Fragment:
    """A seat's view as the frame carries it (``Game.view_parts``): the shared part's bytes,
    encoded once per move and given here without their closing brace, then the seat's own keys;
    the bytes that encoding ``{**shared, **own}`` gives (tests/conformance/test_views.py)."""
    if not own:
        return orjson.Fragment(shared_open + b"}")
    if shared_open == b"{":
        return orjson.Fragment(orjson.dumps(own))
    return orjson.Fragment(shared_open + b"," + orjson.dumps(own)[1:])


def spliced(head: dict[str, Any], tail: bytes) -> bytes:
    """A seat's state frame: its own part (``head``) encoded, the shared part's bytes
    (``common_tail``) appended. The same bytes as encoding ``{**head, **common}`` whole, key
    order included (orjson writes a dict's keys in order, with no spaces; the head's and the
    shared part's keys never meet): the shared part is encoded once per move, not once per
    seat (tests/golden compares every frame byte for byte)."""
    return orjson.dumps(head)[:-1] + tail


def to_bot(head: dict[str, Any], common: dict[str, Any]) -> dict[str, Any]:
    """A bot seat's state frame as a value: the frame its client would get, not decoded again
    from the bytes. It shares structure with the game's views, the other seats' frames and
    module constants (the cards' JSON), so a bot reads it and never changes it (the contract
    of app/engine/bots.py, which tests/bots/test_frames_unchanged.py holds every bot to)."""
    head.update(common)
    return head
