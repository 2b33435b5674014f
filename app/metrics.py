"""The server's metrics in Prometheus's text format, served at ``/metrics``
(docs/architecture.md, "Operations").

Two kinds, kept apart so the hot path does as little as possible:

- **Counted as it happens** (process-wide, in ``EVENTS``): accepted moves by game and by who
  made them, the move-to-broadcast latency by game, ``error`` frames sent by code, HTTP
  connections closed for a limit by reason (app/http_protocol.py), requests refused by the
  guards by reason (app/api/guards.py, app/realtime/endpoint.py): plain
  integers in dictionaries and a bucket count found by bisection, updated on the event loop
  and turned into Prometheus metrics only when ``/metrics`` is read (``prometheus_client``'s
  own counters take a lock per update: twice the cost on the hot path, docs/performance.md).
  The collector's pauses, which may happen on any thread, use a ``prometheus_client``
  histogram.
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
from bisect import bisect_left
from collections import Counter as Tally
from collections.abc import Iterator
from itertools import accumulate
from typing import Any

from prometheus_client import CollectorRegistry, Histogram, ProcessCollector
from prometheus_client.core import (
    CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

__all__ = ["CONTENT_TYPE_LATEST", "EVENTS", "SiteCollector", "error_sent", "exposition",
           "http_closed", "metrics_allowed", "player_move", "request_refused", "system_move",
           "watch_collector"]

EVENTS = CollectorRegistry()
"""The counters and histograms updated as things happen, shared by every app of the process."""

ProcessCollector(registry=EVENTS)  # memory, CPU time, open files of the process

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Upper bounds (seconds) of the move-to-broadcast latency histogram's buckets."""

_GC_PAUSES = Histogram(
    "panic_party_gc_pause_seconds", "Pauses of the cyclic garbage collector, by the oldest "
    "generation collected (app/collector.py schedules them)", ["generation"], registry=EVENTS,
    buckets=LATENCY_BUCKETS,
)


class _Latency:
    """One game's latency histogram as plain numbers: a count per bucket (the last one for
    "over every bound") and the sum. Updated and read on the event loop only."""

    __slots__ = ("counts", "total")

    def __init__(self) -> None:
        self.counts = [0] * (len(LATENCY_BUCKETS) + 1)
        self.total = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect_left(LATENCY_BUCKETS, seconds)] += 1
        self.total += seconds


_player_moves: dict[str, int] = {}
_system_moves: dict[str, int] = {}
_latency: dict[str, _Latency] = {}
_errors: dict[str, int] = {}
_http_closed: dict[str, int] = {}
_refused: dict[str, int] = {}


# --- counted as it happens ------------------------------------------------------------------
def player_move(game: str, frame: Any) -> None:
    """A player's move was applied and its broadcast handed to the sockets: one move counted,
    its latency observed from the frame's arrival (``Action.arrived``, app/realtime/room/protocol.py).
    """
    _player_moves[game] = _player_moves.get(game, 0) + 1
    latency = _latency.get(game)
    if latency is None:
        latency = _latency[game] = _Latency()
    latency.observe(time.perf_counter() - frame.arrived)


def system_move(game: str) -> None:
    """A move of the game's timers was applied and broadcast."""
    _system_moves[game] = _system_moves.get(game, 0) + 1


def error_sent(code: str) -> None:
    """One ``error`` frame with ``code`` is on its way to a client."""
    _errors[code] = _errors.get(code, 0) + 1


def http_closed(reason: str) -> None:
    """The server closed an HTTP connection for one of its limits (app/http_protocol.py):
    ``header_deadline``, ``headers_too_large``, ``body_deadline``, ``body_too_large`` or
    ``too_many_connections``."""
    _http_closed[reason] = _http_closed.get(reason, 0) + 1


def request_refused(reason: str) -> None:
    """A request or WebSocket upgrade refused before the site read it: ``host`` (a ``Host`` the
    site does not answer) or ``origin`` (a WebSocket opened by another site's page)."""
    _refused[reason] = _refused.get(reason, 0) + 1


class _EventCollector:
    """The moves, latencies and error frames counted on the event loop, as Prometheus metrics
    (read when ``/metrics`` is served, on the same loop)."""

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        moves = CounterMetricFamily(
            "panic_party_moves", "Moves accepted by a room, by game and by who made them (a "
            "player, or the system: the game's timers)", labels=["game", "by"])
        for by, counts in (("player", _player_moves), ("system", _system_moves)):
            for game, count in sorted(counts.items()):
                moves.add_metric([game, by], count)
        yield moves
        latency = HistogramMetricFamily(
            "panic_party_move_broadcast_seconds", "From a player's action frame arriving "
            "(parsed, before the room's queue) to the last frame of its broadcast handed to the "
            "sockets", labels=["game"])
        for game, histogram in sorted(_latency.items()):
            cumulative = list(accumulate(histogram.counts))
            buckets = [(repr(bound), cumulative[i]) for i, bound in enumerate(LATENCY_BUCKETS)]
            latency.add_metric([game], [*buckets, ("+Inf", cumulative[-1])],
                               sum_value=histogram.total)
        yield latency
        errors = CounterMetricFamily("panic_party_error_frames", "error frames sent to "
                                     "clients, by their code", labels=["code"])
        for code, count in sorted(_errors.items()):
            errors.add_metric([code], count)
        yield errors
        closed = CounterMetricFamily(
            "panic_party_http_closed", "HTTP connections the server closed for a limit: a "
            "request's headers or its body past their deadline or their size, or one connection "
            "more than an address may hold open", labels=["reason"])
        for reason, count in sorted(_http_closed.items()):
            closed.add_metric([reason], count)
        yield closed
        refused = CounterMetricFamily("panic_party_refused_requests", "Requests and WebSocket "
                                      "upgrades refused before the site read them, by reason: "
                                      "host (not a name of this site), origin (a WebSocket "
                                      "opened by another site's page)", labels=["reason"])
        for reason, count in sorted(_refused.items()):
            refused.add_metric([reason], count)
        yield refused


EVENTS.register(_EventCollector())

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
            states = [room.state for room in list(registry.rooms.values())]
            tally = Tally((state.game.id, state.status) for state in states if not state.closed)
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
    """With ``token``: the request's bearer token must match it (the scheme's name in any case,
    RFC 7235 section 2.1). Without: the client must be on the loopback or a
    private network (docs/architecture.md, "Operations")."""
    if token:
        if authorization is None:
            return False
        scheme, _, credentials = authorization.strip().partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            credentials.strip().encode(), token.encode())
    try:
        address = ipaddress.ip_address(client_host or "")
    except ValueError:
        return False
    return address.is_loopback or address.is_private
