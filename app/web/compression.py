"""Responses compressed for the clients that accept it (docs/decisions/0046).

The maintained ``starlette-compress`` middleware does the work: Brotli where the client accepts
it, else gzip, for HTML, JavaScript, CSS, JSON, SVG, the web app manifest and other text of at
least ``MINIMUM_SIZE`` bytes, with ``Vary: Accept-Encoding``. It leaves alone what is already
encoded (the answers about a finished match are kept compressed, app/api/finished/answers.py; the
versioned assets carry their own forms, compressed once, app/web/serving.py), partial answers,
and every scope that is not HTTP: a WebSocket passes through untouched (and ``/ws/`` never
reaches it: app/main.py's ``RoomSocketShortcut`` serves the room sockets before it,
docs/decisions/0013). Zstandard is left off: the assets are kept in Brotli and gzip, and every
browser that sends zstd sends br.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette_compress import CompressMiddleware

MINIMUM_SIZE = 1024
"""Bytes below which an answer goes out as it is: compressing it saves less than it costs."""
BROTLI_QUALITY = 5
"""Brotli's quality for answers made per request (pages, JSON): about gzip's cost, smaller; the
assets, compressed once per process, get quality 10 (app/web/assets.py)."""
GZIP_LEVEL = 6


def install(app: Starlette) -> None:
    """Compress ``app``'s answers (a middleware added now sits inside those added later)."""
    app.add_middleware(CompressMiddleware, minimum_size=MINIMUM_SIZE, zstd=False,
                       brotli_quality=BROTLI_QUALITY, gzip_level=GZIP_LEVEL)
