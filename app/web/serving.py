"""One asset root served over HTTP: versioned URLs from memory, plain URLs from the folder.

- A versioned URL (``/static/js/room.3f2a1b9c0d.js``) is answered from the registry's memory
  in the best encoding the client accepts (Brotli, else gzip, else as it is), with
  ``Cache-Control: public, max-age=31536000, immutable`` and ``Vary: Accept-Encoding``: its bytes
  never change, so a phone fetches it once.
- A versioned URL of an older build (a page opened before a deploy loads a module only now)
  gets today's file, revalidated on every use (``no-cache``) rather than a 404.
- A plain URL (``/static/js/room.js``, ``/static/verify_match.py``) is the file as it is on disk,
  through Starlette's ``StaticFiles`` (``ETag``, ``Last-Modified``), revalidated on every use.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.datastructures import Headers, MutableHeaders
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

from .assets import Asset, AssetRegistry, AssetRoot

IMMUTABLE = "public, max-age=31536000, immutable"
"""A versioned URL's bytes never change: a year, never revalidated."""
REVALIDATE = "no-cache"
"""Kept, but asked again (a 304 when unchanged) before every use."""


def accepted_encodings(header: str) -> set[str]:
    """The codings an ``Accept-Encoding`` value allows (``q=0`` refuses one; ``*`` allows
    any not named)."""
    allowed: set[str] = set()
    refused: set[str] = set()
    for item in header.split(","):
        coding, _, params = item.partition(";")
        coding = coding.strip().lower()
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if coding:
            (allowed if q > 0 else refused).add(coding)
    if "*" in allowed:
        allowed |= {"br", "gzip"} - refused
    return allowed


def _route_path(scope: Scope) -> str:
    """The request's path below the mount point (as Starlette's own ``StaticFiles`` reads it)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root):] if root and path.startswith(root + "/") else path


class AssetFiles:
    """The ASGI app mounted at ``root.prefix``."""

    def __init__(self, registry: AssetRegistry, root: AssetRoot) -> None:
        self.registry = registry
        self.root = root
        self.files = StaticFiles(directory=root.folder)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        url = self.root.prefix.rstrip("/") + _route_path(scope)
        asset, cache = self.registry.get(url), IMMUTABLE
        if asset is None:
            asset, cache = self.registry.current(url), REVALIDATE
        if asset is not None and scope["method"] in ("GET", "HEAD"):
            await self._send(asset, cache, scope, send)
            return

        async def revalidated(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                MutableHeaders(scope=message)["Cache-Control"] = REVALIDATE
            await send(message)

        await self.files(scope, receive, revalidated)

    @staticmethod
    async def _send(asset: Asset, cache: str, scope: Scope, send: Send) -> None:
        request = Headers(scope=scope)
        accepted = accepted_encodings(request.get("accept-encoding", ""))
        body, coding = asset.body, ""
        if asset.brotli is not None and "br" in accepted:
            body, coding = asset.brotli, "br"
        elif asset.gzip is not None and "gzip" in accepted:
            body, coding = asset.gzip, "gzip"
        etag = f'{asset.etag[:-1]}{"." + coding if coding else ""}"'
        text = asset.media_type.startswith("text/") or asset.media_type.endswith(("json", "xml"))
        headers = {
            "content-type": asset.media_type + ("; charset=utf-8" if text else ""),
            "cache-control": cache,
            "etag": etag,
        }
        if asset.gzip is not None or asset.brotli is not None:
            headers["vary"] = "Accept-Encoding"
        if coding:
            headers["content-encoding"] = coding
        status = 200
        if etag in [tag.strip() for tag in request.get("if-none-match", "").split(",")]:
            status, body = 304, b""
        else:
            headers["content-length"] = str(len(body))
        await send({"type": "http.response.start", "status": status,
                    "headers": [(k.encode(), v.encode()) for k, v in headers.items()]})
        await send({"type": "http.response.body",
                    "body": b"" if scope["method"] == "HEAD" else body})


def mount(app: Starlette, registry: AssetRegistry) -> None:
    """Every root of ``registry`` at its URL prefix, named for ``url_for(name, path=...)``."""
    for root in registry.roots:
        app.mount(root.prefix, AssetFiles(registry, root), name=root.name)
