"""Reading and writing finished matches. Keyword-only functions over a ``Database``.

Every input is checked before it reaches the database: an id outside the
``id`` column's range is simply not a match, and a game id that could not be one (a NUL, a
thousand characters) finds no matches; neither becomes a database error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import Integer, Text, case, cast, func, insert, null, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import defer, selectinload

from app.engine import Move, moves_json

from .database import Database, json_dumps
from .driver_sql import (
    DIALECTS,
    MATCH_RECORD_COLUMNS,
    PLAYER_COLUMNS,
    Statement,
    insert_statement,
    placeholder,
    time_of,
)
from .models import Match, MatchPlayer


@dataclass
class PlayerResult:
    seat: int
    nickname: str
    score: int
    rank: int
    winner: bool
    bot: str | None = None
    """A computer player's difficulty; None for a person (docs/bots.md, "In a room")."""


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
    players: list[PlayerResult]
    log: Sequence[Move] = field(default_factory=list)
    """Every move of the match in order, the actions as JSON (``Move.logged``): the room hands
    over its ``MoveLog`` (``MoveLog.snapshot``), whose moves are never decoded on the way to the
    database (``log_json``)."""
    ending: str = ""
    """What ended the match: a value of its game's ``Ending`` (``Outcome.ending``)."""
    details: dict[str, Any] = field(default_factory=dict)
    """The numbers the ending's sentence names (``Outcome.details``)."""
    summary: str = ""
    """Only in a record made before endings were named (an outbox entry written by an older
    release): the engine's English sentence, kept as it was (docs/decisions/0058)."""
    draws: list[dict[str, Any]] | None = None
    """Every chance step the match drew, in order (``MatchRun.draws``: docs/fairness.md);
    ``None`` only in a record written before they were recorded (an old outbox entry)."""
    events_digest: str | None = None
    """The SHA-256 of the match's events, move by move (``app.engine.chance.EventDigest``)."""

    def to_json(self) -> dict[str, Any]:
        """The record as plain JSON values."""
        data = self._fields()
        data["log"] = [m.to_json() for m in self.log]
        return data

    def encoded(self) -> bytes:
        """``to_json`` as JSON (what the outbox keeps on disk), the log's text spliced in as it
        is (``log_json``): the same bytes, no move rebuilt."""
        data = self._fields()
        data["log"] = self.log_json()
        return orjson.dumps(data)

    def log_json(self) -> orjson.Fragment:
        """The log as one JSON array (``moves_json``), ready for orjson: the ``log`` column and
        the outbox take it as it is."""
        return orjson.Fragment(moves_json(self.log))

    def _fields(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "log"}
        data["players"] = [asdict(p) for p in self.players]
        data["started_at"] = self.started_at.isoformat()
        data["ended_at"] = self.ended_at.isoformat()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchRecord:
        return cls(
            **{**data,
               "started_at": datetime.fromisoformat(data["started_at"]),
               "ended_at": datetime.fromisoformat(data["ended_at"]),
               "players": [PlayerResult(**p) for p in data["players"]],
               "log": [Move.from_json(m) for m in data["log"]]},
        )


MAX_MATCH_ID = 2**31 - 1
"""The largest id the ``matches.id`` column holds (a 32-bit integer on PostgreSQL)."""

GAME_ID = re.compile(r"[a-z][a-z0-9_]{0,31}")
"""What a game id looks like (``matches.game`` is at most 32 characters)."""


def valid_match_id(match_id: int) -> bool:
    return 1 <= match_id <= MAX_MATCH_ID


def valid_game_id(game: str) -> bool:
    return GAME_ID.fullmatch(game) is not None


def _id_of(connection: Any, seed_hash: str) -> int | None:
    found = connection.scalar(select(Match.id).where(Match.seed_hash == seed_hash))
    return None if found is None else int(found)


def save_match(db: Database, *, record: MatchRecord) -> int:
    """Store a finished match with its players and action log, once; returns its id.

    Idempotent: a match is known by its seed hash (unique, migration 0003), so writing the same
    record again (a retry after a lost answer, an outbox entry drained after a restart) returns
    the id of the match already stored and stores nothing. It runs for every finished match
    (through ``Database.store``: on SQLite the journal's writer thread), as the driver's own
    statements in one transaction (app/db/driver_sql.py): the match's row ``ON CONFLICT DO
    NOTHING RETURNING`` its id, then its players; 1.3-2 ms of CPU through SQLAlchemy Core.
    """
    dialect = db.engine.dialect.name
    if dialect in DIALECTS:
        return db.driver_transaction(lambda connection: _insert_match_driver(
            connection, dialect, record))
    try:  # pragma: no cover - the two databases the site runs on
        return _insert_match(db, record)
    except IntegrityError:  # pragma: no cover
        with db.engine.connect() as connection:  # a concurrent write of this match won
            found = _id_of(connection, record.seed_hash)
        if found is None:
            raise
        return found


def _insert_match_driver(connection: Any, dialect: str, record: MatchRecord) -> int:
    cursor = connection.cursor()
    try:
        sql, row, _ = _match_insert(dialect, record)
        cursor.execute(sql, row)
        inserted = cursor.fetchall()
        if not inserted:  # stored already: a retry, or a concurrent write of it won
            sql, row, _ = _match_id_query(dialect, record.seed_hash)
            cursor.execute(sql, row)
            return int(cursor.fetchone()[0])
        match_id = int(inserted[0][0])
        if record.players:
            sql, rows, many = _players_insert(dialect, match_id, record.players)
            if many:
                cursor.executemany(sql, rows)
            else:
                cursor.execute(sql, rows)
        return match_id
    finally:
        cursor.close()


