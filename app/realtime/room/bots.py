"""The room's computer players: the seats bots play, their frames and their pending moves.

Part of the room actor (docs/bots.md, "In a room"; docs/architecture.md, "Bots in the room"). A
seat is played by a bot when its member is a bot (added by the host) or when its player has been
disconnected during the match past the room's ``bot_takeover_seconds``. The room hands every
such seat the state frame a seated client would get (``deliver``), as a value that the bot
only reads (app/engine/bots.py); the bot ``observe``s it and ``decide``s, and its action comes
back to the room's queue after the thinking time (a ``Later`` effect the actor performs,
app/realtime/room/effects.py), so it reaches the actor like any player's frame and arrival
order at the actor stays the arbitration order.
Each frame replaces the seat's pending decision (a generation number tells a stale one that was
already queued). A bot's exception costs that decision only; it never reaches the room. No
clock decides anything here: ``thread_time`` only measures what deciding costs (the actor
thread's CPU time, so that other work on a busy machine does not count).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.bots import Bot, bot_levels, has_bots, make_bot
from app.realtime.room.effects import BotDecision, Cancel, Effect, Later
from app.realtime.room.text import name_keys

log = logging.getLogger(__name__)

__all__ = ["TAKEOVER_DIFFICULTY", "BotSeats", "bot_levels", "bot_name", "has_bots"]

BOT_NAMES = ("Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Claude",
             "Hedy", "John", "Karen", "Niklaus")
"""Bots are named "Bot Ada", "Bot Alan", … (then numbered as any nickname would be)."""

TAKEOVER_DIFFICULTY = "normal"
"""A disconnected player's seat is played by the normal bot (docs/protocol.md, "Computer
players")."""


def bot_name(taken: set[str]) -> str:
    """The first "Bot <name>" no member has (compared as nicknames are: by their confusable
    skeletons, without case); once all are taken, "Bot Ada", which the room numbers like any
    nickname ("Bot Ada 2")."""
    used = frozenset().union(*(name_keys(nickname) for nickname in taken))
    for name in BOT_NAMES:
        if not name_keys(f"Bot {name}") & used:
            return f"Bot {name}"
    return f"Bot {BOT_NAMES[0]}"


@dataclass(eq=False)
class BotSeat:
    """One seat a bot plays in the current match."""

    seat: int
    member: int
    """The member whose seat it is (a bot member, or the disconnected player)."""
    bot: Bot
    takeover: bool
    """True while the bot stands in for a disconnected player."""
    generation: int = 0
    pending: bool = False
    """A decision waits for its thinking time (under the key ``("bot", seat)``)."""


@dataclass
class DecideCost:
    """The CPU time ``observe`` + ``decide`` took in the actor (docs/bots.md, "Cost in the
    room")."""

    calls: int = 0
    seconds: float = 0.0
    worst: float = 0.0

    def add(self, spent: float) -> None:
        self.calls += 1
        self.seconds += spent
        self.worst = max(self.worst, spent)

    @property
    def mean_ms(self) -> float:
        return self.seconds * 1000 / self.calls if self.calls else 0.0


@dataclass
class BotSeats:
    """The bots of one room's current match; ``emit`` hands the room's core an effect."""

    game_id: str
    emit: Callable[[Effect], None]
    think_scale: float = 1.0
    seats: dict[int, BotSeat] = field(default_factory=dict)
    cost: DecideCost = field(default_factory=DecideCost)
    held: bool = False
    """The match is paused (no person connected): no bot observes or decides until
    ``release``; their pending decisions were dropped by ``hold``."""

    def clear(self) -> None:
        """No bot plays any more (the match ended, a new one starts, the room closes)."""
        for entry in self.seats.values():
            self._cancel(entry)
        self.seats.clear()
        self.held = False

    def hold(self) -> None:
        """The match pauses: every pending decision is dropped and none is made meanwhile
        (each bot keeps what it remembers; it decides again on the frame ``release`` brings)."""
        self.held = True
        for entry in self.seats.values():
            self._cancel(entry)

    def release(self) -> None:
        """The match resumes: the room hands every bot its seat's current frame again."""
        self.held = False

    def wanted(self, want: dict[int, tuple[int, str, bool]]) -> tuple[list[int], bool]:
        """Play exactly the seats of ``want`` (seat: (member, difficulty, takeover)); returns
        the seats newly played (to be given their frame now) and whether anything changed."""
        changed = False
        for seat in [s for s, e in self.seats.items()
                     if s not in want or want[s][0] != e.member]:
            self._cancel(self.seats.pop(seat))
            changed = True
        new: list[int] = []
        for seat, (member, difficulty, takeover) in want.items():
            if seat not in self.seats:
                bot = make_bot(self.game_id, seat, difficulty, secrets.randbits(64))
                self.seats[seat] = BotSeat(seat, member, bot, takeover)
                new.append(seat)
                changed = True
        return new, changed

    def takeover_seats(self) -> set[int]:
        return {s for s, e in self.seats.items() if e.takeover}

    def deliver(self, seat: int, frame: dict[str, Any]) -> None:
        """The seat's state frame: the bot observes it and decides; the decision (if any)
        replaces the pending one and is posted to the room after its thinking time."""
        entry = self.seats.get(seat)
        if entry is None or self.held:
            return
        self._cancel(entry)
        started = time.thread_time()
        try:
            entry.bot.observe(frame)
            decision = entry.bot.decide(frame)
        except Exception:  # noqa: BLE001 - a bot's bug costs this decision, never the room
            log.exception("%s bot of seat %d failed to decide", self.game_id, seat)
            decision = None
        self.cost.add(time.thread_time() - started)
        if decision is None:
            return
        delay = decision.delay_ms / 1000 * self.think_scale
        entry.pending = True
        self.emit(Later(delay, BotDecision(seat, entry.generation, decision.action),
                        ("bot", seat)))

    def due(self, seat: int, generation: int) -> BotSeat | None:
        """The seat's bot if the decision that arrived is still its pending one."""
        entry = self.seats.get(seat)
        if entry is None or entry.generation != generation:
            return None
        entry.pending = False
        return entry

    def _cancel(self, entry: BotSeat) -> None:
        entry.generation += 1
        if entry.pending:
            entry.pending = False
            self.emit(Cancel(("bot", entry.seat)))
