"""bench/load.py's ``other_cpu``: what every other process used during a run's window, counted
process by process, so that a busy neighbour shows and the benchmark's own processes do not
(issue 22: a run over 5% is run again, not reported)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.bench_scripts import load_bench_script

BURN = """
import sys, time
end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    pass
print("burnt", flush=True)
sys.stdin.read()
"""
"""A neighbour: uses the CPU seconds it is given, says so, then waits (alive) to be let go."""


@pytest.fixture(scope="module")
def load():
    return load_bench_script("load")


def test_a_busy_neighbour_is_other_cpu_and_our_own_processes_are_not(load):
    ours = {os.getpid()}
    before = load.others_seconds(ours)
    neighbour = subprocess.Popen([sys.executable, "-c", BURN, "0.3"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert neighbour.stdout is not None and neighbour.stdout.readline() == "burnt\n"
        after = load.others_seconds(ours)
        as_ours = load.others_seconds(ours | {neighbour.pid})
    finally:
        neighbour.communicate("")
    assert os.getpid() not in after
    assert neighbour.pid in after and neighbour.pid not in as_ours
    # It started inside the window, so all of its time counts (from zero).
    assert after[neighbour.pid] >= 0.3 - 0.02
    assert load.others_used(before, after) >= 0.28


def test_others_used_counts_new_processes_whole_and_never_less_than_nothing(load):
    before = {1: 5.0, 2: 3.0, 3: 9.0}
    after = {1: 5.5, 2: 1.0, 4: 0.25}  # 2's pid went to a new process; 3 ended; 4 is new
    assert load.others_used(before, after) == pytest.approx(0.5 + 0.0 + 0.25)
