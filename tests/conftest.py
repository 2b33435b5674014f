"""Shared fixtures: a live server on SQLite in a temporary folder, and its clients."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.live import Client, LiveServer

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
def clients(server: LiveServer) -> Iterator[list[Client]]:
    """Clients opened by a test through ``open_client``; all closed at the end."""
    opened: list[Client] = []
    yield opened
    for c in opened:
        try:
            c.close()
        except Exception:  # noqa: BLE001
            pass


@pytest.fixture
def open_client(server: LiveServer, clients: list[Client]):
    def _open(code: str) -> Client:
        client = Client(server, code)
        clients.append(client)
        return client

    return _open


# A server without the per-connection frame limit, for bots that play whole matches as fast as
# the WebSockets carry their moves.
@pytest.fixture
def fast_server(tmp_path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.5,
                    ws_messages_per_second=100_000) as live:
        yield live


@pytest.fixture
def open_fast(fast_server: LiveServer) -> Iterator:
    opened: list[Client] = []

    def _open(code: str) -> Client:
        client = Client(fast_server, code)
        opened.append(client)
        return client

    yield _open
    for c in opened:
        try:
            c.close()
        except Exception:  # noqa: BLE001
            pass
