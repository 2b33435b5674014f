"""``python3 -m app serve`` and ``python3 -m app test``: the two set-up commands of the README;
``python3 -m app verify <match>``: the whole check of a finished match (app/verify.py).

This file runs on a bare Python 3.11+: standard library only until the project's virtual
environment exists. It creates ``.venv`` when missing, installs (or updates) the project's
dependencies when ``pyproject.toml`` changed, then runs itself again inside ``.venv``:

- ``serve``: migrate the database (SQLite under ``var/`` by default) and serve the site;
  ``serve --lan`` serves the local network (the same as the setting ``LAN=true``).
- ``test``: install what the tests need (Debian's Chromium and its headless shell for the browser tests when this runs as
  root and it is missing; axe-core from the npm registry into ``.cache/npm`` when npm is there;
  the games that live only in the tests into ``.cache/test-games``, which only the tests' Python
  path names, so ``serve`` never shows them), then run the whole test suite in parallel (pytest-xdist: ``TEST_WORKERS`` processes,
  or ``PANIC_PARTY_TEST_WORKERS``; docs/testing.md);
  ``test --fast`` runs the fast tier only (the engine, every game's rules, the bots, the room's
  core and the conformance suite: no server, database or browser), ``test --screenshots``
  runs the browser tests that take the README's screenshots and writes them into
  ``docs/screenshots/`` (a plain run writes them into the ignored ``test-results/``); extra
  arguments go to pytest.

- ``verify <match URL | id | JSON file | ->``: replay a finished match through its game's rules
  and compare every chance step, event and the outcome with its record (docs/fairness.md).

All are safe to run again: nothing is reinstalled when nothing changed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
VENV_PYTHON = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
CHROMIUM = "/usr/bin/chromium"
NPM_PREFIX = ROOT / ".cache" / "npm"
AXE_JS = NPM_PREFIX / "node_modules" / "axe-core" / "axe.min.js"


def _in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def _ensure_venv(extra: str) -> None:
    """Create ``.venv`` and install the project with ``extra`` when anything changed."""
    if not VENV_PYTHON.exists():
        print("Creating the virtual environment in .venv …", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    stamp = VENV / f".installed-{extra or 'app'}-{digest}"
    if stamp.exists():
        return
    print("Installing dependencies …", flush=True)
    pip = [str(VENV_PYTHON), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    target = f"-e{ROOT}[{extra}]" if extra else f"-e{ROOT}"
    subprocess.run([*pip, target], check=True)
    for old in VENV.glob(f".installed-{extra or 'app'}-*"):
        old.unlink()
    stamp.touch()


TEST_PACKAGES = {
    "chromium": CHROMIUM,
    "chromium-headless-shell": "/usr/bin/chromium-headless-shell",
    "nginx-light": "/usr/sbin/nginx",
}
"""Debian packages the tests use, with the file each installs: Chromium's headless shell drives
the browser tests (the whole browser runs its "Install" check, and Lighthouse); nginx runs
deploy/nginx.conf in front of two server processes (tests/cluster)."""


def _ensure_test_packages() -> None:
    """Install the missing ``TEST_PACKAGES`` when we may (root with apt); else the tests that
    need them are skipped with the reason."""
    missing = [name for name, path in TEST_PACKAGES.items() if not os.path.exists(path)]
    if not missing or os.environ.get("PANIC_PARTY_NO_BROWSER_INSTALL"):
        return
    apt = shutil.which("apt-get")
    if apt is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        print(f"Not installed: {', '.join(missing)}; the tests that need them will be skipped.",
              flush=True)
        return
    print(f"Installing {', '.join(missing)} for the tests …", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([apt, "update", "-qq"], check=False, env=env)
    subprocess.run([apt, "install", "-y", "-qq", *missing], check=False, env=env)


def _ensure_axe() -> None:
    """axe-core (from the npm registry, never a CDN) for the browser tests' accessibility
    checks, into ``.cache/npm`` when it is missing."""
    npm = shutil.which("npm")
    if AXE_JS.exists() or npm is None:
        return
    print("Installing axe-core for the accessibility checks …", flush=True)
    subprocess.run([npm, "install", "--prefix", str(NPM_PREFIX), "--no-audit", "--no-fund",
                    "axe-core@4"], check=False)


TEST_GAMES_SOURCE = ROOT / "tests" / "game_packages"
"""Games that live only in the tests, each a distribution of its own (its own pyproject.toml),
registered through the same entry points as the site's (docs/decisions/0051)."""
TEST_GAMES = ROOT / ".cache" / "test-games"
"""Where ``ensure_test_games`` installs them; the tests put it on their Python path."""
_SKIPPED = {"__pycache__", "build", "dist"}


