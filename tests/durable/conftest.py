"""Fixtures of the durable-room tests: the database fixtures of tests/db on each backend."""

from tests.db.conftest import (  # noqa: F401 - fixtures
    database_url, flaky_postgres, postgres_available, postgres_url,
)
from tests.recorder_check import recorder_misses_no_change  # noqa: F401, E402 - autouse
