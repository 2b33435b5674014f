"""bench/run_all.py's verdict says when a latency run measured a saturated server (its p99 is
then the queue of a server that cannot keep up on that machine, not a pause)."""

from __future__ import annotations

import pytest

from tests.bench_scripts import load_bench_script


@pytest.fixture(scope="module")
def run_all():
    return load_bench_script("run_all")


def test_a_target_run_whose_server_used_its_whole_core_is_called_saturated(run_all):
    note = run_all.saturated({"server_cpu_pct": 99.2})
    assert "99% of its one core" in note and "cannot be judged here" in note


def test_a_target_run_with_headroom_gets_no_note(run_all):
    assert run_all.saturated({"server_cpu_pct": 66.0}) == ""
    assert run_all.saturated({}) == ""


def test_the_core_a_rate_needs_follows_the_saturation_cost_per_action(run_all):
    # 648 µs of server CPU per action (Panika at saturation, 2026-12-02): 2,000 actions/s need
    # 1.3 cores, more than the one the event loop has.
    assert run_all.core_share({"server_us_per_action": 648.0}, 2000) == pytest.approx(1.296)
    assert run_all.core_share({"server_us_per_action": 136.0}, 2000) == pytest.approx(0.272)


def test_the_commit_wait_is_what_durable_rooms_add_to_the_latency_at_one_rate(run_all):
    """Issue 22: the journal's commit wait is measured as latency added at a fixed rate
    (durable minus DURABLE_ROOMS=false), not as lost throughput."""
    durable = run_all.Measured({"offered": 1000, "p50_ms": 3.5, "p99_ms": 12.0}, 1, False)
    volatile = run_all.Measured({"offered": 1000, "p50_ms": 1.25, "p99_ms": 7.0}, 2, True)
    wait = run_all.commit_wait(durable, volatile)
    assert wait["label"] == "journal-commit-wait" and wait["rate"] == 1000
    assert wait["p50_added_ms"] == 2.25 and wait["p99_added_ms"] == 5.0 and wait["noisy"]
    assert run_all.commit_wait(durable, None) is None


def test_the_commit_wait_line_is_printed_and_kept_in_the_results_file(run_all, tmp_path, capsys):
    import json
    import types

    bench = types.SimpleNamespace(out=tmp_path / "runs.jsonl")
    durable = run_all.Measured({"offered": 2000, "p50_ms": 2.0, "p99_ms": 9.0}, 1, False)
    volatile = run_all.Measured({"offered": 2000, "p50_ms": 1.5, "p99_ms": 6.0}, 1, False)
    run_all.print_commit_wait(bench, durable, volatile, 2000)
    assert "commit wait  the journal at 2000/s adds p50 +0.50 ms, p99 +3.00 ms" in \
        capsys.readouterr().out
    (line,) = bench.out.read_text().splitlines()
    assert json.loads(line)["p99_added_ms"] == 3.0
    run_all.print_commit_wait(bench, None, volatile, 1000)
    assert "not measured  the journal's commit wait at 1000/s" in capsys.readouterr().out


def _cpu_run(run_all, us: float, cpu_pct: float, applied: float = 2000.0):
    return run_all.Measured({"server_us_per_action": us, "server_cpu_pct": cpu_pct,
                             "applied_per_s": applied, "offered": 2000, "other_cpu_pct": 0.0},
                            1, False)


def _verdicts(run_all, real, bare, again=None):
    lines: list[tuple[str, bool, str]] = []
    run_all.ratio_line(lambda aim, ok, detail: lines.append((aim, ok, detail)), "the aim",
                       real, bare, 1.7, again)
    return lines


def test_a_cpu_aim_met_by_a_saturated_server_is_not_claimed(run_all, capsys):
    """A saturated server pays less per action (bigger journal batches, a loop that never
    idles) than one keeping up with the rate, so its PASS would flatter it (2026-12-03, a slow
    machine: durable Panika read 1.56x with its server at 96% of the core; 2.27x where it kept
    up)."""
    bare = _cpu_run(run_all, 300.0, 60.0)
    assert _verdicts(run_all, _cpu_run(run_all, 450.0, 96.0), bare) == []
    assert "not measured  the aim: 450 / 300 us = 1.50x" in capsys.readouterr().out
    assert _verdicts(run_all, _cpu_run(run_all, 450.0, 80.0, applied=1900.0), bare) == []
    assert "no PASS claimed" in capsys.readouterr().out


