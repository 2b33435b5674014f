"""A finished match written as the driver's own statements (``save_match``, app/db/driver_sql.py)
stores exactly the rows SQLAlchemy Core stored for it (``_insert_match``, kept for any other
database), on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import text

from app.db.database import Database, migrate
from app.db.matches import MatchRecord, PlayerResult, _insert_match, get_match, save_match
from app.engine import Move, MoveLog

T0 = datetime(2026, 12, 4, 8, 0, 0, 654_321, tzinfo=UTC)


def _record(seed_hash: str, **fields: object) -> MatchRecord:
    values: dict[str, object] = dict(
        game="panik_pilze", room_code="ABCD", options={"rounds": 2, "nested": {"a": None}},
        seed="0f" * 32, seed_hash=seed_hash, started_at=T0, ended_at=T0 + timedelta(minutes=9),
        ending="pile_empty", details={"n": 15, "note": "Grüße ☃", "none": None},
        players=[PlayerResult(0, "Zoë", 12, 2, False), PlayerResult(1, "Bob \"B\"", 15, 1, True),
                 PlayerResult(2, "Bot", 3, 3, False, "hard")],
        log=MoveLog([Move(0, {"type": "take", "card": 7}, 1_250, 40),
                     Move(None, {"type": "timeout"}, 30_000, 0),
                     Move(2, {"type": "say", "text": "Grüße"}, 31_000, 12)]),
        draws=[{"name": "mushroom_pile", "op": "shuffle", "args": [3], "result": [2, 0, 1]},
               {"name": "start_seat", "op": "randbelow", "args": [3], "result": 1}],
        events_digest="ab" * 32)
    values.update(fields)
    return MatchRecord(**values)  # type: ignore[arg-type]


def _rows(db: Database, match_id: int) -> tuple[tuple[object, ...], list[tuple[object, ...]]]:
    """The match's row and its players' rows, their ids and seed hash left out."""
    with db.engine.connect() as connection:
        match = connection.execute(text("SELECT * FROM matches WHERE id = :id"),
                                   {"id": match_id}).one()
        players = connection.execute(text(
            "SELECT * FROM match_players WHERE match_id = :id ORDER BY seat"), {"id": match_id})
        return (tuple(v for k, v in match._mapping.items() if k not in ("id", "seed_hash")),
                [tuple(v for k, v in p._mapping.items() if k not in ("id", "match_id"))
                 for p in players])


def test_the_driver_statements_store_the_rows_core_stores(db):
    core = _insert_match(db, _record("aa" * 32))
    driver = save_match(db, record=_record("bb" * 32))
    assert driver != core
    assert _rows(db, driver) == _rows(db, core)


def test_a_match_with_no_players_and_no_moves(db):
    """And no chance steps or events recorded (an outbox entry written before they were)."""
    core = _insert_match(db, _record("cc" * 32, players=[], log=[], draws=None,
                                     events_digest=None))
    driver = save_match(db, record=_record("dd" * 32, players=[], log=[], draws=None,
                                           events_digest=None))
    assert _rows(db, driver) == _rows(db, core)
    assert get_match(db, match_id=driver)["players"] == []


def test_a_match_written_by_the_driver_reads_back_as_it_was_written(db):
    berlin = timezone(timedelta(hours=1))
    kept = _record("ee" * 32, started_at=T0.astimezone(berlin))
    match = get_match(db, match_id=save_match(db, record=kept))
    assert match is not None
    started = datetime.fromisoformat(match["started_at"])
    assert (started if started.tzinfo else started.replace(tzinfo=UTC)) == T0
    assert (match["ending"], match["details"]) == (kept.ending, kept.details)
    assert match["options"] == kept.options
    assert match["draws"] == kept.draws and match["events_digest"] == kept.events_digest
    assert [{k: v for k, v in a.items() if k != "index"} for a in match["actions"]] == [
        m.to_json() for m in kept.log]
    assert [(p["nickname"], p["score"], p["rank"], p["winner"], p["bot"])
            for p in match["players"]] == [
        (p.nickname, p.score, p.rank, p.winner, p.bot) for p in kept.players]


def test_the_statements_name_every_column_of_the_tables():
    """A column a migration adds must be written by the driver's statements too."""
    from app.db.driver_sql import MATCH_RECORD_COLUMNS, PLAYER_COLUMNS
    from app.db.models import Match, MatchPlayer

    assert set(Match.__table__.columns.keys()) - {"id"} == set(MATCH_RECORD_COLUMNS)
    assert set(MatchPlayer.__table__.columns.keys()) - {"id"} == set(PLAYER_COLUMNS)


def test_a_driver_error_is_raised_as_sqlalchemy_raises_it(tmp_path):
    """``Database.driver_transaction`` turns the driver's own errors into SQLAlchemy's, so the
    callers' ``UNAVAILABLE_ERRORS`` (a locked file, a refused connection) still recognise them."""
    from sqlalchemy.exc import OperationalError

    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(url)
    db = Database(url)
    try:
        with pytest.raises(OperationalError, match="no such table"):
            db.driver_transaction(lambda connection: connection.cursor().execute(
                "SELECT * FROM no_such_table"))
        assert db.engine.pool.checkedout() == 0
    finally:
        db.dispose()