def _test_games_digest() -> str:
    """A hash of every file of the test-only games' sources (what their install is stamped with)."""
    digest = hashlib.sha256()
    for path in sorted(TEST_GAMES_SOURCE.rglob("*")):
        parts = path.relative_to(TEST_GAMES_SOURCE).parts
        if path.is_file() and not _SKIPPED & set(parts) \
                and not any(part.endswith(".egg-info") for part in parts):
            digest.update(path.relative_to(TEST_GAMES_SOURCE).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def ensure_test_games(python: str | os.PathLike[str] = VENV_PYTHON) -> Path:
    """Install the test-only games (each folder of ``TEST_GAMES_SOURCE`` with a pyproject.toml)
    into ``TEST_GAMES`` with ``python``'s pip when their files changed (a stamp, as for .venv),
    from a copy, so the checkout is left as it was; returns the folder to put on the path. Safe
    in parallel: one process installs while the others wait on the lock."""
    import fcntl
    import tempfile

    stamp = TEST_GAMES / f".installed-{_test_games_digest()}"
    if stamp.exists():
        return TEST_GAMES
    TEST_GAMES.parent.mkdir(parents=True, exist_ok=True)
    with open(TEST_GAMES.parent / ".test-games.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists():
            return TEST_GAMES
        print("Installing the test-only games into .cache/test-games …", flush=True)
        shutil.rmtree(TEST_GAMES, ignore_errors=True)
        with tempfile.TemporaryDirectory() as scratch:
            sources = []
            for source in sorted(TEST_GAMES_SOURCE.glob("*/pyproject.toml")):
                copy = Path(scratch) / source.parent.name
                shutil.copytree(source.parent, copy, ignore=shutil.ignore_patterns(
                    "__pycache__", "build", "dist", "*.egg-info"))
                sources.append(str(copy))
            if sources:  # quiet unless it fails: the build's chatter is not the tests'
                done = subprocess.run([str(python), "-m", "pip", "install",
                                       "--disable-pip-version-check", "-q", "--no-deps",
                                       "--target", str(TEST_GAMES), *sources],
                                      capture_output=True, text=True)
                if done.returncode:
                    print(done.stdout, done.stderr, sep="\n", flush=True)
                    done.check_returncode()
        TEST_GAMES.mkdir(parents=True, exist_ok=True)
        stamp.touch()
    return TEST_GAMES


def _serve(args: list[str]) -> int:
    unknown = [a for a in args if a != "--lan"]
    if unknown:
        print(f"unknown option(s) for serve: {' '.join(unknown)}; usage: serve [--lan]")
        return 2
    if "--lan" in args:
        os.environ["LAN"] = "true"
    from app.server import main as serve

    serve()
    return 0


FAST_TIER = ("tests/engine", "tests/games", "tests/bots", "tests/realtime", "tests/conformance",
             "tests/golden")
"""Where ``test --fast`` looks; tests/conftest.py keeps only the tests there that need no live
server, process, database or browser (all of tests/conformance)."""
TEST_WORKERS = 6
"""Test processes of a whole run: more than a 2-core machine's cores, since most tests wait
(for a live server, a subprocess, a timer, Chromium) rather than compute (docs/testing.md)."""
FAST_WORKERS = 2
"""Test processes of the fast tier, whose tests compute: one per core of a small machine."""


def _pytest_args(args: list[str]) -> list[str]:
    """The pytest command line of ``test [--fast | --screenshots] [pytest arguments]``."""
    fast = "--fast" in args
    shots = "--screenshots" in args
    rest = [a for a in args if a not in ("--fast", "--screenshots")]
    paths = [a for a in rest if not a.startswith("-") and (ROOT / a.split("::")[0]).exists()]
    out: list[str] = []
    if fast:
        out.append("--fast")
        if not paths:
            out += [p for p in FAST_TIER if (ROOT / p).exists()]
    if shots:
        out.append("--screenshots")
        if not paths:
            out.append("tests/e2e")
    chosen = any(a.startswith(("-n", "--numprocesses", "--dist")) for a in rest)
    if not chosen and "no:xdist" not in rest and "-pno:xdist" not in rest:
        workers = os.environ.get("PANIC_PARTY_TEST_WORKERS") or str(
            FAST_WORKERS if fast else TEST_WORKERS)
        # worksteal: an idle process takes tests queued for a busy one (the suite's tests range
        # from a millisecond to a minute).
        out += ["-n", workers, "--dist", "worksteal"]
    return [*out, *rest]


def _keep_bytecode() -> None:
    """Compiled modules, pytest's assertion-rewritten test modules among them, are kept even
    where the environment asks for none (``PYTHONDONTWRITEBYTECODE``): without them each of the
    test processes, and each server process a test starts, compiles every module again
    (collecting the suite cost 9 s of CPU a process instead of 4; docs/testing.md). They go
    where Python looks first, ``__pycache__/`` beside each module (ignored by git): the
    installer compiled the dependencies there already, which a cache folder of our own (a
    ``PYTHONPYCACHEPREFIX``) made every process of a fresh clone's first run compile again."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


def _test(args: list[str]) -> int:
    import pytest

    _keep_bytecode()
    return pytest.main(_pytest_args(args))


def _verify(args: list[str]) -> int:
    from app.verify import main as verify

    return verify(args)


def _absolute(command: str, rest: list[str]) -> list[str]:
    """``verify``'s file argument as an absolute path: the command runs from the checkout."""
    if command != "verify":
        return rest
    return [str(Path(a).resolve()) if a != "-" and os.path.exists(a) else a for a in rest]


def main(argv: list[str]) -> int:
    command, rest = (argv[0], argv[1:]) if argv else ("serve", [])
    if command not in {"serve", "test", "verify"}:
        print("usage: python3 -m app serve [--lan] | "
              "python3 -m app test [--fast | --screenshots] [pytest arguments] | "
              "python3 -m app verify <match URL | id | JSON file | ->")
        return 2
    rest = _absolute(command, rest)
    if not _in_venv():
        _ensure_venv("test" if command == "test" else "")
        if command == "test":
            _ensure_test_packages()
            _ensure_axe()
        os.chdir(ROOT)
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), "-m", "app", command, *rest])
    os.chdir(ROOT)
    if command == "verify":
        return _verify(rest)
    return _serve(rest) if command == "serve" else _test(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
