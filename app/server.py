"""Serve the site with uvicorn (the database is migrated by the app's start-up).

Where it listens and which proxies it trusts come from the settings (README, "Playing together"):
``LAN`` listens on every interface and prints the address the phones open; ``FORWARDED_ALLOW_IPS``
names the proxies whose X-Forwarded-For/-Proto headers uvicorn applies (from anyone else they
change nothing). The HTTP protocol is the site's own (app/http_protocol.py): a deadline and a
size limit for a request's headers and for its body, and a cap on one address's connections,
which matter when nothing but this server stands between the clients and the site (``LAN``).
"""

from __future__ import annotations

from typing import Any

import uvicorn

from app.api.urls import lan_host
from app.config import Settings, get_settings
from app.http_protocol import http_protocol
from app.logs import configure as configure_logging

WS_MAX_FRAME = 64 * 1024
"""Frames over 16 KB are refused with an error; frames over this close the connection."""


def listen_host(settings: Settings) -> str:
    """Every interface when serving the local network, else the configured ``HOST``."""
    return "0.0.0.0" if settings.lan else settings.host


def trusted_proxies(settings: Settings) -> list[str]:
    """``FORWARDED_ALLOW_IPS`` as uvicorn takes it: addresses, networks, or ``*``."""
    return [part.strip() for part in settings.forwarded_allow_ips.split(",") if part.strip()]


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run``/``uvicorn.Config`` for these settings."""
    return {
        "host": listen_host(settings),
        "port": settings.port,
        "log_level": settings.log_level.lower(),
        "ws_max_size": WS_MAX_FRAME,
        "ws_per_message_deflate": False,
        "proxy_headers": True,
        "forwarded_allow_ips": trusted_proxies(settings),
        "log_config": None,  # uvicorn's loggers go through the app's handler (app/logs.py)
        # The header and body limits and the cap per address; an upgrade leaves no cycle.
        "http": http_protocol(settings),
        "server_header": False,  # no "server: uvicorn" banner (docs/decisions/0043)
    }


def start_message(settings: Settings) -> str:
    """The address to open, printed at start."""
    if settings.public_url:
        where = settings.public_url.rstrip("/")
        return f"Panic Party at {where} (listening on {listen_host(settings)}:{settings.port})"
    if settings.lan:
        host = lan_host(settings)
        if host is None:
            return (f"Panic Party on port {settings.port} of every interface, but no local "
                    "network address was found: set LAN_ADDRESS to the address the phones reach")
        return (f"Panic Party on your local network: open http://{host}:{settings.port} "
                "on the phones (same Wi-Fi)")
    if settings.host in ("0.0.0.0", "::"):
        return (f"Panic Party on port {settings.port} of every interface (links carry the "
                "address each browser opened; LAN or PUBLIC_URL fix them)")
    return f"Panic Party at http://{settings.host}:{settings.port}"


def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_level, settings.log_format)
    print(start_message(settings), flush=True)
    uvicorn.run("app.main:create_app", factory=True, **uvicorn_options(settings))


if __name__ == "__main__":
    main()
