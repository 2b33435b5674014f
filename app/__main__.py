"""``python3 -m app serve`` and ``python3 -m app test``: the two set-up commands of the README.

This file runs on a bare Python 3.11+: standard library only until the project's virtual
environment exists. It creates ``.venv`` when missing, installs (or updates) the project's
dependencies when ``pyproject.toml`` changed, then runs itself again inside ``.venv``:

- ``serve``: migrate the database (SQLite under ``var/`` by default) and serve the site.
- ``test``: install what the tests need (Debian's Chromium for the browser tests when this runs as
  root and it is missing), then run the whole test suite; extra arguments go to pytest.

Both are safe to run again: nothing is reinstalled when nothing changed.
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


def _ensure_chromium() -> None:
    """Debian's Chromium drives the browser tests; install it when we may (root with apt)."""
    if os.path.exists(CHROMIUM) or os.environ.get("PANIC_PARTY_NO_BROWSER_INSTALL"):
        return
    apt = shutil.which("apt-get")
    if apt is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        print("Chromium is not installed; the browser tests will be skipped.", flush=True)
        return
    print("Installing Chromium for the browser tests …", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([apt, "update", "-qq"], check=False, env=env)
    subprocess.run([apt, "install", "-y", "-qq", "chromium"], check=False, env=env)


def _serve() -> int:
    from app.server import main as serve

    serve()
    return 0


def _test(args: list[str]) -> int:
    import pytest

    return pytest.main(["-q", *args])


def main(argv: list[str]) -> int:
    command, rest = (argv[0], argv[1:]) if argv else ("serve", [])
    if command not in {"serve", "test"}:
        print("usage: python3 -m app serve | python3 -m app test [pytest arguments]")
        return 2
    if not _in_venv():
        _ensure_venv("test" if command == "test" else "")
        if command == "test":
            _ensure_chromium()
        os.chdir(ROOT)
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), "-m", "app", command, *rest])
    os.chdir(ROOT)
    return _serve() if command == "serve" else _test(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
