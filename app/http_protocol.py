"""uvicorn's HTTP protocol, less the reference cycle a WebSocket upgrade leaves behind.

uvicorn's ``HttpToolsProtocol`` and its parser refer to each other (the parser calls the
protocol's bound methods). For a plain HTTP connection ``connection_lost`` drops the parser
and the protocol is freed by its reference count; a connection upgraded to a WebSocket hands
its transport to the WebSocket protocol instead, the HTTP protocol is never told that the
connection ended, and it dies in a cycle of some 14 objects (its parser, six bound methods,
its flow control, deques...) that only a collection of old objects frees. The collector
freezes whatever survives a young pass (decision 0035), so such cycles waited for a thaw pass:
10,752 objects after 4,000 joins (docs/performance.md). The upgrade drops the parser too.
"""

from __future__ import annotations

from typing import Any

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - no httptools: uvicorn picks its h11 protocol
    HTTP_PROTOCOL: Any = "auto"
else:

    class UpgradeLeavesNoCycle(HttpToolsProtocol):
        """``HttpToolsProtocol`` whose WebSocket upgrade drops the parser, as
        ``connection_lost`` does for a plain HTTP connection."""

        def handle_websocket_upgrade(self) -> None:
            super().handle_websocket_upgrade()
            self.parser = None  # type: ignore[assignment]  # the WebSocket's connection now

    HTTP_PROTOCOL = UpgradeLeavesNoCycle
"""What ``uvicorn.run(http=...)`` serves the site with (app/server.py, the tests' live server,
the benchmarks' server)."""
