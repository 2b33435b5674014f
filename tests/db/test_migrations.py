"""Alembic migrations on a fresh database of each backend: the schema they build, that it matches
the models, and that downgrading to base and upgrading again works."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect

from app.db.database import alembic_config, migrate
from app.db.models import Base

COLUMNS = {
    # The chance steps and the events' digest recorded with the match (migration 0007).
    "matches": {"id", "game", "room_code", "options", "seed", "seed_hash", "started_at",
                "ended_at", "summary", "ending", "details", "log", "draws", "events_digest"},
    "match_players": {"id", "match_id", "seat", "nickname", "score", "rank", "winner",
                      "bot"},
    # Durable rooms (migration 0004; docs/architecture.md, "Durable rooms").
    "rooms": {"code", "game", "options", "host", "public", "status", "match_number",
              "next_member", "banned", "room_options", "fence", "standings", "created_at",
              "updated_at"},
    "room_members": {"room_code", "member_id", "nickname", "seat", "player", "nonce", "bot"},
    "room_matches": {"room_code", "match_number", "seed", "players", "options", "started_at"},
    "room_moves": {"room_code", "seq", "seat", "action", "at_ms", "rtt_ms", "received_at"},
}


def _head() -> str:
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def _current(engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def test_migrations_build_the_schema_of_the_models(database_url):
    migrate(database_url)
    engine = create_engine(database_url)
    try:
        insp = inspect(engine)
        assert set(insp.get_table_names()) == set(COLUMNS) | {"alembic_version"}
        for table, columns in COLUMNS.items():
            assert {c["name"] for c in insp.get_columns(table)} == columns
        nullable = {c["name"]: c["nullable"] for c in insp.get_columns("matches")}
        assert nullable["log"] is False
        for table in ("match_players",):
            (fk,) = insp.get_foreign_keys(table)
            assert fk["referred_table"] == "matches" and fk["constrained_columns"] == ["match_id"]
            assert (fk.get("options") or {}).get("ondelete", "").upper() == "CASCADE"
        indexes = {i["name"] for t in COLUMNS for i in insp.get_indexes(t)}
        assert {"ix_matches_game", "ix_matches_ended_at", "ix_match_players_match_id",
                "ix_match_players_nickname", "ix_matches_seed_hash"} <= indexes
        (seed_hash,) = [i for i in insp.get_indexes("matches")
                        if i["name"] == "ix_matches_seed_hash"]
        assert seed_hash["unique"] and seed_hash["column_names"] == ["seed_hash"]
        assert _current(engine) == _head()
        # The models and the migrations describe the same schema.
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == []
    finally:
        engine.dispose()


def test_downgrade_to_base_and_upgrade_again(database_url):
    config = alembic_config(database_url)
    migrate(database_url)
    migrate(database_url)  # a second upgrade to head changes nothing
    engine = create_engine(database_url)
    try:
        command.downgrade(config, "base")
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
        assert _current(engine) is None
        command.upgrade(config, "head")
        assert set(COLUMNS) <= set(inspect(engine).get_table_names())
        assert _current(engine) == _head()
    finally:
        engine.dispose()


def test_the_log_migration_carries_existing_logs_both_ways(database_url):
    """0002 moves each match's rows of ``match_actions`` into ``matches.log``, in order, and its
    downgrade moves them back."""
    from sqlalchemy import text

    config = alembic_config(database_url)
    command.upgrade(config, "0001_matches")
    engine = create_engine(database_url)
    try:
        with engine.begin() as conn:
            conn.execute(text(
                "INSERT INTO matches (id, game, room_code, options, seed, seed_hash, started_at,"
                " ended_at, summary) VALUES (7, 'panika', 'ABCD', '{}', 's', 'h',"
                " '2026-01-01 00:00:00+00', '2026-01-01 00:10:00+00', '')"))
            conn.execute(text(
                "INSERT INTO match_actions (match_id, \"index\", seat, action, at_ms, rtt_ms)"
                " VALUES (7, 1, NULL, '{\"type\": \"timeout\"}', 900, 0),"
                " (7, 0, 1, '{\"type\": \"tap\"}', 500, 30)"))
        command.upgrade(config, "0002_log_column")
        with engine.connect() as conn:
            (log,) = conn.execute(text("SELECT log FROM matches WHERE id = 7")).one()
        log = log if isinstance(log, list) else __import__("json").loads(log)
        assert log == [{"seat": 1, "action": {"type": "tap"}, "at_ms": 500, "rtt_ms": 30},
                       {"seat": None, "action": {"type": "timeout"}, "at_ms": 900, "rtt_ms": 0}]
        command.downgrade(config, "0001_matches")
        with engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT \"index\", seat, at_ms FROM match_actions ORDER BY \"index\"")).all()
        assert [tuple(r) for r in rows] == [(0, 1, 500), (1, None, 900)]
    finally:
        engine.dispose()
