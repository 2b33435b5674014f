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
    "matches": {"id", "game", "room_code", "options", "seed", "seed_hash", "started_at",
                "ended_at", "summary"},
    "match_players": {"id", "match_id", "seat", "nickname", "score", "rank", "winner"},
    "match_actions": {"id", "match_id", "index", "seat", "action", "at_ms", "rtt_ms"},
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
        nullable = {c["name"]: c["nullable"] for c in insp.get_columns("match_actions")}
        assert nullable["seat"] is True and nullable["action"] is False
        for table in ("match_players", "match_actions"):
            (fk,) = insp.get_foreign_keys(table)
            assert fk["referred_table"] == "matches" and fk["constrained_columns"] == ["match_id"]
            assert (fk.get("options") or {}).get("ondelete", "").upper() == "CASCADE"
        indexes = {i["name"] for t in COLUMNS for i in insp.get_indexes(t)}
        assert {"ix_matches_game", "ix_matches_ended_at", "ix_match_players_match_id",
                "ix_match_players_nickname", "ix_match_actions_match_id"} <= indexes
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
