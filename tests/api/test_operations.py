"""Operations (docs/architecture.md, "Operations"): ``/metrics`` and who may read it, ``HEAD`` on
every GET route, and ``/healthz`` refusing a database whose schema is behind."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app import metrics
from tests.live import ClientPool, LiveServer

SAMPLES = {"game_id": "panika", "match_id": "1", "lang": "en"}
"""A value for each path parameter of the app's routes (``code`` is a live room's)."""


@pytest.fixture(scope="module")
def live(tmp_path_factory) -> Iterator[LiveServer]:
    with LiveServer(tmp_path_factory.mktemp("ops") / "var", ping_interval_seconds=0.5) as server:
        yield server


def _get_routes(routes: list[Any]) -> Iterator[str]:
    """The path of every route answering GET, included routers flattened."""
    for route in routes:
        nested = getattr(route, "original_router", None)
        if nested is not None:
            yield from _get_routes(nested.routes)
        elif "GET" in (getattr(route, "methods", None) or ()):
            yield route.path


def _samples(live: LiveServer) -> dict[str, str]:
    return {**SAMPLES, "code": live.create_room("panika", "Ann")["code"]}


def test_head_answers_every_get_route_like_get_without_a_body(live):
    paths = sorted(set(_get_routes(live.app.routes)))
    assert {"/", "/r/{code}", "/healthz", "/metrics", "/api/games"} <= set(paths)
    values = _samples(live)
    urls = [re.sub(r"\{(\w+)(:\w+)?\}", lambda m: values[m.group(1)], path) for path in paths]
    urls += ["/static/verify_match.py", "/r/ZZZZ", "/no-such-page"]
    with live.http() as http:
        for url in urls:
            got = http.get(url)
            head = http.head(url)
            assert head.status_code == got.status_code, url
            assert head.content == b"", url
            assert head.status_code != 405, url
            if "content-type" in got.headers:
                assert head.headers["content-type"] == got.headers["content-type"], url


def _scrape(live: LiveServer, **headers: str) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """``/metrics`` parsed: each sample's name, then its labels, to its value."""
    with live.http() as http:
        response = http.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    samples: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = \
                sample.value
    return samples


def _value(samples: dict[str, Any], name: str, **labels: str) -> float:
    return samples.get(name, {}).get(tuple(sorted(labels.items())), 0.0)


def test_metrics_count_rooms_connections_moves_latency_errors_and_pauses(live):
    import gc

    before = _scrape(live)
    created = live.create_room("panika_counter", "Ann")  # an open table: its match runs at once
    with ClientPool() as pool:
        phone = pool(live, created["code"])
        phone.join(token=created["token"])
        phone.drain(0.2)
        for _ in range(3):
            phone.action({"type": "tap"})
        phone.send("not json")
        phone.action({"type": "no_such_action"})
        deadline = time.monotonic() + 5
        while len([f for f in phone.frames if f["type"] in ("state", "error")]) < 6 \
                and time.monotonic() < deadline:
            phone.drain(0.2)
        gc.collect()
        after = _scrape(live)
        assert _value(after, "panic_party_rooms", game="panika_counter", status="playing") >= 1
        assert _value(after, "panic_party_connections") >= 1
    game = {"game": "panika_counter"}
    moves = _value(after, "panic_party_moves_total", by="player", **game) \
        - _value(before, "panic_party_moves_total", by="player", **game)
    assert moves == 3
    observed = _value(after, "panic_party_move_broadcast_seconds_count", **game) \
        - _value(before, "panic_party_move_broadcast_seconds_count", **game)
    assert observed == 3
    assert _value(after, "panic_party_move_broadcast_seconds_bucket", le="+Inf", **game) >= 3
    assert _value(after, "panic_party_error_frames_total", code="bad_json") \
        > _value(before, "panic_party_error_frames_total", code="bad_json")
    assert _value(after, "panic_party_gc_pause_seconds_count", generation="2") \
        > _value(before, "panic_party_gc_pause_seconds_count", generation="2")
    assert _value(after, "panic_party_saves_pending") == 0
    assert "process_resident_memory_bytes" in after


def test_metrics_are_refused_to_public_clients_and_wrong_tokens():
    assert metrics.metrics_allowed("", None, "127.0.0.1")
    assert metrics.metrics_allowed("", None, "10.1.2.3")
    assert metrics.metrics_allowed("", None, "::1")
    assert not metrics.metrics_allowed("", None, "8.8.8.8")
    assert not metrics.metrics_allowed("", None, "testclient")
    assert not metrics.metrics_allowed("", None, None)
    assert metrics.metrics_allowed("s3cret", "Bearer s3cret", "8.8.8.8")
    assert not metrics.metrics_allowed("s3cret", "Bearer wrong", "127.0.0.1")
    assert not metrics.metrics_allowed("s3cret", None, "127.0.0.1")
    assert not metrics.metrics_allowed("s3cret", "Basic s3cret", "127.0.0.1")
    assert not metrics.metrics_allowed("s3cret", "s3cret", "127.0.0.1")
    assert not metrics.metrics_allowed("s3cret", "Bearer s3cret2", "127.0.0.1")


