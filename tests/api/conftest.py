"""The database fixtures of tests/db (each backend, a database that fails on demand) for the
HTTP tests."""

from tests.db.conftest import (  # noqa: F401 - fixtures
    database_url, flaky_postgres, postgres_available, postgres_url,
)
