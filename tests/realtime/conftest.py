"""Realtime fixtures: a server without the per-connection frame limit, for bots that play whole
matches as fast as the WebSockets carry their moves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.live import Client, LiveServer


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
