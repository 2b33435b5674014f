"""The bots benchmark's statistics and a tiny run of it (bench/bots.py, docs/bots.md)."""

from __future__ import annotations

import pytest

from tests.bench_scripts import load_bench_script


@pytest.fixture(scope="module")
def bench():
    return load_bench_script("bots")


def test_wilson_interval_matches_the_textbook_values(bench):
    low, high = bench.wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    low, high = bench.wilson(100, 100)
    assert high == 1.0 and low == pytest.approx(0.9630, abs=1e-4)
    assert bench.wilson(0, 0) == (0.0, 1.0)


def test_a_small_run_prints_every_line(bench, capsys):
    bench.main(["--games", "4", "--game", "panic_lab", "--game", "panique"])
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith(("panic_lab", "panique"))]
    assert len(lines) == 4
    assert all("%" in line and "[" in line for line in lines)


def test_the_command_line_offers_every_game_with_bots():
    """Run as a script, nothing has loaded the games before ``--game`` is read: the script loads
    them first, so ``--game panic_lab`` is a choice and its lines print."""
    import subprocess
    import sys

    from tests.bench_scripts import BENCH

    done = subprocess.run([sys.executable, str(BENCH / "bots.py"), "--games", "2",
                           "--game", "panic_lab"], capture_output=True, text=True, timeout=120)
    assert "invalid choice" not in done.stderr, done.stderr
    assert sum(line.startswith("panic_lab") for line in done.stdout.splitlines()) == 2, done
