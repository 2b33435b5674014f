"""The guards outside everything else: the Host allow-list and the security headers
(docs/decisions/0043; README, "Playing together"; docs/protocol.md, "Host names and security
headers").

``GuardedApp`` is FastAPI with ``SiteGuards`` wrapped around its whole middleware stack, the
error middleware included, so that:

- a request whose ``Host`` the site does not answer (app/hosts.py) is refused before any route
  or middleware reads it: HTTP 400 with a short text; a WebSocket upgrade is closed before it
  is accepted (the server answers 403). ``/healthz`` is exempt: an orchestrator's probe
  addresses the process by its container's address, and the answer tells nothing;
- every HTTP response, errors (a 500 too), static files and JSON included, carries the
  security headers: a Content-Security-Policy (``SITE_POLICY``: scripts, styles and everything
  else from the site itself, no inline script or style, no plug-ins, no ``<base>``, forms to
  the site only, no framing), ``X-Frame-Options: DENY`` for browsers older than
  ``frame-ancestors``, ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: same-origin``
  (invite links carry a room's code in their path: no other site learns it) and
  ``Cross-Origin-Opener-Policy: same-origin``. A response that sets its own policy keeps it
  (the API documentation's pages, app/api/site.py, which need their inline scripts' hashes).

The guards are pure ASGI: a WebSocket passes through with one header read, and its frames never
meet them (docs/decisions/0013).
"""

from __future__ import annotations

import base64
import hashlib
import re

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import metrics
from app.config import Settings
from app.hosts import HostPolicy

EXEMPT_PATHS = frozenset({"/healthz"})
"""Answered whatever the Host: an orchestrator's health probe names the container's address."""
REFUSED_HOST = b"this server does not answer for that host name\n"


def _sources(public_url: str) -> str:
    """The sources of the site's own resources: the page's origin, and ``PUBLIC_URL`` where the
    pages load their assets from (app/api/urls.py) when it is set."""
    return "'self'" + (f" {public_url.rstrip('/')}" if public_url else "")


def site_policy(public_url: str = "") -> str:
    """The Content-Security-Policy of every response but the API documentation's pages."""
    own = _sources(public_url)
    return "; ".join((
        f"default-src {own}", f"script-src {own}", f"style-src {own}", f"img-src {own}",
        f"font-src {own}", f"connect-src {own}", f"worker-src {own}", f"manifest-src {own}",
        "object-src 'none'", "base-uri 'none'", f"form-action {own}", "frame-ancestors 'none'",
    ))


def docs_policy(html: str) -> str:
    """The policy of a page of the API documentation (Swagger UI at ``/docs``, ReDoc at
    ``/redoc``): its inline scripts by their hashes, never any other inline script; inline
    styles (both libraries write style elements at run time), ``data:`` images (Swagger UI's
    icons), and ReDoc's search in a worker it makes from a ``blob:``."""
    hashes = " ".join(f"'{h}'" for h in inline_script_hashes(html))
    return "; ".join((
        "default-src 'self'", f"script-src 'self' {hashes}".rstrip(),
        "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self'",
        "connect-src 'self'", "worker-src 'self' blob:", "object-src 'none'",
        "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
    ))


_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)


def inline_script_hashes(html: str) -> list[str]:
    """``sha256-...`` of each inline script of ``html``, as a policy names them."""
    return ["sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            for body in _INLINE_SCRIPT.findall(html)]


def _headers(policy: str) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-security-policy", policy.encode()),
        (b"x-frame-options", b"DENY"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
        (b"cross-origin-opener-policy", b"same-origin"),
    ]


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


class SiteGuards:
    """The Host allow-list and the security headers around ``app`` (see the module's text)."""

    def __init__(self, app: ASGIApp, hosts: HostPolicy, policy: str) -> None:
        self.app = app
        self.hosts = hosts
        self.added = _headers(policy)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if not self.hosts.allows(_header(scope, b"host")) and scope["path"] not in EXEMPT_PATHS:
            metrics.request_refused("host")
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 1008})  # before accept: 403
            else:
                await self._refuse(send)
            return
        if kind == "websocket":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers.extend(h for h in self.added if h[0] not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)

    async def _refuse(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": 400, "headers": [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(REFUSED_HOST)).encode()), *self.added]})
        await send({"type": "http.response.body", "body": REFUSED_HOST})


class GuardedApp(FastAPI):
    """FastAPI with ``SiteGuards`` outside its whole stack (see the module's text); the allowed
    hosts are derived from ``state.settings`` when the stack is built (before the first request
    or the lifespan) and kept in ``state.hosts`` for the WebSocket endpoint's origin check."""

    def build_middleware_stack(self) -> ASGIApp:
        settings: Settings = self.state.settings
        self.state.hosts = HostPolicy.from_settings(settings)
        return SiteGuards(super().build_middleware_stack(), self.state.hosts,
                          site_policy(settings.public_url))
