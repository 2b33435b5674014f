"""Soak: a long run at the target load, to see the longest pause the server ever takes, the full
collection included (docs/performance.md, "How to run").

    .venv/bin/python bench/soak.py --conns 4000 --rate 2000 --minutes 30 [--full-gc-seconds 60]

It is one bench/load.py run (its own server on 127.0.0.1, Panika bots in rooms of 4 taking
state frames as the pages do, the pause probe every 10 ms)
whose window is ``--minutes`` long (at most 60) after a 5 s warm-up. ``--full-gc-seconds`` sets the server's ``GC_FULL_SECONDS``
(default: the app's, none: what survives a young pass is frozen at once, decision 0035; above 0
the older schedule, a full pass that often over what became long-lived since the previous one;
app/collector.py). The thaw pass (every 6 hours by default) falls outside a soak unless ``--thaw-seconds``
sets the server's ``GC_THAW_SECONDS`` short enough for one to fall inside (issue 22's aim: a
30-minute soak with a thaw pass forced in it: ``--thaw-seconds 300``; a due thaw pass waits
for a quiet moment, but runs anyway once four periods have passed, here 20 minutes into the
soak: app/collector.py). Printed at the end:

- ``longest pause``: the probe's worst ping round trip over the whole window (a stalled event
  loop, whatever the cause), and the longest full collection the server timed;
- the p99 (and p50, max) from an action to the last of its room's four views;
- memory per connection after the bots joined, and the server's RSS at the end (growth over the
  soak is a leak);
- what the collector schedule logged: each thaw probe's count of objects dead in cycles among
  the frozen ones (what a thaw pass would free), each thaw pass;
- ``other_cpu``: what other processes used meanwhile (on 2 cores, anything above ~10% makes the
  latencies the machine's, not the server's).

It exits 0 when the longest pause is under 50 ms and memory per connection at most 40 KB (the
aims of issue 11), else 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import load  # noqa: E402 - bench/load.py


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--conns", type=int, default=4000, help="connections (rooms of 4)")
    ap.add_argument("--rate", type=float, default=2000, help="actions per second offered")
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--full-gc-seconds", type=float, default=0,
                    help="the server's GC_FULL_SECONDS (0: the app's default, none)")
    ap.add_argument("--scenario", default="panika", choices=("panika", "counter", "pilze"))
    ap.add_argument("--thaw-seconds", type=float, default=0,
                    help="the server's GC_THAW_SECONDS (0: the app's default, 6 hours)")
    ap.add_argument("--json", default="", help="append the result as one JSON line")
    args = ap.parse_args()
    if not 0 < args.minutes <= 60 or args.conns < 4 or args.rate <= 0:
        ap.error("minutes 0..60, conns >= 4, rate > 0")
    if args.full_gc_seconds > 0:
        os.environ["GC_FULL_SECONDS"] = str(args.full_gc_seconds)
    if args.thaw_seconds > 0:
        os.environ["GC_THAW_SECONDS"] = str(args.thaw_seconds)
    argv = ["--server", "real", "--scenario", args.scenario, "--rooms", str(args.conns // 4),
            "--players", "4", "--rate", str(args.rate), "--duration", str(args.minutes * 60),
            "--warmup", "5", "--label", f"soak-{args.minutes:g}min"]
    r = load.run(load.parse_args(argv, max_duration=3600))
    print(load.summary_line(r), flush=True)
    gc_full = r.get("gc_max_ms", {}).get("2", float("nan"))
    print(f"soak: {r['conns']} connections, {r['applied_per_s']:.0f}/{args.rate:g} actions/s "
          f"for {r['window_s'] / 60:.1f} min; longest pause {r['pause_ms']:.1f} ms (probe p99 "
          f"{r['probe_p99_ms']:.2f} ms), full collections {r.get('gc_count', {}).get('2', 0)}, "
          f"the longest {gc_full:.1f} ms; action -> last view p50 {r['p50_ms']:.2f} ms, "
          f"p99 {r['p99_ms']:.2f} ms, max {r['max_ms']:.1f} ms; {r['mem_per_conn_kb']:.1f} KB "
          f"per connection, RSS {r['rss_after_mb']:.0f} MB after joining -> "
          f"{r['rss_end_mb']:.0f} MB at the end; frame {r['state_frame_bytes']:.0f} B; "
          f"other_cpu {r['other_cpu_pct']:.0f}%", flush=True)
    print("longest pauses (s into the window: ms): " + ", ".join(
        f"{at:.0f}: {ms:.0f}" for at, ms in r.get("pauses_top", [])), flush=True)
    for at, line in r.get("collector_lines", []):
        print(f"collector at {at:.0f} s: {line}", flush=True)
    if args.json:
        with open(args.json, "a") as f:
            f.write(json.dumps({**r, "argv": sys.argv[1:]}) + "\n")
    ok = r["pause_ms"] < 50 and r["mem_per_conn_kb"] <= 40
    print(f"{'PASS' if ok else 'MISS'}  soak: no pause over 50 ms, <= 40 KB per connection")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
