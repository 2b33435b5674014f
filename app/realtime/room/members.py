"""The people in a room: members (players and spectators), their nicknames, and ``Client``, what
the room's core needs of a connection.

The core never holds a socket: a ``Client`` is any object with these attributes (the transport's
``Connection`` and the cluster's ``RelayConnection`` are two; the tests' plain ``Connection()``
another). Declared here, below the transport, so the core names it without importing the layer
above (docs/architecture.md, the arrows between the folders).

And the evening's standings: wins and points of each member over the room's finished matches
(``Standings``, docs/decisions/0061-the-evenings-standings-journaled-with-the-room.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.realtime.room.protocol import NICKNAME_MAX
from app.realtime.room.text import name_keys


class Client(Protocol):
    """One client connection of a room, as the core and the actor use it."""

    member: Member | None
    watcher: bool
    rtt_ms: int
    heard: float | None
    """When the client last answered a ping of the server (None: it never has)."""
    on_bad_join: Callable[[], None] | None

    @property
    def joined(self) -> bool: ...

    @property
    def seat(self) -> int | None: ...

    def ping_sent(self, t: int, now: float) -> None: ...

    def answer_ping(self, t: float, now: float) -> bool: ...

    def send_text(self, data: bytes) -> None:
        """One encoded frame (JSON as UTF-8 bytes), through the room's frame gate."""

    def send_control(self, text: str) -> None: ...

    def close(self, code: int = 1000, error: tuple[str, str] | None = None) -> None: ...


@dataclass(eq=False)
class Member:
    """Someone who joined with a nickname: a player (with a seat during a match) or a spectator."""

    id: int
    nickname: str
    nonce: str
    player: bool
    seat: int | None = None
    conns: set[Client] = field(default_factory=set)
    left_at: float = field(default_factory=time.monotonic)
    """When the member's last connection closed (``time.monotonic``); a member who has not
    connected yet counts from their creation, so a room's creator gets the full host handover
    delay before a first connection."""
    left: bool = False
    """The member had connected and now has no connection (cleared when they come back)."""
    bot: str | None = None
    """A computer player's difficulty (easy, normal, hard); None for a person. A bot member has
    no connections, is never host and never leaves (docs/bots.md, "In a room")."""

    @property
    def connected(self) -> bool:
        return bool(self.conns)

    @property
    def rtt_ms(self) -> int:
        return min((c.rtt_ms for c in self.conns), default=0)


def unique_nickname(wanted: str, taken: Iterable[str]) -> str:
    """``wanted``, or with a number when someone in the room has it already ("Bob 2"), kept
    within the nickname length. A look-alike of a name in the room, or the same name in other
    case, is taken too: names are compared by their confusable skeletons
    (app/realtime/room/text.py, ``name_keys``)."""
    used = frozenset().union(*(name_keys(name) for name in taken))
    name, n = wanted, 2
    while name_keys(name) & used:
        suffix = f" {n}"
        name, n = wanted[: NICKNAME_MAX - len(suffix)] + suffix, n + 1
    return name


# --- the evening's standings ------------------------------------------------------------------
# The evening's standings: wins and points of each member of a room over its finished matches
# (docs/decisions/0061-the-evenings-standings-journaled-with-the-room.md).
#
# A player is the member in the seat (their member id: the same person after "Play again", after
# a rename, after their phone reconnects), not a nickname typed again. Each finished match counts
# once, by its number in the room (``through``): a restored room that finishes its match again
# (app/realtime/durable/stored.py) counts nothing twice. A match gives each seat a point for every
# seat it placed ahead of (a four-seat match: 3, 2, 1, 0 from first to last; tied seats alike), so
# the points of games whose scores differ in scale (tokens, mushroom points, cards left) add up.
# They are journaled with the room (``rooms.standings``) and so survive a restart.

@dataclass(slots=True)
class Standing:
    """One member's evening so far."""

    member: int
    nickname: str
    wins: int = 0
    points: int = 0
    matches: int = 0
    bot: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"member": self.member, "nickname": self.nickname, "wins": self.wins,
                "points": self.points, "matches": self.matches, "bot": self.bot}


@dataclass(frozen=True, slots=True)
class Placed:
    """A seat of a finished match as the standings count it."""

    member: int
    nickname: str
    rank: int
    winner: bool
    bot: str | None = None


@dataclass(slots=True)
class Standings:
    through: int = 0
    """The number of the last match counted (``RoomState.match_number``)."""
    rows: dict[int, Standing] = field(default_factory=dict)

    def count(self, match_number: int, placed: list[Placed]) -> bool:
        """Match ``match_number`` counted, unless it was already; True if it was counted now."""
        if match_number <= self.through:
            return False
        self.through = match_number
        ranks = [p.rank for p in placed]
        for p in placed:
            row = self.rows.get(p.member)
            if row is None:
                row = self.rows[p.member] = Standing(p.member, p.nickname)
            row.nickname, row.bot = p.nickname, p.bot
            row.matches += 1
            row.wins += int(p.winner)
            row.points += sum(1 for other in ranks if other > p.rank)
        return True

    def table(self, names: dict[int, str]) -> list[dict[str, Any]]:
        """The standings as the room frame carries them: most wins first, then most points,
        each with the member's nickname now (``names``) or as last counted."""
        rows = sorted(self.rows.values(), key=lambda r: (-r.wins, -r.points, r.member))
        return [{**r.to_json(), "nickname": names.get(r.member, r.nickname)} for r in rows]

    def to_json(self) -> dict[str, Any] | None:
        """As ``rooms.standings`` keeps it (``None`` before the first match counted)."""
        if not self.through:
            return None
        return {"through": self.through, "players": [r.to_json() for r in self.rows.values()]}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Standings:
        if not data:
            return cls()
        rows = {int(r["member"]): Standing(int(r["member"]), str(r["nickname"]), int(r["wins"]),
                                           int(r["points"]), int(r["matches"]), r.get("bot"))
                for r in data.get("players", ())}
        return cls(int(data.get("through", 0)), rows)
