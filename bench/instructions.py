"""Instructions per player action on the move path, counted by callgrind: the one figure of
bench/stages.py that does not move with the machine's load (docs/performance.md, "Counting
instructions").

    .venv/bin/python bench/instructions.py                  # durable, 3 matches, ~1 minute
    .venv/bin/python bench/instructions.py --volatile       # no journal (DURABLE_ROOMS=false)
    .venv/bin/python bench/instructions.py --matches 5 --seed 2
    .venv/bin/python bench/instructions.py --game counter   # the durable counter's taps

Time on a shared machine moves by a third from run to run (bench/stages.py read 186 to 277 us
for the same code within ten minutes); instructions do not: the same code and seed count the
same to within 0.05%, whatever else the machine does, so a change of a few per cent shows.
Instructions are not time (a cache miss, a system call cost more than their count), so the
verdicts of issue 22 stay with bench/run_all.py; this is for before and after a change.

It starts itself again under ``valgrind --tool=callgrind``, uninstrumented until the imports and
a warm-up match are done, with the hash seed fixed. Then it plays the matches of
bench/stages.py (``play``: a real room, its actor, journal and frame gate, the direct writer
into counting transports) and collects only inside each player action, from the endpoint's
parse until the action's frames are out; the driver choosing the move and the rules' timer
moves are left out. Needs valgrind and a C compiler: callgrind's client requests (valgrind's
``callgrind.h``) are compiled into a small library at run time.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stages import GAMES  # noqa: E402 - the games bench/stages.py plays

REQUESTS = """#include <valgrind/callgrind.h>
void start_instrumentation(void) { CALLGRIND_START_INSTRUMENTATION; }
void stop_instrumentation(void) { CALLGRIND_STOP_INSTRUMENTATION; }
void toggle_collect(void) { CALLGRIND_TOGGLE_COLLECT; }
"""
CHILD = "PANIC_PARTY_INSTRUCTIONS_LIBRARY"


class Meter:
    """Collects between ``on`` and ``off`` (callgrind's collection state toggled)."""

    def __init__(self, library: Any) -> None:
        self.library = library
        self.actions = 0

    def on(self) -> None:
        self.actions += 1
        self.library.toggle_collect()

    def off(self) -> None:
        self.library.toggle_collect()


def child(args: argparse.Namespace) -> None:
    """Under callgrind: warm up, then play with collection around each player action."""
    import asyncio

    import stages

    from app.games import load_all

    load_all()
    stages.logging_quiet()
    library = ctypes.CDLL(os.environ[CHILD])
    asyncio.run(stages.play(argparse.Namespace(matches=1, players=args.players,
                                               volatile=args.volatile, game=args.game),
                            None, args.seed + 1))
    meter = Meter(library)
    library.start_instrumentation()
    result = asyncio.run(stages.play(args, None, args.seed, meter))
    library.stop_instrumentation()
    print(json.dumps({"actions": meter.actions, "system": result["system"],
                      "frame_bytes": result["bytes"] / max(1, result["frames"])}))


def parent(args: argparse.Namespace, argv: list[str]) -> int:
    missing = [tool for tool in ("valgrind", "cc") if shutil.which(tool) is None]
    if missing or not Path("/usr/include/valgrind/callgrind.h").exists():
        print(f"needs valgrind, its headers and a C compiler (missing: {missing or 'callgrind.h'})")
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        source, library, out = (Path(scratch) / name for name in
                                ("requests.c", "requests.so", "callgrind.out"))
        source.write_text(REQUESTS)
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(library), str(source)],
                       check=True)
        env = {**os.environ, CHILD: str(library), "PYTHONHASHSEED": "0"}
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
                   f"--callgrind-out-file={out}", sys.executable, __file__, *argv]
        run = subprocess.run(command, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stdout + run.stderr)
            return run.returncode
        played = json.loads(run.stdout.strip().splitlines()[-1])
        found = re.search(r"^totals:\s*(\d+)", out.read_text(), re.M)
        if found is None:
            print("callgrind wrote no totals")
            return 1
    instructions = int(found.group(1))
    mode = "volatile" if args.volatile else "durable"
    print(f"{mode} {args.game}, {args.players} players, {args.matches} matches, seed {args.seed}: "
          f"{played['actions']} player actions ({played['system']} timer moves not counted), "
          f"state frames {played['frame_bytes']:.0f} B on average")
    print(f"RESULT instructions_per_action={instructions / max(1, played['actions']):.0f} "
          f"instructions={instructions} actions={played['actions']} mode={mode} game={args.game}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--matches", type=int, default=3, help="matches counted")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--volatile", action="store_true", help="no journal (DURABLE_ROOMS=false)")
    ap.add_argument("--game", choices=sorted(GAMES), default="panika",
                    help="counter: bench/load.py's counter bot (bench/stages.py)")
    args = ap.parse_args(argv)
    if os.environ.get(CHILD):
        child(args)
        return 0
    return parent(args, argv)


if __name__ == "__main__":
    raise SystemExit(main())
