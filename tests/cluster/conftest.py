"""Fixtures of the several-process tests: real server processes on 127.0.0.1 sharing the real
Redis (a fresh key prefix per test) and the real PostgreSQL (a fresh database per test)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from tests.db.conftest import postgres_available, postgres_url  # noqa: F401 - fixtures
from tests.durable.conftest import opened  # noqa: F401 - a fixture
from tests.durable.process import ServerProcess

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
REQUIRE_REDIS = os.environ.get("PANIC_PARTY_REQUIRE_REDIS") == "1"
LEASE_SECONDS = 30.0
"""The nodes' leases: long, so that a node whose loop a loaded machine starves for seconds (its
renewal answered late) does not stop its rooms mid-test; a test of a crash gives the node that
dies ``CRASH_LEASE_SECONDS``."""
CRASH_LEASE_SECONDS = 1.5
"""A short lease, so that the crash of the node holding it is noticed within a couple of
seconds."""


@pytest.fixture(scope="session")
def redis_url() -> str:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        if REQUIRE_REDIS:
            pytest.fail(f"Redis is required but does not answer at {REDIS_URL}: {exc}")
        pytest.skip(f"Redis does not answer at {REDIS_URL}")
    return REDIS_URL


@pytest.fixture
def prefix(redis_url: str) -> Iterator[str]:
    """A Redis key prefix of this test's own, its keys removed afterwards."""
    name = f"pptest{secrets.token_hex(4)}"
    yield name
    r = redis.Redis.from_url(redis_url)
    for key in r.scan_iter(match=f"{name}:*"):
        r.delete(key)


@pytest.fixture
def start_node(
    tmp_path: Path, redis_url: str, prefix: str, postgres_url: str  # noqa: F811 - fixture
) -> Iterator[Callable[..., ServerProcess]]:
    """Start server processes (``start_node("a")``) of one site: one PostgreSQL database, one
    Redis prefix, one secret key (a seat token from one node is good on every node)."""
    started: list[ServerProcess] = []

    def start(name: str, **env: object) -> ServerProcess:
        settings = {"database_url": postgres_url, "redis_url": redis_url,
                    "redis_prefix": prefix, "lease_seconds": LEASE_SECONDS,
                    "secret_key": "cluster-test-secret", **env}
        node = ServerProcess(tmp_path / name / "var", **settings)
        started.append(node)
        return node.start()

    yield start
    for node in started:
        node.ensure_stopped()

