"""Database fixtures: a fresh SQLite file, or a fresh PostgreSQL database created for the test
(``CREATE DATABASE`` with psycopg in autocommit) and dropped afterwards."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import make_url

from tests.conftest import POSTGRES_URL, REQUIRE_POSTGRES


def _libpq(url: str) -> str:
    """A SQLAlchemy URL as a libpq connection string for psycopg."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def postgres_available() -> str:
    """The admin URL of the PostgreSQL server, or a skip (a failure when it is required)."""
    import psycopg

    try:
        with psycopg.connect(_libpq(POSTGRES_URL), connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        message = f"PostgreSQL at {make_url(POSTGRES_URL).render_as_string()} unreachable: {exc}"
        if REQUIRE_POSTGRES:
            pytest.fail(message)
        pytest.skip(message)
    return POSTGRES_URL


@pytest.fixture
def postgres_url(postgres_available: str) -> Iterator[str]:
    """The URL of a new, empty database on the PostgreSQL server, dropped after the test."""
    import psycopg

    name = f"panic_party_test_{uuid.uuid4().hex[:12]}"
    admin = _libpq(postgres_available)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(postgres_available).set(database=name).render_as_string(
            hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request, tmp_path) -> str:
    """A URL of an empty database, on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def flaky_postgres(postgres_url: str):  # type: ignore[no-untyped-def]
    """A fresh, migrated PostgreSQL database behind a ``DatabaseProxy`` (``.url`` goes through
    the proxy; ``postgres_url`` is the database itself)."""
    from app.db.database import migrate
    from tests.db.proxy import DatabaseProxy

    migrate(postgres_url)
    with DatabaseProxy(postgres_url) as proxy:
        yield proxy


@pytest.fixture
def db(database_url):  # type: ignore[no-untyped-def]
    """A migrated database handle on each backend, disposed of after the test."""
    from app.db.database import Database, migrate

    migrate(database_url)
    database = Database(database_url)
    yield database
    database.dispose()
