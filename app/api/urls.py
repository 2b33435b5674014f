"""The address in links and QR codes: what a phone in the room, or anyone on the Internet, can
open (README, "Playing together").

In order: ``PUBLIC_URL`` when set (a hosted site behind a proxy); with ``LAN`` on, a request that
came to a loopback address gets this machine's LAN address instead (a phone cannot open
127.0.0.1: that is the phone itself); otherwise the address the request came to, which behind a
trusted proxy (``FORWARDED_ALLOW_IPS``) already carries the forwarded scheme.

The pages' own assets and links to the site's routes (the templates' ``url_for``) never follow
the request's ``Host``: they are at ``PUBLIC_URL`` when it is set, else root-relative paths,
which the browser resolves against the address it opened. What does follow
the request (the invite links and QR code without ``PUBLIC_URL``) is sent with ``Vary: Host``.
"""

from __future__ import annotations

from starlette.requests import Request

from app.config import Settings
from app.network import is_loopback_host, lan_address


def lan_host(settings: Settings) -> str | None:
    """The configured or detected LAN address, when serving the local network."""
    if not settings.lan:
        return None
    return settings.lan_address or lan_address()


def public_base_url(request: Request) -> str:
    """The site's base address for links, without a trailing slash."""
    settings: Settings = request.app.state.settings
    if settings.public_url:
        return settings.public_url.rstrip("/")
    base = request.base_url
    host = lan_host(settings)
    if host and is_loopback_host(base.hostname or ""):
        port = base.port or settings.port
        return f"{base.scheme}://{host}:{port}"
    return str(base).rstrip("/")


def public_url_for(request: Request, name: str, /, **params: object) -> str:
    """An absolute link to the route ``name`` at the public base address."""
    path = request.app.url_path_for(name, **{k: str(v) for k, v in params.items()})
    return public_base_url(request) + str(path)


def page_url_for(request: Request, name: str, /, **params: object) -> str:
    """A page's link to the route ``name`` (a stylesheet, a script, another page): at
    ``PUBLIC_URL`` when it is set, else a root-relative path; never from the ``Host`` header.
    A static file's link is its versioned URL (app/web/assets.py) when the site has one."""
    path = str(request.app.url_path_for(name, **{k: str(v) for k, v in params.items()}))
    return asset_url(request, path)


def asset_url(request: Request, path: str) -> str:
    """A page's link to the URL path ``path``: its versioned URL when it is an asset of the
    site (app/web/assets.py), at ``PUBLIC_URL`` when it is set, else root-relative."""
    settings: Settings = request.app.state.settings
    assets = getattr(request.app.state, "assets", None)
    path = (assets.url(path) if assets is not None else None) or path
    if settings.public_url:
        return public_base_url(request) + path
    return request.scope.get("root_path", "") + path


def follows_host(request: Request) -> bool:
    """Whether links made for this request depend on its ``Host`` (no ``PUBLIC_URL``): then a
    response carrying them says ``Vary: Host``."""
    return not request.app.state.settings.public_url
