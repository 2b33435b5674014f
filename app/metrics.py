"""The server's metrics in Prometheus's text format, served at ``/metrics``
(docs/architecture.md, "Operations").

Two kinds, kept apart so the hot path does as little as possible:

- **Counted as it happens** (process-wide, in ``EVENTS``): accepted moves by game and by who
  made them, the move-to-broadcast latency by game, ``error`` frames sent by code, and the
  collector's pauses by generation. Each is one counter increment or one histogram observation
  on a child looked up once per label value and kept (``prometheus_client`` takes a lock per
  update; no label parsing on the hot path).
- **Read at scrape time** (``SiteCollector``, one per application): rooms by game and status,
  open WebSockets, matches waiting in the outbox, read from the registry, the socket guard and
  the match writer when ``/metrics`` is asked, so nothing is kept up to date between scrapes.

Who may read ``/metrics`` is decided by ``metrics_allowed``: with ``METRICS_TOKEN`` set, only a
request carrying ``Authorization: Bearer <token>``; without it, only clients on the loopback or
a private network (behind a proxy, the client is the address the trusted proxy forwarded, so the
public is refused).
"""

from __future__ import annotations

import gc
import hmac
import ipaddress
import time
from collections import Counter as Tally
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

__all__ = ["CONTENT_TYPE_LATEST", "EVENTS", "SiteCollector", "error_sent", "exposition",
           "metrics_allowed", "player_move", "system_move", "watch_collector"]

EVENTS = CollectorRegistry()
"""The counters and histograms updated as things happen, shared by every app of the process."""

ProcessCollector(registry=EVENTS)  # memory, CPU time, open files of the process

_MOVES = Counter(
    "panic_party_moves", "Moves accepted by a room, by game and by who made them (a player, or "
    "the system: the game's timers)", ["game", "by"], registry=EVENTS,
)
_LATENCY = Histogram(
    "panic_party_move_broadcast_seconds", "From a player's action frame arriving (parsed, "
    "before the room's queue) to the last frame of its broadcast handed to the sockets",
    ["game"], registry=EVENTS,
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
_ERRORS = Counter(
    "panic_party_error_frames", "error frames sent to clients, by their code", ["code"],
    registry=EVENTS,
)
_GC_PAUSES = Histogram(
    "panic_party_gc_pause_seconds", "Pauses of the cyclic garbage collector, by the oldest "
    "generation collected (app/collector.py schedules them)", ["generation"], registry=EVENTS,
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)

_player_children: dict[str, tuple[Any, Any]] = {}
_system_children: dict[str, Any] = {}
_error_children: dict[str, Any] = {}


# --- counted as it happens ------------------------------------------------------------------
def player_move(game: str, frame: Any) -> None:
    """A player's move was applied and its broadcast handed to the sockets: one move counted,
    its latency observed from the frame's arrival (``Action.arrived``, app/realtime/protocol.py).
    """
    children = _player_children.get(game)
    if children is None:
        children = _player_children[game] = (_MOVES.labels(game, "player"),
                                              _LATENCY.labels(game))
    children[0].inc()
    arrived = getattr(frame, "arrived", None)
    if arrived is not None:
        children[1].observe(time.perf_counter() - arrived)


def system_move(game: str) -> None:
    """A move of the game's timers was applied and broadcast."""
    child = _system_children.get(game)
    if child is None:
        child = _system_children[game] = _MOVES.labels(game, "system")
    child.inc()


def error_sent(code: str) -> None:
    """One ``error`` frame with ``code`` is on its way to a client."""
    child = _error_children.get(code)
    if child is None:
        child = _error_children[code] = _ERRORS.labels(code)
    child.inc()


_gc_started: list[float] = []
_gc_children = {generation: _GC_PAUSES.labels(str(generation)) for generation in (0, 1, 2)}


def _on_gc(phase: str, info: dict[str, int]) -> None:
    """``gc.callbacks`` entry: times every collection, scheduled (app/collector.py) or automatic."""
    if phase == "start":
        _gc_started.append(time.perf_counter())
    elif _gc_started:
        _gc_children[info.get("generation", 2)].observe(time.perf_counter() - _gc_started.pop())


def watch_collector() -> None:
    """Time the collector's pauses from now on (once per process, however many apps)."""
    if _on_gc not in gc.callbacks:
        gc.callbacks.append(_on_gc)


# --- read at scrape time --------------------------------------------------------------------
class SiteCollector:
    """The gauges of one application, computed from its state when ``/metrics`` is read."""

    def __init__(self, state: Any) -> None:
        self.state = state

    def describe(self) -> list[Metric]:
        return []  # computed at scrape time only; nothing to check at registration

    def collect(self) -> Iterator[Metric]:
        registry = getattr(self.state, "registry", None)
        rooms = GaugeMetricFamily("panic_party_rooms", "Rooms open in this process, by game "
                                  "and status", labels=["game", "status"])
        if registry is not None:
            tally = Tally((room.game.id, room.status) for room in list(registry.rooms.values())
                          if not room.closed)
            for (game, status), count in sorted(tally.items()):
                rooms.add_metric([game, status], count)
        yield rooms
        guard = getattr(self.state, "guard", None)
        if guard is not None:
            yield GaugeMetricFamily("panic_party_connections", "Open WebSocket connections of "
                                    "this process (players, spectators, table views, relayed)",
                                    value=guard.open_total())
        writer = getattr(self.state, "writer", None)
        if writer is not None:
            yield GaugeMetricFamily("panic_party_saves_pending", "Finished matches waiting in "
                                    "the outbox for the database", value=writer.pending_count())


def exposition(site: CollectorRegistry) -> bytes:
    """Everything, in Prometheus's text format: the process-wide events and this site's gauges."""
    return generate_latest(EVENTS) + generate_latest(site)


def site_registry(state: Any) -> CollectorRegistry:
    """A registry holding one application's scrape-time gauges."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(SiteCollector(state))
    return registry


# --- who may read them ----------------------------------------------------------------------
def metrics_allowed(token: str, authorization: str | None, client_host: str | None) -> bool:
    """With ``token``: the request's bearer token must match it. Without: the client must be on
    the loopback or a private network (docs/architecture.md, "Operations")."""
    if token:
        return authorization is not None and hmac.compare_digest(
            authorization.encode(), f"Bearer {token}".encode())
    try:
        address = ipaddress.ip_address(client_host or "")
    except ValueError:
        return False
    return address.is_loopback or address.is_private