def test_a_cpu_aim_missed_by_a_saturated_server_is_still_a_miss(run_all):
    ((_, ok, detail),) = _verdicts(run_all, _cpu_run(run_all, 600.0, 96.0),
                                   _cpu_run(run_all, 300.0, 60.0))
    assert not ok and "2.00x" in detail


def test_a_cpu_aim_met_by_a_server_that_kept_up_passes(run_all):
    ((_, ok, detail),) = _verdicts(run_all, _cpu_run(run_all, 450.0, 70.0),
                                   _cpu_run(run_all, 300.0, 40.0))
    assert ok and "1.50x" in detail


def test_a_cpu_aim_missed_against_a_saturated_yardstick_is_not_claimed(run_all, capsys):
    """A slow machine (2026-12-04 16:26: the bare broadcast at 2,000/s used 88-96% of its core,
    437-491 us an action against 276-290 the day before): the yardstick's CPU per action is
    flattered as a saturated server's is, so a ratio over the aim says nothing; one under it
    still holds."""
    saturated_bare = _cpu_run(run_all, 440.0, 92.0)
    assert _verdicts(run_all, _cpu_run(run_all, 800.0, 80.0), saturated_bare) == []
    out = capsys.readouterr().out
    assert "not measured  the aim: 800 / 440 us = 1.82x" in out and "no MISS claimed" in out
    assert "smaller --scale" in out
    # behind the rate counts as not keeping up, before or after the real servers
    assert _verdicts(run_all, _cpu_run(run_all, 800.0, 80.0), _cpu_run(run_all, 440.0, 70.0),
                     _cpu_run(run_all, 440.0, 70.0, applied=1800.0)) == []
    ((_, ok, detail),) = _verdicts(run_all, _cpu_run(run_all, 600.0, 80.0), saturated_bare)
    assert ok and "1.36x" in detail


def test_the_yardstick_is_the_mean_of_the_bare_runs_before_and_after_the_real_servers(run_all):
    """The machine's speed moved within minutes (the bare broadcast 220, 266 and 271 us an action
    at three moments of 2026-12-04): the bare broadcast runs again after the real servers, and
    each CPU aim is judged against the mean of its two runs."""
    ((_, ok, detail),) = _verdicts(run_all, _cpu_run(run_all, 450.0, 70.0),
                                   _cpu_run(run_all, 290.0, 40.0), _cpu_run(run_all, 310.0, 42.0))
    assert ok and "450 / 300 us = 1.50x" in detail
    assert "the bare broadcast 290 and 310 us before and after, drift 7%" in detail


def test_a_cpu_aim_met_while_the_yardstick_drifted_is_not_claimed(run_all, capsys):
    assert _verdicts(run_all, _cpu_run(run_all, 450.0, 70.0), _cpu_run(run_all, 250.0, 40.0),
                     _cpu_run(run_all, 350.0, 42.0)) == []
    out = capsys.readouterr().out
    assert "not measured  the aim: 450 / 300 us = 1.50x" in out and "drift 33%" in out
    assert "no PASS claimed" in out
    # a miss stands whatever the drift
    ((_, ok, detail),) = _verdicts(run_all, _cpu_run(run_all, 600.0, 70.0),
                                   _cpu_run(run_all, 250.0, 40.0), _cpu_run(run_all, 350.0, 42.0))
    assert not ok and "2.00x" in detail


def test_a_run_played_in_rounds_stands_for_its_median_round(run_all, tmp_path, capsys):
    """The same code's CPU per action moved 17% between two quiet runs a minute apart: each
    fixed-rate run is played in rounds and judged by its median round, a real run whose other
    figures (latency, memory) go with it."""
    bench = run_all.Bench(run_all.argparse.Namespace(), tmp_path / "runs.jsonl")
    for cost, p99 in ((800.0, 23.0), (682.0, 34.0), (731.0, 12.0)):
        run = run_all.Measured({"label": "panika-volatile-low", "server_us_per_action": cost,
                                "p99_ms": p99}, 1, False)
        bench.runs["panika-volatile-low"] = run
        bench.rounds.setdefault("panika-volatile-low", []).append(run)
    bench.take_medians()
    chosen = bench.runs["panika-volatile-low"].result
    assert (chosen["server_us_per_action"], chosen["p99_ms"]) == (731.0, 12.0)
    assert "rounds  panika-volatile-low: 800, 682, 731 us an action; the median 731" \
        in capsys.readouterr().out



def test_an_even_number_of_rounds_is_refused_so_the_median_is_one_run(run_all, capsys):
    with pytest.raises(SystemExit):
        run_all.main(["--rounds", "2"])
    assert "an odd number of rounds" in capsys.readouterr().err
