"""No database call hangs the site (issue 7, item 5): with the database refusing or silent,
``/healthz`` answers 503 within 2 s, and the match and leaderboard pages and their JSON routes
answer 503 (the site's error page for a browser, a JSON error for ``/api``) within the database's
time limit; they answer normally again once it is back."""

from __future__ import annotations

import time

import pytest

from tests.live import LiveServer

TIMEOUT = 1.0  # database_timeout_seconds of the server under test
PAGES = ["/matches", "/matches/1", "/leaderboard", "/leaderboard?game=panika"]
JSON_ROUTES = ["/api/matches", "/api/matches/1", "/api/leaderboard?game=panika"]


@pytest.fixture
def flaky_server(flaky_postgres, tmp_path):  # type: ignore[no-untyped-def]
    with LiveServer(tmp_path / "var", database_url=flaky_postgres.url,
                    database_timeout_seconds=TIMEOUT) as live:
        yield live, flaky_postgres


def _timed(http, path: str, **kwargs):  # type: ignore[no-untyped-def]
    started = time.monotonic()
    response = http.get(path, **kwargs)
    return response, time.monotonic() - started


@pytest.mark.postgres
@pytest.mark.parametrize("mode", ["refuse", "stall"])
def test_health_answers_503_within_2_seconds(flaky_server, mode):
    live, proxy = flaky_server
    with live.http() as http:
        assert http.get("/healthz").status_code == 200
        proxy.set_mode(mode)
        for _ in range(3):  # again and again: no call piles up behind a stuck one
            response, took = _timed(http, "/healthz")
            assert response.status_code == 503 and took < 2.0, (mode, took)
            assert response.json()["database"] is False
            assert response.json()["status"] == "degraded"
        proxy.set_mode("forward")
        deadline = time.monotonic() + 10
        while http.get("/healthz").status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.2)


@pytest.mark.postgres
@pytest.mark.parametrize("mode", ["refuse", "stall"])
def test_pages_and_json_answer_503_while_the_database_is_down(flaky_server, mode):
    live, proxy = flaky_server
    proxy.set_mode(mode)
    limit = 2 * TIMEOUT + 3  # connect (libpq's floor of 2 s) and a margin for a busy machine
    with live.http() as http:
        for path in PAGES:
            response, took = _timed(http, path, headers={"Accept": "text/html"})
            assert response.status_code == 503 and took < limit, (path, took)
            assert response.headers["content-type"].startswith("text/html")
            assert "<html" in response.text and "Panic" in response.text
            assert "Traceback" not in response.text and "psycopg" not in response.text
            assert response.headers["retry-after"]
        for path in JSON_ROUTES:
            response, took = _timed(http, path)
            assert response.status_code == 503 and took < limit, (path, took)
            assert response.json() == {"detail": "the database is unavailable; try again shortly"}
        proxy.set_mode("forward")
        deadline = time.monotonic() + 10
        while http.get("/api/matches").status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert http.get("/matches").status_code == 200
        assert http.get("/api/matches/1").status_code == 404


def test_sqlite_locked_answers_503_not_500(tmp_path):
    """A SQLite file locked past the busy timeout is "unavailable" too (the lock blocks readers
    only in rollback-journal mode; here the database file is replaced by a locked one)."""
    import sqlite3

    with LiveServer(tmp_path / "var", database_timeout_seconds=0.3) as live:
        db_file = tmp_path / "var" / "panic-party.sqlite3"
        live.app.state.db.engine.dispose()
        lock = sqlite3.connect(db_file, isolation_level=None)
        lock.execute("PRAGMA journal_mode=DELETE")
        lock.execute("BEGIN EXCLUSIVE")
        try:
            with live.http() as http:
                response, took = _timed(http, "/api/matches")
                assert response.status_code == 503 and took < 3
                assert http.get("/healthz").status_code == 503
        finally:
            lock.execute("ROLLBACK")
            lock.close()


@pytest.mark.postgres
def test_while_the_database_is_silent_later_requests_do_not_wait_again(flaky_server):
    """One request waits for the connect timeout; the requests right after it answer 503 at
    once (many of them at a time), and the site answers normally once the database is back."""
    from concurrent.futures import ThreadPoolExecutor

    live, proxy = flaky_server
    proxy.set_mode("stall")
    with live.http() as http:
        first, _ = _timed(http, "/api/matches")
        assert first.status_code == 503

        def one(path: str) -> tuple[int, float]:
            with live.http() as client:
                response, took = _timed(client, path, headers={"Accept": "text/html"})
                return response.status_code, took

        with ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(one, (PAGES + JSON_ROUTES) * 2))
        assert all(code == 503 for code, _ in answers), answers
        # Only an attempt that finds out whether the database is back waits (one per silent
        # spell); without that rule every one of them would wait for its own connect timeout.
        assert sum(took >= 1.5 for _, took in answers) <= 2, answers
        proxy.set_mode("forward")
        deadline = time.monotonic() + 10
        while http.get("/api/matches").status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.2)


@pytest.mark.postgres
def test_pages_do_not_hang_on_a_server_that_falls_silent_mid_conversation(flaky_server):
    """Pooled connections whose server stops answering: every route still answers 503 at its
    deadline (the stuck call is cut), then normally once the server answers again."""
    live, proxy = flaky_server
    with live.http() as http:
        for path in PAGES + JSON_ROUTES:  # every route has used the pool
            assert http.get(path).status_code in (200, 404), path
        proxy.set_mode("freeze")
        for path in PAGES + JSON_ROUTES:
            response, took = _timed(http, path, headers={"Accept": "text/html"})
            assert response.status_code == 503 and took < 2 * TIMEOUT + 3, (path, took)
        proxy.set_mode("forward")
        deadline = time.monotonic() + 10
        while http.get("/matches").status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.2)


@pytest.mark.redis
def test_health_answers_within_2_seconds_when_redis_is_silent(tmp_path):
    """With several processes, health asks Redis too, at the same time and with the same bound."""
    import os
    import secrets

    import redis

    from tests.db.proxy import DatabaseProxy

    url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        if os.environ.get("PANIC_PARTY_REQUIRE_REDIS") == "1":
            pytest.fail(f"Redis is required: {exc}")
        pytest.skip(f"Redis unreachable: {exc}")
    with DatabaseProxy(url) as proxy, LiveServer(
            tmp_path / "var", redis_url=proxy.url,
            redis_prefix=f"pp-test-{secrets.token_hex(4)}") as live, live.http() as http:
        assert http.get("/healthz").json()["redis"] is True
        proxy.set_mode("freeze")
        response, took = _timed(http, "/healthz")
        assert response.status_code == 503 and took < 2.0, took
        assert response.json()["redis"] is False and response.json()["database"] is True
        proxy.set_mode("forward")
