"""Alembic environment: runs migrations against the configured database URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool

from app.config import get_settings
from app.db.database import DEFAULT_TIMEOUT_SECONDS, engine_options
from app.db.models import Base

config = context.config
target_metadata = Base.metadata


def database_url() -> str:
    return config.get_main_option("sqlalchemy.url") or get_settings().resolved_database_url()


def run_migrations_offline() -> None:
    context.configure(url=database_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    section = config.get_section(config.config_ini_section, {})
    section["sqlalchemy.url"] = url = database_url()
    # The same connect, statement and busy timeouts as the server's engine: a silent database
    # fails the migration instead of hanging the start-up.
    bounded = engine_options(url, config.attributes.get("timeout", DEFAULT_TIMEOUT_SECONDS))
    bounded.pop("pool_timeout", None)
    bounded.pop("pool_pre_ping", None)
    connectable = engine_from_config(
        section, prefix="sqlalchemy.", poolclass=pool.NullPool, **bounded
    )
    with connectable.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
