"""Shared fixtures: a live server on SQLite in a temporary folder, and its clients; the
command-line options of the test tiers (``--fast``, ``--screenshots``; docs/testing.md).

Before any test module is imported, the games that live only in the tests
(tests/game_packages/) are installed into ``.cache/test-games`` when their files changed, and
that folder is put on this process's path and on ``PYTHONPATH`` for every process a test starts
(a server, the finished matches' builder): their entry points then register them like the
site's own games, in the tests and nowhere else (docs/adding-a-game.md)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from app.__main__ import ensure_test_games


def _with_test_games() -> None:
    folder = str(ensure_test_games(sys.executable))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if folder not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([folder, *paths])
    from app.games import load_all

    load_all()


_with_test_games()

from tests.live import Client, ClientPool, LiveServer  # noqa: E402

# No per-example time limit for the property tests: an example that a loaded machine (or a
# collection of the suite's large heap) slows past Hypothesis's default 200 ms would fail the
# test as "flaky" without any rule being wrong. Each test bounds its work by max_examples.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

POSTGRES_URL = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REQUIRE_POSTGRES = os.environ.get("PANIC_PARTY_REQUIRE_POSTGRES") == "1"
REQUIRE_BROWSER = os.environ.get("PANIC_PARTY_REQUIRE_BROWSER") == "1"
TESTS = Path(__file__).resolve().parent

FAST_TIER = ("engine", "games", "bots", "realtime", "conformance", "golden")
"""The folders of the fast tier (``--fast``): their tests that need no live server, server
process, database server or browser; all of tests/conformance."""
LIVE_FIXTURES = frozenset({
    "server", "fast_server", "open_client", "open_fast", "live", "browser", "new_page",
    "start_node", "postgres_available", "postgres_url", "redis_url", "prefix",
})
"""Fixtures that serve the site, start a process or reach PostgreSQL, Redis or Chromium."""
LIVE_CLASSES = ("LiveServer", "ServerProcess")
"""A test module that builds these itself (no fixture) serves the site too."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("panic party")
    group.addoption("--fast", action="store_true",
                    help="the fast tier: only the tests of tests/" + ", tests/".join(FAST_TIER)
                    + " that need no live server, process, database or browser")
    group.addoption("--screenshots", action="store_true",
                    help="only the browser tests that take the README's screenshots, written "
                    "into docs/screenshots/ (else they go to test-results/screenshots/)")


def pytest_configure(config: pytest.Config) -> None:
    """``--fast`` tells every test process (each runs this) that the fast tier samples: the
    conformance suite then plays fewer random matches (tests/conformance/games.py)."""
    if config.getoption("--fast", default=False):
        os.environ["PANIC_PARTY_TEST_TIER"] = "fast"


def is_live(item: pytest.Item) -> bool:
    """Whether the test serves the site, starts a process or needs a service or a browser."""
    names = set(getattr(item, "fixturenames", ()))
    if names & LIVE_FIXTURES or any(n.endswith("server") for n in names):
        return True
    module = getattr(item, "module", None)
    return any(hasattr(module, cls) for cls in LIVE_CLASSES)


def _cost_class(item: pytest.Item) -> int:
    """0: a browser test (the longest: whole matches in Chromium); 1: another live test (a
    server, a process, a service); 2: the rest (milliseconds each)."""
    if item.get_closest_marker("browser") is not None:
        return 0
    return 1 if item.get_closest_marker("live") is not None else 2


def _in_fast_tier(item: pytest.Item) -> bool:
    parts = Path(str(item.path)).resolve().relative_to(TESTS).parts
    if not parts or parts[0] not in FAST_TIER:
        return False
    return parts[0] == "conformance" or item.get_closest_marker("live") is None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that ``is_live`` is marked ``live``; ``--fast`` keeps the fast tier,
    ``--screenshots`` the tests that take screenshots."""
    for item in items:
        if is_live(item):
            item.add_marker(pytest.mark.live)
    # The longest tests first (a stable sort: a module's tests stay together, sharing their
    # module's server and browser), so that in a parallel run the short ones fill the end
    # instead of one long test starting last.
    items.sort(key=_cost_class)
    keep = None
    if config.getoption("--fast"):
        keep = _in_fast_tier
    elif config.getoption("--screenshots"):
        def keep(item: pytest.Item) -> bool:
            return "screenshots" in getattr(item, "fixturenames", ())
    if keep is not None:
        kept = [item for item in items if keep(item)]
        dropped = [item for item in items if not keep(item)]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
    items[:] = spread_long_tests(items, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))


def spread_long_tests(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """The tests marked ``long(seconds)`` at the head of the slices that pytest-xdist's
    worksteal scheduler first hands its ``workers`` (each idle worker in turn gets the pending
    tests' count over the workers left, from the front; a worker runs its slice from its head,
    and others steal from its tail): every long test starts at once, the longest first, instead
    of one of them ending the run alone (docs/testing.md)."""
    marks = [(item, item.get_closest_marker("long")) for item in items]
    timed = [(mark.args[0], item) for item, mark in marks if mark is not None]
    long = [item for _, item in sorted(timed, key=lambda pair: -pair[0])]
    rest = [item for item, mark in marks if mark is None]
    if workers < 2 or not long:
        return items
    if -(-len(long) // workers) > len(items) // workers:  # too few tests to lead each slice
        return long + rest
    out: list[pytest.Item] = []
    others = iter(rest)
    left = len(items)
    for worker in range(workers):
        size = left // (workers - worker)
        head = long[worker::workers]
        out += head + [next(others) for _ in range(size - len(head))]
        left -= size
    return out


@pytest.fixture
def server(tmp_path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.5) as live:
        yield live


@pytest.fixture
def clients() -> Iterator[list[Client]]:
    """A list for clients a test opens itself; every one is closed at the end."""
    pool = ClientPool()
    with pool:
        yield pool.opened


@pytest.fixture
def open_client(server: LiveServer) -> Iterator[Callable[[str], Client]]:
    """Open real WebSocket clients of ``server``; all are closed at the end."""
    with ClientPool() as pool:
        yield lambda code: pool(server, code)


# A server without the per-connection frame limit, for bots that play whole matches as fast as
# the WebSockets carry their moves.
@pytest.fixture
def fast_server(tmp_path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.5,
                    ws_messages_per_second=100_000) as live:
        yield live


@pytest.fixture
def open_fast(fast_server: LiveServer) -> Iterator[Callable[[str], Client]]:
    with ClientPool() as pool:
        yield lambda code: pool(fast_server, code)
