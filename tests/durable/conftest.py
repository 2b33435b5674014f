"""Fixtures of the durable-room tests: the database fixtures of tests/db on each backend, a
server process on SQLite (``process``) and the clients a test opened, closed after it
(``opened``)."""

from collections.abc import Iterator

import pytest

from tests.durable.process import ServerProcess
from tests.live import Client

from tests.db.conftest import (  # noqa: F401 - fixtures
    database_url, flaky_postgres, postgres_available, postgres_url,
)
from tests.recorder_check import recorder_misses_no_change  # noqa: F401, E402 - autouse


@pytest.fixture
def process(tmp_path) -> Iterator[ServerProcess]:  # type: ignore[no-untyped-def]
    """A server on SQLite under its var folder."""
    server = ServerProcess(tmp_path / "var")
    try:
        yield server
    finally:
        server.ensure_stopped()


@pytest.fixture
def opened() -> Iterator[list[Client]]:
    """The clients a test opens, closed after it (a killed server's are closed already)."""
    clients: list[Client] = []
    yield clients
    for c in clients:
        try:
            c.close()
        except Exception:  # noqa: BLE001, S110 - closed already (the server was killed)
            pass
