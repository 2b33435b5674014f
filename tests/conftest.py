"""Shared fixtures: a live server on SQLite in a temporary folder, and its clients."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest
from hypothesis import settings

from tests.live import Client, ClientPool, LiveServer

# No per-example time limit for the property tests: an example that a loaded machine (or a
# collection of the suite's large heap) slows past Hypothesis's default 200 ms would fail the
# test as "flaky" without any rule being wrong. Each test bounds its work by max_examples.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

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
