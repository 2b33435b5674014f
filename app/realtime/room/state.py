"""The room as one explicit value: ``RoomState`` holds everything a room is, and ``SocketPolicy``
the limits and settings it runs under.

Every part of the room's core (app/realtime/room/core.py: frames, the match's life, membership,
host commands) reads and changes this one value; nothing of a room lives anywhere else. The
durable rooms convert it to and from the stored rows in one module
(app/realtime/durable/stored.py). A few questions several parts ask of it are answered here,
once (``all_connections``, ``keeps_place``, ``match_save_state``, ``people_connected``,
``seats_taken``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.engine.registry import AnyGame
from app.realtime.room.bots import BotSeats
from app.realtime.room.effects import Now
from app.realtime.room.match import MatchRun
from app.realtime.room.members import Client, Member
from app.realtime.room.members import Standings
from app.realtime.room.timers import TimerBoard

if TYPE_CHECKING:
    from app.config import Settings

HISTORY_LIMIT = 100


@dataclass(frozen=True)
class SocketPolicy:
    """What the server allows one client address and one room (docs/protocol.md, "Limits"), and
    the settings the room's core reads (table views, the grace of a member who left, bots'
    thinking times). The transport enforces the rest (app/realtime/transport/guard.py)."""

    frames_per_second: int = 40
    join_deadline_seconds: float = 5.0
    max_sockets_per_address: int = 30
    max_watchers_per_room: int = 8
    room_frames_per_second: int = 400
    room_probes_per_minute: int = 60
    left_grace_seconds: float = 20.0
    bot_think_scale: float = 1.0
    """Computer players' thinking times are multiplied by this (docs/bots.md, "In a room")."""
    silence_seconds: float = 0.0
    """A connection that answered pings and then none for this long is closed (0: never;
    docs/protocol.md, "Presence")."""
    unjoined_seconds: float = 60.0
    """A room that no connection has joined closes this long after it was made (``joined``;
    docs/decisions/0044)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> SocketPolicy:
        return cls(
            frames_per_second=settings.ws_messages_per_second,
            join_deadline_seconds=settings.join_deadline_seconds,
            max_sockets_per_address=settings.max_sockets_per_address,
            max_watchers_per_room=settings.max_watchers_per_room,
            room_frames_per_second=settings.room_frames_per_second,
            room_probes_per_minute=settings.room_probes_per_minute,
            left_grace_seconds=settings.left_grace_seconds,
            bot_think_scale=settings.bot_think_scale,
            silence_seconds=settings.presence_timeout_seconds,
            unjoined_seconds=settings.room_unjoined_seconds,
        )


@dataclass(eq=False)
class RoomState:
    """One room: its settings, members, options, the match, history and chat, and the
    bookkeeping its parts share."""

    code: str
    game: AnyGame
    public: bool
    now: Now
    """The time of the input being handled (of the room's creation before the first)."""
    bots: BotSeats
    """The computer players of the current match (app/realtime/room/bots.py)."""
    policy: SocketPolicy = field(default_factory=SocketPolicy)
    ping_ms: int = 5000
    idle_seconds: float = 600.0
    options: dict[str, Any] = field(default_factory=dict)
    """The game's options (docs/games/), as JSON."""
    room_options: dict[str, Any] = field(default_factory=dict)
    """The room's own options, the same for every game (docs/protocol.md, "Room options")."""
    status: str = "waiting"
    members: dict[int, Member] = field(default_factory=dict)
    host: int | None = None
    watchers: set[Client] = field(default_factory=set)
    match: MatchRun | None = None
    match_number: int = 0
    """1 for the room's first match, +1 on each start or rematch (0 before the first)."""
    match_id: int | None = None
    result: dict[str, Any] | None = None
    standings: Standings = field(default_factory=Standings)
    """The evening's wins and points per member over the room's finished matches."""
    history: deque[str] = field(default_factory=lambda: deque(maxlen=HISTORY_LIMIT))
    """The match's last events as JSON text: kept as text, the collector never walks them
    (docs/performance.md, "The collector freezes what it has walked"); a ``str``, as orjson's
    ``bytes`` would keep a 4 KB buffer each (app/engine/movelog.py)."""
    chat: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=HISTORY_LIMIT))
    created_at: float = 0.0
    last_activity: float = 0.0
    closed: bool = False
    joined: bool = False
    """A connection (a member's page or a table view) has joined the room. Until one has, the
    room closes ``policy.unjoined_seconds`` after it was made: a room made over HTTP that no
    page ever opened is nobody's (docs/decisions/0044). A restored room counts as joined."""
    in_lobby: bool = False
    """What the room's last ``Listed`` effect said: whether the lobby lists it (``listed``)."""
    paused: bool = False
    """The running match is paused: no person is connected (docs/protocol.md, "Computer
    players")."""
    journal_full: bool = False
    """Durable rooms: the actor sets it before each input while too many of the room's
    changes wait for the database; actions are refused (``saving``) meanwhile."""
    next_member: int = 1
    revision: int = 0
    """Moves on (``touch``) with every change of what the room's row and its members' rows hold
    (``SaveRoom``: host, public, status, match number, next member, options, bans, and each
    member's nickname, seat, player and bot), made by the part that makes it. The durable
    room's recorder writes the room again only when it moved: a move of the match, the common
    input, leaves it as it is (docs/architecture.md, "Durable rooms")."""
    banned_nonces: set[str] = field(default_factory=set)
    banned_names: set[str] = field(default_factory=set)
    """The keys (app/realtime/room/text.py, ``name_keys``) of the removed members' nicknames: a
    newcomer whose name shares one is refused."""
    timers: TimerBoard = field(default_factory=TimerBoard)
    save_state: tuple[MatchRun, str] | None = None
    """The writer's news about the finished match (``saving``, ``retrying``, ``saved``)."""
    dropped_moves: int = 0
    """A restored room: the moves of its match that the rules now refuse, dropped
    (app/realtime/durable/stored.py; the recorder writes the match again without them)."""
    sat: dict[int, str] = field(default_factory=dict)
    """An open table's match: every seat a member sat in while it ran, with the nickname
    (only those seats are recorded: docs/protocol.md, "HTTP API")."""
    unseen: set[int] = field(default_factory=set)
    """Seats of the current match whose person has not been connected while it was played
    (recorded as the stand-in's if that lasts to the end: ``MatchLife``)."""

    def touch(self) -> None:
        """What ``SaveRoom`` holds changed (or may have): see ``revision``."""
        self.revision += 1

    def all_connections(self) -> list[Client]:
        """Every connection of the room: the table views, then each member's."""
        conns = list(self.watchers)
        for m in self.members.values():
            conns.extend(m.conns)
        return conns

    def keeps_place(self, member: Member) -> bool:
        """Whether ``member``, having left, keeps their place however long they are away: a
        seated player of a running match (they come back to their seat)."""
        return self.status == "playing" and member.seat is not None

    def match_save_state(self) -> str | None:
        """``save_state`` of the room frame: the current match's, ``None`` before it ends."""
        saved = self.save_state
        return saved[1] if saved is not None and saved[0] is self.match else None

    def listed(self) -> bool:
        """Whether the lobby lists the room: public, waiting for players, and a person is in it
        now (a member's page connected; not a bot, not a table view). A room made and never
        opened, or left by everyone, is not shown to strangers (docs/decisions/0044)."""
        return self.public and self.status == "waiting" and not self.closed \
            and self.people_connected()

    def people_connected(self) -> bool:
        """Whether a person (a member who is not a bot) is connected; table views do not count."""
        return any(m.bot is None and m.connected for m in self.members.values())

    def seats_taken(self) -> dict[int, str]:
        """An open table's seats that members hold now, with their nicknames."""
        if not self.game.open_table:
            return {}
        return {m.seat: m.nickname for m in self.members.values() if m.seat is not None}

    def banned_lists(self) -> dict[str, list[str]]:
        """The room's bans as stored (app/realtime/durable/stored.py)."""
        return {"nonces": sorted(self.banned_nonces), "names": sorted(self.banned_names)}
