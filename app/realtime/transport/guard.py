"""What the server allows one client address and one room (docs/protocol.md, "Limits").

- sockets per address: at most ``max_sockets_per_address`` open WebSockets (close 4004 beyond);
- room probes per address: looking up a room code that does not exist (HTTP or WebSocket) and a
  failed join (a bad seat token) each spend one of ``room_probes_per_minute``; while none is left,
  every room lookup from that address is refused (HTTP 429, close 4429), so the code space cannot
  be walked;
- frames per connection: ``frames_per_second`` (an ``error`` ``rate_limited`` once a second
  beyond; a connection that keeps sending past twice its allowance is closed with 1008);
- frames per room: ``room_frames_per_second`` from all its clients together, so a flood costs
  the flooder's own room, not the server (item 9).

The client address is the ASGI scope's: behind a reverse proxy, uvicorn rewrites it from
``X-Forwarded-For`` only for the proxies listed in ``FORWARDED_ALLOW_IPS``, so a forged header
from anyone else changes nothing.
"""

from __future__ import annotations

import time
from collections import Counter, deque

from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from app.realtime.room.protocol import CLOSE_POLICY
from app.realtime.room.state import SocketPolicy

__all__ = ["CLOSE_JOIN_TIMEOUT", "CLOSE_NO_SUCH_ROOM", "CLOSE_POLICY", "CLOSE_THROTTLED",
           "CLOSE_TOO_MANY_CONNECTIONS", "FrameWindow", "ProbeThrottle", "SocketGuard",
           "SocketPolicy", "TokenBucket", "client_address"]

CLOSE_JOIN_TIMEOUT = 4002
CLOSE_TOO_MANY_CONNECTIONS = 4004
CLOSE_NO_SUCH_ROOM = 4404
CLOSE_THROTTLED = 4429


class FrameWindow:
    """A moving window of one second over accepted frames: constant time per frame.

    Keeps the times of the last ``per_second`` accepted frames; a frame is refused while the
    oldest of them is less than a second old. Nothing is shared between windows (a shared
    rate-limit store cost a scanning thread and ~40 objects per busy connection at 4,000
    connections: docs/performance.md).
    """

    __slots__ = ("_times",)

    def __init__(self, per_second: int) -> None:
        self._times: deque[float] = deque(maxlen=max(1, per_second))

    def allow(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        times = self._times
        if len(times) == times.maxlen and now - times[0] < 1.0:
            return False
        times.append(now)
        return True


class TokenBucket:
    """``per_second`` frames a second with bursts of up to a second's worth, in two numbers (a
    room's share: constant memory whatever the rate, where a window would keep a time per
    frame)."""

    __slots__ = ("_rate", "_tokens", "_last")

    def __init__(self, per_second: int) -> None:
        self._rate = float(max(1, per_second))
        self._tokens = self._rate
        self._last = time.monotonic()

    def allow(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self._tokens = min(self._rate, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True


class ProbeThrottle:
    """Unknown room codes and failed joins per client address, in a moving window of a minute
    (the ``limits`` library)."""

    def __init__(self, per_minute: int) -> None:
        self._item = RateLimitItemPerMinute(max(1, per_minute))
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def blocked(self, address: str) -> bool:
        """No probe is left to this address: refuse its lookups for now."""
        return not self._limiter.test(self._item, "room-probe", address)

    def miss(self, address: str) -> None:
        """``address`` looked up a room that does not exist, or failed to join one."""
        self._limiter.hit(self._item, "room-probe", address)


class SocketGuard:
    """The limits of one application's WebSockets and room lookups."""

    def __init__(self, policy: SocketPolicy | None = None) -> None:
        self.policy = policy or SocketPolicy()
        self.probes = ProbeThrottle(self.policy.room_probes_per_minute)
        self._open: Counter[str] = Counter()

    def frame_window(self) -> FrameWindow:
        return FrameWindow(self.policy.frames_per_second)

    def admit(self, address: str) -> bool:
        """Count a new socket from ``address``; False (and not counted) when it has too many."""
        if self._open[address] >= self.policy.max_sockets_per_address:
            return False
        self._open[address] += 1
        return True

    def release(self, address: str) -> None:
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]

    def open_sockets(self, address: str) -> int:
        return self._open[address]

    def open_total(self) -> int:
        """Open sockets from every address (the ``panic_party_connections`` gauge)."""
        return sum(self._open.values())


def client_address(scope_client: tuple[str, int] | None) -> str:
    """The client's address from the ASGI scope (already rewritten by a trusted proxy's header)."""
    return scope_client[0] if scope_client else "unknown"
