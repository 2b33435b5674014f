"""The evening's standings: wins and points of each member of a room over its finished matches
(docs/decisions/0061-the-evenings-standings-journaled-with-the-room.md).

A player is the member in the seat (their member id: the same person after "Play again", after
a rename, after their phone reconnects), not a nickname typed again. Each finished match counts
once, by its number in the room (``through``): a restored room that finishes its match again
(app/realtime/durable/stored.py) counts nothing twice. A match gives each seat a point for every
seat it placed ahead of (a four-seat match: 3, 2, 1, 0 from first to last; tied seats alike), so
the points of games whose scores differ in scale (tokens, mushroom points, cards left) add up.
They are journaled with the room (``rooms.standings``) and so survive a restart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
