"""A WebSocket upgrade leaves no HTTP protocol object behind in a reference cycle
(app/http_protocol.py): the collector freezes what survives a young pass (decision 0035), so a
cycle left by every join would wait for a thaw pass. (A connection closed at its header deadline
leaves none either: tests/api/test_http_limits.py.)"""

from __future__ import annotations

import contextlib
import gc

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from websockets.sync.client import connect

from app.config import Settings
from app.http_protocol import SiteHttpProtocol
from app.server import uvicorn_options
from tests.live import LiveServer


def _http_protocols() -> int:
    return sum(1 for obj in gc.get_objects() if issubclass(type(obj), HttpToolsProtocol))


def test_the_site_is_served_with_the_protocol_that_drops_its_parser_on_upgrade(tmp_path):
    protocol = uvicorn_options(Settings(var_dir=tmp_path))["http"]
    assert issubclass(protocol, SiteHttpProtocol)
    assert issubclass(protocol, HttpToolsProtocol)


def test_an_upgraded_connections_http_protocol_is_freed_by_its_reference_count(tmp_path):
    with LiveServer(tmp_path) as server:
        code = server.create_room("panika")["code"]
        gc.collect()
        gc.disable()  # nothing but reference counts frees anything from here on
        try:
            before = _http_protocols()
            with contextlib.ExitStack() as sockets:
                for _ in range(5):
                    sockets.enter_context(connect(server.ws_url(code)))
                upgraded = _http_protocols()
            closed = _http_protocols()
        finally:
            gc.enable()
    # At most as many as before: the room's creation's own HTTP connection may still be being
    # let go of when ``before`` counts it (a loaded machine), and goes meanwhile; five upgrades
    # that each left their protocol behind would add five.
    assert upgraded <= before and closed <= before, (before, upgraded, closed)
