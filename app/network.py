"""This machine's address on the local network, for links that work from the phones in the room.

Standard library only, and no traffic at all: "connecting" a UDP socket only asks the kernel
which interface would route to that address; nothing is sent (README, "Playing together").
"""

from __future__ import annotations

import ipaddress
import socket
from functools import lru_cache

ROUTE_PROBES = ("10.255.255.255", "192.168.255.255", "172.31.255.255")
"""Private addresses whose route names the LAN interface (never contacted: UDP connect only)."""


def _usable(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast)


def _route_address(probe: str) -> str | None:
    """The local address the kernel would use towards ``probe`` (no packet leaves)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.connect((probe, 9))
            return sock.getsockname()[0]
    except OSError:
        return None


def _hostname_addresses() -> list[str]:
    names = {socket.gethostname(), socket.getfqdn()}
    found: list[str] = []
    for name in names:
        try:
            infos = socket.getaddrinfo(name, None, socket.AF_INET, socket.SOCK_DGRAM)
        except OSError:
            continue
        found.extend(str(info[4][0]) for info in infos)
    return found


def find_lan_address() -> str | None:
    """The machine's IPv4 address on the local network, preferring a private one; ``None`` when
    it has none but loopback."""
    candidates = [a for a in (_route_address(p) for p in ROUTE_PROBES) if a]
    candidates += _hostname_addresses()
    usable = [a for a in candidates if _usable(a)]
    private = [a for a in usable if ipaddress.ip_address(a).is_private]
    found = private or usable
    return found[0] if found else None


@lru_cache
def lan_address() -> str | None:
    """``find_lan_address`` once per process (the address is read at start)."""
    return find_lan_address()


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and loopback IPs: a link to them means "this device" on a phone."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
