"""Which ``Host`` headers the site answers, and which pages may open its WebSockets (README,
"Playing together"; docs/decisions/0043).

**The Host allow-list.** A request whose ``Host`` names none of the site's own names is refused
(400) before anything reads it: a page on another site whose name an attacker points at this
server (DNS rebinding) cannot read it, ``/metrics`` included, with the browser's blessing. The
names are derived from the settings, as Django's ``ALLOWED_HOSTS`` is written by hand:

- ``localhost``, ``127.0.0.1`` and ``::1``: this machine;
- the host of ``PUBLIC_URL``;
- ``HOST`` when it is one address (not ``0.0.0.0`` or ``::``);
- serving the local network (``LAN``, or ``HOST`` on every interface): the LAN address
  (``LAN_ADDRESS`` or the one found) and this machine's name, with and without ``.local``;
- each name of ``ALLOWED_HOSTS`` (comma-separated; ``*.example.org`` for every subdomain;
  ``*`` for any host).

Ports do not count (the port is the listener's business, and a proxy may change it).

**WebSocket origins.** A browser names the page that opens a WebSocket in ``Origin``, and
nothing else stops a page on any site from opening one to this server (cross-site WebSocket
hijacking: spending its visitors' per-address budgets in their name). A WebSocket whose
``Origin`` is not the site itself is refused before it is accepted: the origin's host and port
must be the request's own ``Host`` (a ``Host`` without a port stands for the default port of the
origin's scheme), or the origin ``PUBLIC_URL`` names, or a host named in ``ALLOWED_HOSTS`` (not
by ``*``). A request without ``Origin`` is not a browser's and passes (the tests' and bots'
clients, load benchmarks); ``Origin: null`` (a sandboxed or local page) is refused.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from app.config import Settings
from app.network import lan_address

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
"""Always allowed: this machine, by name and by its loopback addresses."""
UNSPECIFIED = ("0.0.0.0", "::", "")
"""``HOST`` values that listen on every interface rather than name one address."""
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def split_host(value: str) -> tuple[str, int | None] | None:
    """A ``Host`` header's name (lower case, IPv6 without brackets, no trailing dot) and port;
    None when it is not a host at all."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1:]
        try:
            ipaddress.IPv6Address(name)
        except ValueError:
            return None
    else:
        name, sep, port_text = value.partition(":")
        rest = sep + port_text
    port: int | None = None
    if rest:
        if not rest.startswith(":") or not rest[1:].isdigit() or len(rest) > 6:
            return None
        port = int(rest[1:])
    name = name.rstrip(".")
    if not name or any(ch in name for ch in "/\\@?#% \t"):
        return None
    return name, port


def split_origin(value: str) -> tuple[str, str, int] | None:
    """An ``Origin`` header's scheme, host and port (the scheme's default when none is given);
    None for ``null`` and anything else that is not an origin."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    return scheme, parts.hostname.rstrip("."), port or DEFAULT_PORTS[scheme]


@dataclass(frozen=True)
class HostPolicy:
    """The site's names (``names`` exactly, or under one of ``suffixes``; any with
    ``any_host``), and the origins named for WebSockets besides the request's own."""

    names: frozenset[str]
    suffixes: tuple[str, ...] = ()
    any_host: bool = False
    named: frozenset[str] = frozenset()
    """The hosts ``ALLOWED_HOSTS`` names one by one (an origin on one of them may connect)."""
    public_origin: tuple[str, str, int] | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> HostPolicy:
        names = set(LOOPBACK_NAMES)
        public_origin = split_origin(settings.public_url) if settings.public_url else None
        if public_origin is not None:
            names.add(public_origin[1])
        if settings.host not in UNSPECIFIED:
            names.add(settings.host.strip("[]").lower())
        if settings.lan or settings.host in UNSPECIFIED:
            address = settings.lan_address or lan_address()
            if address:
                names.add(address.strip("[]").lower())
            machine = socket.gethostname().lower().rstrip(".")
            if machine:
                names.update((machine, f"{machine.split('.')[0]}.local"))
        named: set[str] = set()
        suffixes: list[str] = []
        any_host = False
        for entry in (part.strip().lower() for part in settings.allowed_hosts.split(",")):
            if entry == "*":
                any_host = True
            elif entry.startswith("*."):
                suffixes.append(entry[1:].rstrip("."))
            elif entry:
                parsed = split_host(entry)
                if parsed is None:
                    raise ValueError(f"ALLOWED_HOSTS: {entry!r} is not a host name")
                named.add(parsed[0])
        return cls(frozenset(names | named), tuple(suffixes), any_host, frozenset(named),
                   public_origin)

    def _known(self, name: str) -> bool:
        return name in self.names or any(name.endswith(s) for s in self.suffixes)

    def allows(self, host_header: str | None) -> bool:
        """Whether a request with this ``Host`` header is for this site."""
        if self.any_host:
            return True
        parsed = split_host(host_header or "")
        return parsed is not None and self._known(parsed[0])

    def origin_allowed(self, origin: str | None, host_header: str | None) -> bool:
        """Whether a WebSocket opened by a page of ``origin`` (the ``Origin`` header, None when
        there is none) to ``host_header`` may be accepted."""
        if origin is None:
            return True
        parsed = split_origin(origin)
        if parsed is None:
            return False
        scheme, name, port = parsed
        own = split_host(host_header or "")
        if own is not None and own[0] == name and (own[1] or DEFAULT_PORTS[scheme]) == port:
            return True
        if self.public_origin is not None and parsed == self.public_origin:
            return True
        return name in self.named or any(name.endswith(s) for s in self.suffixes)
