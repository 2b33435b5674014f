"""The code has no undefined names, unused imports or syntax errors (ruff, rules F and E9), and
the type checker finds nothing in app/ and bench/ (mypy, configured in pyproject.toml: strict on
app/engine and the room's core, app/realtime/room)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is installed with the test dependencies"
    result = subprocess.run(
        [ruff, "check", "app", "tests", "bench", "migrations"], cwd=ROOT,
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.long(30)
def test_mypy_finds_no_error_in_app_or_bench() -> None:
    """Slow (half a minute without its cache, in .mypy_cache/: a fresh clone, CI): outside the
    fast tier, and started first, so that it never runs alone at the end of a run."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "pyproject.toml"], cwd=ROOT,
        capture_output=True, text=True,
    )
    assert result.returncode == 0 and "Success: no issues found" in result.stdout, \
        result.stdout + result.stderr
