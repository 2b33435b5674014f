"""Reading and writing finished matches. Keyword-only functions over a ``Database``."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, case, func, insert, select
from sqlalchemy.orm import defer, selectinload

from .database import Database
from .models import Match, MatchPlayer


@dataclass
class PlayerResult:
    seat: int
    nickname: str
    score: int
    rank: int
    winner: bool


@dataclass
class LoggedMove:
    seat: int | None
    action: dict[str, Any]
    at_ms: int
    rtt_ms: int


@dataclass
class MatchRecord:
    """Everything a room hands over when a match ends."""

    game: str
    room_code: str
    options: dict[str, Any]
    seed: str
    seed_hash: str
    started_at: datetime
    ended_at: datetime
    summary: str
    players: list[PlayerResult]
    log: list[LoggedMove] = field(default_factory=list)


def save_match(db: Database, *, record: MatchRecord) -> int:
    """Store a finished match with its players and action log; returns its id.

    Two Core inserts in one transaction (no ORM unit of work): this runs for every finished
    match, in a worker thread that shares the interpreter with the rooms.
    """
    with db.engine.begin() as connection:
        result = connection.execute(
            insert(Match.__table__).values(
                game=record.game,
                room_code=record.room_code,
                options=record.options,
                seed=record.seed,
                seed_hash=record.seed_hash,
                started_at=record.started_at,
                ended_at=record.ended_at,
                summary=record.summary,
                log=[
                    {"seat": m.seat, "action": m.action, "at_ms": m.at_ms, "rtt_ms": m.rtt_ms}
                    for m in record.log
                ],
            )
        )
        (match_id,) = result.inserted_primary_key
        if record.players:
            connection.execute(
                insert(MatchPlayer.__table__),
                [
                    {"match_id": match_id, "seat": p.seat, "nickname": p.nickname,
                     "score": p.score, "rank": p.rank, "winner": p.winner}
                    for p in record.players
                ],
            )
    return int(match_id)


def _match_summary(match: Match) -> dict[str, Any]:
    return {
        "id": match.id,
        "game": match.game,
        "room_code": match.room_code,
        "started_at": match.started_at.isoformat(),
        "ended_at": match.ended_at.isoformat(),
        "summary": match.summary,
        "players": [
            {"seat": p.seat, "nickname": p.nickname, "score": p.score, "rank": p.rank,
             "winner": p.winner}
            for p in match.players
        ],
    }


def list_matches(db: Database, *, limit: int = 50, game: str | None = None) -> list[dict[str, Any]]:
    """The most recent finished matches, newest first."""
    query = select(Match).options(selectinload(Match.players), defer(Match.log))
    if game:
        query = query.where(Match.game == game)
    query = query.order_by(Match.ended_at.desc(), Match.id.desc()).limit(limit)
    with db.session() as session:
        return [_match_summary(m) for m in session.scalars(query)]


def get_match(db: Database, *, match_id: int) -> dict[str, Any] | None:
    """One match with its options, revealed seed and whole action log."""
    query = select(Match).where(Match.id == match_id).options(selectinload(Match.players))
    with db.session() as session:
        match = session.scalars(query).first()
        if match is None:
            return None
        detail = _match_summary(match)
        detail.update(
            options=match.options,
            seed=match.seed,
            seed_hash=match.seed_hash,
            actions=[{"index": i, **move} for i, move in enumerate(match.log)],
        )
        return detail


def leaderboard(db: Database, *, game: str, limit: int = 50) -> list[dict[str, Any]]:
    """Nicknames ranked by wins in one game (then by fewer matches played)."""
    wins = func.sum(case((MatchPlayer.winner, 1), else_=0)).cast(Integer)
    query = (
        select(MatchPlayer.nickname, wins.label("wins"), func.count().label("played"))
        .join(Match, Match.id == MatchPlayer.match_id)
        .where(Match.game == game)
        .group_by(MatchPlayer.nickname)
        .order_by(wins.desc(), func.count().asc(), MatchPlayer.nickname.asc())
        .limit(limit)
    )
    with db.session() as session:
        return [
            {"rank": i + 1, "nickname": row.nickname, "wins": row.wins, "played": row.played}
            for i, row in enumerate(session.execute(query))
        ]
