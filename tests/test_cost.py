"""tests/cost.py counts the CPU of the processes below a test process, alive or ended: a
grandchild still running (Chromium's renderers under its browser process under Playwright's
driver) and a child that has ended (a server process stopped by its test)."""

from __future__ import annotations

import subprocess
import sys

from tests.cost import tree_cpu_seconds

BURN = """
import sys, time
end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    pass
print("burnt", flush=True)
sys.stdin.read()
"""
"""Uses the CPU seconds it is given, says so, then waits (alive) until its input closes."""


def test_a_grandchild_still_running_is_counted() -> None:
    before = tree_cpu_seconds()
    # A shell between: the burner is the test process's grandchild.
    with subprocess.Popen(["sh", "-c", f'"{sys.executable}" -c \'{BURN}\' 0.3'],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as shell:
        assert shell.stdout is not None and shell.stdout.readline() == "burnt\n"
        alive = tree_cpu_seconds() - before
        shell.communicate("")
    assert alive >= 0.3


def test_a_child_that_has_ended_is_counted() -> None:
    before = tree_cpu_seconds()
    subprocess.run([sys.executable, "-c", BURN, "0.3"], input="", capture_output=True, check=True)
    assert tree_cpu_seconds() - before >= 0.3
