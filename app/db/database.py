"""The database handle: an engine, a session factory, and schema migration through Alembic."""

from __future__ import annotations

from pathlib import Path

import orjson

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker

from app.config import PROJECT_ROOT


def _json_dumps(value: object) -> str:
    return orjson.dumps(value).decode()


JSON_CODEC = {"json_serializer": _json_dumps, "json_deserializer": orjson.loads}
"""JSON columns (options, action log) through orjson: a match's log is thousands of values."""


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets foreign keys and a busy timeout."""
    if url.startswith("sqlite"):
        if ":///" in url and not url.endswith(":memory:"):
            Path(url.split(":///", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"timeout": 15, "check_same_thread": False}, **JSON_CODEC
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record):  # type: ignore[no-untyped-def]
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True, **JSON_CODEC)


def alembic_config(url: str):  # type: ignore[no-untyped-def]
    """An Alembic configuration pointing at ``migrations/`` and ``url``."""
    from alembic.config import Config

    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def migrate(url: str, revision: str = "head") -> None:
    """Bring the schema at ``url`` up to ``revision`` (the only way the schema changes)."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)


class Database:
    """One database: its engine and its sessions."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def session(self) -> Session:
        return self.sessions()

    def ping(self) -> bool:
        """Whether the database answers a trivial query."""
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
            return True
        except Exception:  # noqa: BLE001 - any failure means "not healthy"
            return False

    def dispose(self) -> None:
        self.engine.dispose()