def test_the_bearer_scheme_is_read_in_any_case():
    """Issue 25, item 13: RFC 7235 (section 2.1) makes the scheme's name case-insensitive."""
    for header in ("bearer s3cret", "BEARER s3cret", "BeArEr  s3cret"):
        assert metrics.metrics_allowed("s3cret", header, "8.8.8.8"), header


def test_metrics_with_a_token_ask_for_it(tmp_path):
    with LiveServer(tmp_path / "var", metrics_token="s3cret") as live, live.http() as http:
        refused = http.get("/metrics")
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        assert http.get("/metrics", headers={"Authorization": "Bearer nope"}).status_code == 401
        assert "panic_party_connections" in _scrape(live, Authorization="Bearer s3cret")


def test_health_is_503_while_the_schema_is_behind_the_latest_migration(live):
    from app.db.database import alembic_config, latest_revisions, migrate
    from alembic import command

    url = live.settings.resolved_database_url()
    with live.http() as http:
        healthy = http.get("/healthz")
        assert healthy.status_code == 200 and healthy.json()["schema"] is True
        command.downgrade(alembic_config(url), "-1")
        try:
            behind = http.get("/healthz")
            assert behind.status_code == 503
            body = behind.json()
            assert body["database"] is True and body["schema"] is False
            assert body["status"] == "degraded"
            assert body["schema_head"] == ",".join(latest_revisions())
            assert body["schema_revision"] not in (None, body["schema_head"])
        finally:
            migrate(url)
        assert http.get("/healthz").status_code == 200


def test_health_is_503_on_a_database_never_migrated(tmp_path):
    with LiveServer(tmp_path / "var", migrate_on_start=False) as live, live.http() as http:
        response = http.get("/healthz")
        assert response.status_code == 503
        assert response.json()["database"] is True and response.json()["schema"] is False
        assert response.json()["schema_revision"] is None


@pytest.mark.postgres
def test_a_server_started_while_the_database_was_down_becomes_healthy_once_migrated(
        postgres_url, tmp_path):
    """The start-up migration failed (the database refused): /healthz stays 503 while the schema
    is missing, and turns 200 once the database is back and the writer has migrated it, without
    any match to save."""
    from tests.db.proxy import DatabaseProxy

    with DatabaseProxy(postgres_url) as proxy:
        proxy.set_mode("refuse")
        with LiveServer(tmp_path / "var", database_url=proxy.url, database_timeout_seconds=1.0,
                        outbox_retry_max_seconds=0.5) as live, live.http() as http:
            assert http.get("/healthz").json()["database"] is False
            proxy.set_mode("forward")
            deadline = time.monotonic() + 20
            while (response := http.get("/healthz")).status_code != 200:
                assert time.monotonic() < deadline, response.json()
                time.sleep(0.2)
            assert response.json()["schema"] is True


def test_event_counts_become_prometheus_counters_and_a_cumulative_histogram(monkeypatch):
    """The plain numbers kept on the hot path come out as Prometheus metrics: system moves
    counted apart from players', latencies in cumulative buckets with their count and sum (the
    metrics' clock stands still here: the latencies are exactly the ones given)."""
    from types import SimpleNamespace

    def scraped() -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
        text = metrics.exposition(metrics.site_registry(SimpleNamespace())).decode()
        samples: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = \
                    sample.value
        return samples

    game = "metrics_test_game"
    before = scraped()
    now = time.perf_counter()
    monkeypatch.setattr(metrics, "time", SimpleNamespace(perf_counter=lambda: now))
    for delay in (0.0002, 0.003, 0.003, 7.0):
        metrics.player_move(game, SimpleNamespace(arrived=now - delay))
    metrics.system_move(game)
    metrics.error_sent("metrics_test_code")
    after = scraped()

    def grew(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert grew("panic_party_moves_total", game=game, by="player") == 4
    assert grew("panic_party_moves_total", game=game, by="system") == 1
    assert grew("panic_party_error_frames_total", code="metrics_test_code") == 1
    bucket = "panic_party_move_broadcast_seconds_bucket"
    assert grew(bucket, game=game, le="0.0005") == 1
    assert grew(bucket, game=game, le="0.0025") == 1
    assert grew(bucket, game=game, le="0.005") == 3
    assert grew(bucket, game=game, le="2.5") == 3
    assert grew(bucket, game=game, le="+Inf") == 4
    assert grew("panic_party_move_broadcast_seconds_count", game=game) == 4
    assert grew("panic_party_move_broadcast_seconds_sum", game=game) == pytest.approx(7.0062)
