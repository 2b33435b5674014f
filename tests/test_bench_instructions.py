"""bench/instructions.py counts the instructions of the player actions only: its meter is turned
on and off around each one that bench/stages.py plays (docs/performance.md, "Counting
instructions"); valgrind itself is not run here."""

from __future__ import annotations

import argparse

from app.engine import rng as engine_rng
from tests.bench_scripts import load_bench_script
from tests.live import run_async


class CountingMeter:
    def __init__(self) -> None:
        self.ons = self.offs = 0

    def on(self) -> None:
        assert self.ons == self.offs, "turned on twice"
        self.ons += 1

    def off(self) -> None:
        assert self.ons == self.offs + 1, "turned off while off"
        self.offs += 1


def test_the_meter_is_on_around_each_player_action_and_off_between(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    stages = load_bench_script("stages")
    stages.load_all()
    monkeypatch.setattr(engine_rng, "secrets", engine_rng.secrets)  # play() seeds new_seed
    meter = CountingMeter()
    played = run_async(stages.play(argparse.Namespace(matches=1, players=4, volatile=True),
                                   None, 1, meter))
    actions = len(played["times"]) + played["dropped"]
    assert actions > 100
    assert meter.ons == meter.offs == actions


def test_the_meter_toggles_callgrinds_collection_and_counts_actions() -> None:
    instructions = load_bench_script("instructions")

    class Library:
        toggles = 0

        def toggle_collect(self) -> None:
            self.toggles += 1

    library = Library()
    meter = instructions.Meter(library)
    for _ in range(3):
        meter.on()
        meter.off()
    assert (meter.actions, library.toggles) == (3, 6)


def test_the_counter_is_played_as_the_load_benchmarks_counter_bot(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``--game counter``: the seats tap in turn up to 15, then reset; each counter ends with
    ``new_counter`` (untimed): two counters, ``COUNTER_TAPS`` player actions each."""
    stages = load_bench_script("stages")
    stages.load_all()
    monkeypatch.setattr(engine_rng, "secrets", engine_rng.secrets)
    meter = CountingMeter()
    played = run_async(stages.play(argparse.Namespace(matches=2, players=4, volatile=False,
                                                      game="counter"), None, 1, meter))
    assert meter.ons == 2 * stages.COUNTER_TAPS
    assert len(played["times"]) + played["dropped"] == 2 * stages.COUNTER_TAPS
    assert played["frames"] >= 4 * 2 * stages.COUNTER_TAPS
    state = type("State", (), {"phase": "counting", "counter": 15})()
    assert stages.choose_counter(state, 5, 4) == (1, {"type": "reset"})
    state.counter = 3
    assert stages.choose_counter(state, 6, 4) == (2, {"type": "tap"})
    assert stages.choose_counter(state, stages.COUNTER_TAPS, 4) is None
