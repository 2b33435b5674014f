"""What each test costs, measured so that a shared machine's load matters little: the CPU time
of the test process and of every process below it (the servers it starts, Playwright's driver,
Chromium and its renderers), from the start of the test's setup to the end of its teardown, and
its wall time. A pytest plugin, off unless asked for:

    python3 -m app test -p tests.cost --cost-file=test-results/cost.jsonl

writes one JSON line per test (``test``, ``worker``, ``start``: its Unix time, ``wall``,
``cpu``: the test process's own, ``tree``: its processes' CPU in all, seconds) and prints the
costliest at the end of a run (``--cost-top``). The processes below a test process are read
from /proc (each thread's list of the children it started): a live one's time is its own and
its reaped children's (``utime + stime + cutime + cstime``), and a reaped child of the test
process counts in the process's own children's time, so a process that ends during the test is
still counted. PostgreSQL's and Redis's servers are not below a test process and are not
counted. A session-scoped fixture (the shared Chromium) counts in the test that first asks for
it, a module's fixture in its module's first and last tests; at the end of a process Chromium is
killed and its time leaves the tree (the summary counts that test's own CPU instead). Reading
the tree costs about 0.1 ms, a few with Chromium below (docs/testing.md; why CPU:
docs/decisions/0048)."""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path

import pytest

TICKS = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int | str) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may hold spaces: split after its closing one.
    return text[text.rindex(")") + 2:].split()


def _children(pid: int) -> list[int]:
    """The live children of ``pid`` (each of its threads keeps a list of those it started)."""
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in threads:
        try:
            found += [int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
        except OSError:
            continue
    return found


def tree_cpu_seconds() -> float:
    """The CPU time of this process, of its reaped children and of every live process below
    it, in seconds."""
    total = 0
    below = _children(os.getpid())
    while below:
        pid = below.pop()
        fields = _stat_fields(pid)
        if fields is None:
            continue
        # After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
        total += sum(int(value) for value in fields[11:15])
        below += _children(pid)
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return total / TICKS + own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("panic party")
    group.addoption("--cost-file", default=None,
                    help="append each test's CPU and wall time to this file, one JSON line a test")
    group.addoption("--cost-top", type=int, default=30,
                    help="how many of the costliest tests to print at the end (with --cost-file)")


def pytest_configure(config: pytest.Config) -> None:
    """A run starts its file afresh (the main process, before any worker writes)."""
    path = config.getoption("--cost-file")
    if path and not os.environ.get("PYTEST_XDIST_WORKER"):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    path = item.config.getoption("--cost-file")
    if not path:
        yield
        return
    start = time.time()
    wall, cpu, tree = time.perf_counter(), time.process_time(), tree_cpu_seconds()
    yield
    row = {"test": item.nodeid, "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
           "start": round(start, 3),
           "wall": round(time.perf_counter() - wall, 3),
           "cpu": round(time.process_time() - cpu, 3),
           "tree": round(tree_cpu_seconds() - tree, 3)}
    with open(path, "a") as out:
        out.write(json.dumps(row) + "\n")


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    path = config.getoption("--cost-file")
    if not path or os.environ.get("PYTEST_XDIST_WORKER") or not Path(path).exists():
        return
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line]
    for row in rows:  # the end of a session: Chromium, killed, leaves the tree uncounted
        row["tree"] = max(row["tree"], row["cpu"])
    rows.sort(key=lambda row: -row["tree"])
    write = terminalreporter.write_line
    write(f"cost: {len(rows)} tests, {sum(r['tree'] for r in rows):.0f} s of CPU in all "
          f"({sum(r['cpu'] for r in rows):.0f} s in the test processes), "
          f"{sum(r['wall'] for r in rows):.0f} s of wall time summed")
    folders: dict[str, float] = {}
    for row in rows:
        path = row["test"].split("::")[0].split("/")
        folder = "/".join(path[:2]) if len(path) > 2 else path[-1]
        folders[folder] = folders.get(folder, 0.0) + row["tree"]
    write("by folder: " + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in
                                    sorted(folders.items(), key=lambda pair: -pair[1])))
    for row in rows[:config.getoption("--cost-top")]:
        write(f"{row['tree']:8.1f} cpu {row['cpu']:7.1f} own {row['wall']:7.1f} wall  "
              f"{row['test']}")
