"""Shared fixtures: a live server on SQLite in a temporary folder, and its clients."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest

from tests.live import Client, ClientPool, LiveServer

POSTGRES_URL = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REQUIRE_POSTGRES = os.environ.get("PANIC_PARTY_REQUIRE_POSTGRES") == "1"
REQUIRE_BROWSER = os.environ.get("PANIC_PARTY_REQUIRE_BROWSER") == "1"


@pytest.fixture
def server(tmp_path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.5) as live:
        yield live


@pytest.fixture
def clients() -> Iterator[list[Client]]:
    """A list for clients a test opens itself; every one is closed at the end."""
    pool = ClientPool()
    with pool:
        yield pool.opened


@pytest.fixture
def open_client(server: LiveServer) -> Iterator[Callable[[str], Client]]:
    """Open real WebSocket clients of ``server``; all are closed at the end."""
    with ClientPool() as pool:
        yield lambda code: pool(server, code)


# A server without the per-connection frame limit, for bots that play whole matches as fast as
# the WebSockets carry their moves.
@pytest.fixture
def fast_server(tmp_path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.5,
                    ws_messages_per_second=100_000) as live:
        yield live


@pytest.fixture
def open_fast(fast_server: LiveServer) -> Iterator[Callable[[str], Client]]:
    with ClientPool() as pool:
        yield lambda code: pool(fast_server, code)
