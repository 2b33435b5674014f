"""The whole benchmark in one command (about 4 minutes on 2 cores):

    .venv/bin/python bench/run_all.py [--json results.jsonl] [--quick] [-- extra load.py options]

1. saturation, 50 rooms x 4 players, ``--rate 0``: the bare broadcast server (bench/
   bare_broadcast.py), then the real server with the Panika counter, with Panika and with Panik
   Pilze
   (``WS_MESSAGES_PER_SECOND`` raised to 100000 so that the per-connection frame limit does not
   cap a room's bots);
2. the target load on the real server: 1,000 rooms x 4 players (4,000 connections) offering
   2,000 actions/s for 20 s, with the app's default settings, Panika then the counter.

Each run is a bench/load.py process (its command is printed) that starts its own server. Then
the ratios real/bare and the targets of the issue are checked:

- saturation >= 0.6 x the bare broadcast's actions/s;
- 1,000 rooms x 4 players at 2,000 actions/s: p99 < 10 ms, no pause over 50 ms;
- <= 40 KB of server memory per connection.

``other_cpu`` in each line is the CPU used on the machine by processes outside the benchmark
during the window: with 2 cores, anything much above 10% disturbs the figures (rerun).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PYTHON = sys.executable


def machine() -> str:
    model = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return (f"{os.cpu_count()} cores ({len(os.sched_getaffinity(0))} usable), {model}, "
            f"Python {sys.version.split()[0]}, {time.strftime('%Y-%m-%d %H:%M %Z')}, "
            f"load average {os.getloadavg()[0]:.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--json", default="", help="append every run's result (one JSON line each)")
    ap.add_argument("--quick", action="store_true", help="shorter runs (a smoke test, ~2 min)")
    ap.add_argument("extra", nargs="*", help="options passed to every load.py run (after --)")
    args = ap.parse_args()

    sat_s, target_s = ("5", "10") if args.quick else ("10", "20")
    sat = ["--rooms", "50", "--players", "4", "--rate", "0", "--duration", sat_s, "--warmup", "2"]
    target = ["--rooms", "1000", "--players", "4", "--rate", "2000", "--duration", target_s,
              "--warmup", "3"]
    runs = [
        ("sat-bare", [str(BENCH / "bare_broadcast.py"), *sat]),
        ("sat-real-counter", [str(BENCH / "load.py"), "--server", "real", "--scenario", "counter",
                              "--ws-rate", "100000", *sat]),
        ("sat-real-panika", [str(BENCH / "load.py"), "--server", "real", "--scenario", "panika",
                             "--ws-rate", "100000", *sat]),
        ("sat-real-pilze", [str(BENCH / "load.py"), "--server", "real", "--scenario", "pilze",
                            "--ws-rate", "100000", *sat]),
        ("target-real-panika", [str(BENCH / "load.py"), "--server", "real", "--scenario",
                                "panika", *target]),
        ("target-real-counter", [str(BENCH / "load.py"), "--server", "real", "--scenario",
                                 "counter", *target]),
    ]
    print(f"machine: {machine()}", flush=True)
    out = Path(args.json) if args.json else Path(tempfile.mkstemp(suffix=".jsonl")[1])
    results: dict[str, dict] = {}
    started = time.monotonic()
    for label, cmd in runs:
        full = [PYTHON, *cmd, "--label", label, "--json", str(out), *args.extra]
        print("$ " + " ".join(full), flush=True)
        before = out.read_text().count("\n") if out.exists() else 0
        proc = subprocess.run(full, timeout=300, stdout=subprocess.PIPE, text=True)
        print(proc.stdout.strip(), flush=True)
        lines = out.read_text().splitlines() if out.exists() else []
        if proc.returncode != 0 or len(lines) <= before:
            print(f"!! {label} failed (exit {proc.returncode})", flush=True)
            continue
        results[label] = json.loads(lines[-1])
    print(f"total {time.monotonic() - started:.0f} s; results in {out}")

    print("\n== verdict ==")
    ok_all = True

    def check(name: str, ok: bool, detail: str) -> None:
        nonlocal ok_all
        ok_all &= ok
        print(f"{'PASS' if ok else 'MISS'}  {name}: {detail}")

    bare = results.get("sat-bare")
    for scen in ("panika", "counter"):
        real = results.get(f"sat-real-{scen}")
        if bare and real:
            ratio = real["applied_per_s"] / bare["applied_per_s"]
            check(f"saturation {scen} >= 0.6 x bare", ratio >= 0.6,
                  f"{real['applied_per_s']:.0f} / {bare['applied_per_s']:.0f} actions/s = "
                  f"{ratio:.2f}")
    pilze = results.get("sat-real-pilze")
    if bare and pilze:  # no target of the issue: reported beside the others
        print(f"info  saturation pilze: {pilze['applied_per_s']:.0f} / "
              f"{bare['applied_per_s']:.0f} actions/s = "
              f"{pilze['applied_per_s'] / bare['applied_per_s']:.2f} x bare, "
              f"{pilze['server_us_per_action']:.0f} µs server CPU per action")
    for scen in ("panika", "counter"):
        t = results.get(f"target-real-{scen}")
        if not t:
            continue
        applied_ok = t["applied_per_s"] >= 0.98 * t["offered"]
        check(f"target {scen}: 2,000 actions/s applied", applied_ok,
              f"{t['applied_per_s']:.0f}/s, late {t['late']}, errors {sum(t['errors'].values())}")
        check(f"target {scen}: p99 < 10 ms", t["p99_ms"] < 10,
              f"p50 {t['p50_ms']:.2f} ms, p99 {t['p99_ms']:.2f} ms, max {t['max_ms']:.1f} ms")
        check(f"target {scen}: no pause over 50 ms", t["pause_ms"] <= 50,
              f"probe max {t['pause_ms']:.1f} ms (p99 {t['probe_p99_ms']:.2f} ms), "
              f"full GC max {t.get('gc_max_ms', {}).get('2', float('nan'))} ms")
        check(f"target {scen}: <= 40 KB per connection", t["mem_per_conn_kb"] <= 40,
              f"{t['mem_per_conn_kb']:.1f} KB ({t['rss_before_mb']:.0f} -> "
              f"{t['rss_after_mb']:.0f} MB for {t['conns']} connections)")
    noisy = [k for k, r in results.items() if r.get("other_cpu_pct", 0) > 15]
    if noisy:
        print(f"note: other processes used the CPU during {', '.join(noisy)}: rerun for "
              "clean figures")
    return 0 if ok_all and len(results) == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