def _match_insert(dialect: str, record: MatchRecord) -> Statement:
    """A finished match's row, returning its id; none (no row returned) when a match with its
    seed hash is stored already (a retry after a lost answer: ``_match_id_query``). The log is
    the room's move texts joined (``moves_json``), never decoded."""
    time = time_of(dialect)
    return insert_statement(dialect, "matches", MATCH_RECORD_COLUMNS, [(
        record.game, record.room_code, json_dumps(record.options), record.seed,
        record.seed_hash, time(record.started_at), time(record.ended_at), record.summary,
        record.ending or None, json_dumps(record.details) if record.ending else None,
        moves_json(record.log), None if record.draws is None else json_dumps(record.draws),
        record.events_digest)], " ON CONFLICT (seed_hash) DO NOTHING RETURNING id")


def _match_id_query(dialect: str, seed_hash: str) -> Statement:
    return f"SELECT id FROM matches WHERE seed_hash = {placeholder(dialect)}", (seed_hash,), False


def _players_insert(dialect: str, match_id: int, players: list[PlayerResult]) -> Statement:
    return insert_statement(dialect, "match_players", PLAYER_COLUMNS, [
        (match_id, p.seat, p.nickname, p.score, p.rank, p.winner, p.bot) for p in players])


def _insert_match(db: Database, record: MatchRecord) -> int:
    with db.engine.begin() as connection:
        found = _id_of(connection, record.seed_hash)
        if found is not None:
            return found
        result = connection.execute(
            insert(Match).values(
                game=record.game,
                room_code=record.room_code,
                options=record.options,
                seed=record.seed,
                seed_hash=record.seed_hash,
                started_at=record.started_at,
                ended_at=record.ended_at,
                summary=record.summary,
                ending=record.ending or None,
                details=record.details if record.ending else null(),  # SQL NULL, not JSON null
                log=record.log_json(),  # the JSON column's serializer is orjson
                draws=record.draws,
                events_digest=record.events_digest,
            )
        )
        inserted = result.inserted_primary_key
        assert inserted is not None
        (match_id,) = inserted
        if record.players:
            connection.execute(
                insert(MatchPlayer),
                [
                    {"match_id": match_id, "seat": p.seat, "nickname": p.nickname,
                     "score": p.score, "rank": p.rank, "winner": p.winner, "bot": p.bot}
                    for p in record.players
                ],
            )
    return int(match_id)


def _match_summary(match: Match) -> dict[str, Any]:
    """A stored match as every answer shows it. Never its room's code (``matches.room_code``
    stays on the server, for its operators): a private room is open to anyone who has it, and
    the room may still be open when its first match is listed (docs/protocol.md, "HTTP API")."""
    return {
        "id": match.id,
        "game": match.game,
        "started_at": match.started_at.isoformat(),
        "ended_at": match.ended_at.isoformat(),
        "ending": match.ending,
        "details": match.details or {},
        "summary": match.summary,
        "players": [
            {"seat": p.seat, "nickname": p.nickname, "score": p.score, "rank": p.rank,
             "winner": p.winner, "bot": p.bot}
            for p in match.players
        ],
    }


def list_matches(db: Database, *, limit: int = 50, game: str | None = None) -> list[dict[str, Any]]:
    """The most recent finished matches, newest first (none for a malformed game id)."""
    if game is not None and not valid_game_id(game):
        return []
    query = select(Match).options(selectinload(Match.players), defer(Match.log))
    if game:
        query = query.where(Match.game == game)
    query = query.order_by(Match.ended_at.desc(), Match.id.desc()).limit(limit)
    with db.session() as session:
        return [_match_summary(m) for m in session.scalars(query)]


def get_match(db: Database, *, match_id: int) -> dict[str, Any] | None:
    """One match with its options, revealed seed and whole action log; ``None`` if there is no
    such match (any id outside the column's range included)."""
    if not valid_match_id(match_id):
        return None
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
            draws=match.draws,
            events_digest=match.events_digest,
        )
        return detail


def get_match_text(db: Database, *, match_id: int) -> tuple[dict[str, Any], str] | None:
    """One match as ``get_match`` reads it but its log, and the log as the JSON text stored
    (never decoded here: the answers about the match are built from it elsewhere,
    app/api/finished/answers.py); ``None`` if there is no such match."""
    if not valid_match_id(match_id):
        return None
    query = (select(Match).where(Match.id == match_id)
             .options(selectinload(Match.players), defer(Match.log)))
    with db.session() as session:
        match = session.scalars(query).first()
        if match is None:
            return None
        detail = _match_summary(match)
        detail.update(options=match.options, seed=match.seed, seed_hash=match.seed_hash,
                      draws=match.draws, events_digest=match.events_digest)
        text = session.scalar(select(cast(Match.log, Text)).where(Match.id == match_id))
        return detail, str(text)


def leaderboard(
    db: Database, *, game: str, limit: int = 50, bots: bool = False
) -> list[dict[str, Any]]:
    """Nicknames ranked by wins in one game (then by fewer matches played); computer players
    only with ``bots`` (docs/bots.md, "In a room")."""
    if not valid_game_id(game):
        return []
    wins = func.sum(case((MatchPlayer.winner, 1), else_=0)).cast(Integer)
    query = (
        select(MatchPlayer.nickname, wins.label("wins"), func.count().label("played"))
        .join(Match, Match.id == MatchPlayer.match_id)
        .where(Match.game == game, *(() if bots else (MatchPlayer.bot.is_(None),)))
        .group_by(MatchPlayer.nickname)
        .order_by(wins.desc(), func.count().asc(), MatchPlayer.nickname.asc())
        .limit(limit)
    )
    with db.session() as session:
        return [
            {"rank": i + 1, "nickname": row.nickname, "wins": row.wins, "played": row.played}
            for i, row in enumerate(session.execute(query))
        ]
