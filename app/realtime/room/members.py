"""The people in a room: members (players and spectators), their nicknames, and ``Client``, what
the room's core needs of a connection.

The core never holds a socket: a ``Client`` is any object with these attributes (the transport's
``Connection`` and the cluster's ``RelayConnection`` are two; the tests' plain ``Connection()``
another). Declared here, below the transport, so the core names it without importing the layer
above (docs/architecture.md, the arrows between the folders).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

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
