"""Derive the hard Panique bot's table of choices by simulation with the real engine and write
it to app/games/panique/bot_table.py (docs/bots.md, "Panique").

    nice -n 10 .venv/bin/python bench/panique_table.py            # 4,000 matches, 200 playouts
    .venv/bin/python bench/panique_table.py --games 200 --playouts 40 --dry-run   # a quick look
    .venv/bin/python bench/panique_table.py --check 20000    # the table's own edge, no derivation

How: matches of two heirs, both playing the heuristic (``app.games.panique.bots.heuristic``), through
the engine's rules (``app/games/panique/rules.py``, each match its own seed). At every choice
met (the Butler's offer, the Ally's option, a rest), the state is copied once per legal option,
the option is taken, and the match is played out to its end ``--playouts`` times by two
heuristic players; the playouts of every option use the same seeds (common random numbers, so
the options are compared on the same dice as far as their paths agree). An option's gain at
that choice is its share of playouts won by the chooser minus the heuristic option's.

The choices are grouped by ``app.games.panique.bots.situation``. A situation's entry is the option
with the best mean gain, kept only when that gain is above ``--z`` standard errors (over the
choices of the situation) and the situation was met at least ``--min-points`` times: everywhere
else the heuristic stays. So the table is one step of policy improvement over the heuristic,
against the heuristic, with a guard against noise.

The matches run in ``--procs`` processes; the result does not depend on their number.

``--check N`` measures what the table alone is worth: N matches of two players through the arena
(app/bots/arena.py, as bench/bots.py plays them), the hard bot against a normal bot that never
errs (the heuristic), seats alternating, with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import math
import multiprocessing
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.games.panique.bots import heuristic, situation  # noqa: E402
from app.engine import SeededRng  # noqa: E402
from app.games.panique import rules  # noqa: E402
from app.games.panique.state import PaniqueState  # noqa: E402

OUT = ROOT / "app" / "games" / "panique" / "bot_table.py"
PLAYERS = 2


def heirs_of(state: PaniqueState) -> list[dict[str, Any]]:
    """The heirs as the view shows them (what the bot's policy reads)."""
    return [{"seat": s, "space": h.space, "life": h.life, "lost_turns": h.lost_turns,
             "vampire": h.vampire, "status": h.status} for s, h in enumerate(state.heirs)]


def options(state: PaniqueState) -> list[tuple[str, int | None]]:
    """Every legal option of the pending choice, with its target."""
    out: list[tuple[str, int | None]] = []
    for option in rules.allowed_options(state):
        if option in rules.TARGETED:
            out += [(option, t) for t in rules.ally_targets(state)]
        else:
            out.append((option, None))
    return out


def step(state: PaniqueState, rng: SeededRng) -> None:
    """One move of a heuristic player: the pending roll, or the heuristic's choice."""
    pending = state.pending
    assert pending is not None
    seat = pending.seats[0]
    if pending.purpose in rules.CHOICES:
        option, target = heuristic(heirs_of(state), seat, pending.purpose)
        rules.choose(state, option, target)
    else:
        rules.roll(state, seat, rng)


def play_out(state: PaniqueState, rng: SeededRng) -> list[int]:
    while state.phase != "over":
        step(state, rng)
    return state.winners


def choices_of(game: int, playouts: int) -> list[tuple[str, str, dict[str, float]]]:
    """One match of two heuristic players: for each choice met, its situation, the heuristic's
    option and each option's share of playouts won by the chooser."""
    rng = SeededRng(b"panique-table/%d" % game)
    state = rules.new_state(PLAYERS, 20)
    found = []
    point = 0
    while state.phase != "over":
        pending = state.pending
        assert pending is not None
        if pending.purpose in rules.CHOICES:
            seat = pending.seats[0]
            heirs = heirs_of(state)
            key = situation(heirs, seat, pending.purpose, state.turn)
            chosen, _ = heuristic(heirs, seat, pending.purpose)
            wins: dict[str, float] = {}
            for option, target in options(state):
                won = 0
                for k in range(playouts):
                    trial = copy.deepcopy(state)
                    rules.choose(trial, option, target)
                    won += seat in play_out(trial, SeededRng(b"playout/%d/%d/%d" % (game, point, k)))
                wins[option] = won / playouts
            if key is not None:
                found.append((key, chosen, wins))
            point += 1
        step(state, rng)
    return found


def _chunk(args: tuple[int, int, int]) -> list[tuple[str, str, dict[str, float]]]:
    start, stop, playouts = args
    out = []
    for game in range(start, stop):
        out += choices_of(game, playouts)
    return out


def derive(games: int, playouts: int, procs: int) -> list[tuple[str, str, dict[str, float]]]:
    size = max(1, games // (procs * 8))
    chunks = [(i, min(games, i + size), playouts) for i in range(0, games, size)]
    if procs == 1:
        results = [_chunk(c) for c in chunks]
    else:
        with multiprocessing.Pool(procs) as pool:
            results = pool.map(_chunk, chunks)
    return [item for part in results for item in part]


def table(points: list[tuple[str, str, dict[str, float]]], z: float, min_points: int
          ) -> tuple[dict[str, tuple[str, int, float, float]], list[str]]:
    """The entries (situation -> option, points, mean gain, its standard error) and a report
    line per situation."""
    gains: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    chosen_of: dict[str, str] = {}
    for key, chosen, wins in points:
        chosen_of.setdefault(key, chosen)
        for option, won in wins.items():
            gains[key][option].append(won - wins[chosen])
    entries: dict[str, tuple[str, int, float, float]] = {}
    report = []
    for key in sorted(gains):
        stats = {}
        for option, xs in gains[key].items():
            n = len(xs)
            mean = sum(xs) / n
            var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
            stats[option] = (mean, math.sqrt(var / n) if n > 1 else math.inf)
        n = len(next(iter(gains[key].values())))
        best = max(stats, key=lambda o: stats[o][0])
        mean, se = stats[best]
        keep = n >= min_points and mean > 0 and mean > z * se
        if keep:
            entries[key] = (best, n, round(100 * mean, 2), round(100 * se, 2))
        shown = " ".join(f"{o} {100 * m:+.1f}±{100 * s:.1f}" for o, (m, s) in sorted(stats.items()))
        report.append(f"{key:<24} {n:>5}  {shown}" + (f"  -> {best}" if keep else ""))
    return entries, report


def write(entries: dict[str, tuple[str, int, float, float]], games: int, playouts: int,
          z: float, min_points: int, points: int) -> None:
    lines = [
        '"""The hard Panique bot\'s choices: written by bench/panique_table.py, do not edit.',
        "",
        f"Derived from {games:,} matches of two heuristic players ({points:,} choices met),",
        f"{playouts} playouts per option, kept above {z} standard errors and {min_points} choices",
        "(the method: bench/panique_table.py; the reading: docs/bots.md, \"Panique\").",
        "",
        "situation (app.games.panique.bots.situation) -> (option, choices met, mean gain over the",
        "heuristic's option in % of matches won, its standard error in %).",
        '"""',
        "",
        "HARD_CHOICES: dict[str, tuple[str, int, float, float]] = {",
    ]
    lines += [f"    {key!r}: {value!r}," for key, value in sorted(entries.items())]
    lines.append("}")
    OUT.write_text("\n".join(lines) + "\n")


def check(games: int) -> tuple[float, float, float]:
    """The hard bot's share of wins against the heuristic (a normal bot that never errs) over
    ``games`` two-player arena matches, and its 95% Wilson interval."""
    from app.bots import make_bot
    from app.bots.arena import play_match
    from app.games import load_all

    spec = importlib.util.spec_from_file_location("bench_bots", ROOT / "bench" / "bots.py")
    assert spec is not None and spec.loader is not None
    bench_bots = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_bots)
    load_all()
    score = 0.0
    for i in range(games):
        hero = i % PLAYERS
        seats = []
        for seat in range(PLAYERS):
            bot = make_bot("panique", seat, "hard" if seat == hero else "normal",
                           f"table-check/{i}/{seat}")
            bot.careless = 0.0  # type: ignore[attr-defined]
            seats.append(bot)
        outcome = play_match("panique", seats, b"table-check/%d" % i).outcome
        assert outcome is not None
        if hero in outcome.winners:
            score += 1 / len(outcome.winners)
    low, high = bench_bots.wilson(score, games)
    return score / games, low, high


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--playouts", type=int, default=200, help="per option and choice")
    parser.add_argument("--z", type=float, default=2.5, help="standard errors a gain must pass")
    parser.add_argument("--min-points", type=int, default=10)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--dry-run", action="store_true", help="print, do not write the table")
    parser.add_argument("--check", type=int, metavar="N",
                        help="only measure the table: N matches of hard against the heuristic")
    args = parser.parse_args(argv)
    if args.check:
        started = time.process_time()
        rate, low, high = check(args.check)
        print(f"hard against the heuristic (normal never erring), 2 players, {args.check} "
              f"matches: {rate:.1%} [{low:.1%}, {high:.1%}] ({time.process_time() - started:.0f}"
              " s of CPU)")
        return 0
    started = time.perf_counter()
    points = derive(args.games, args.playouts, args.procs)
    entries, report = table(points, args.z, args.min_points)
    print(f"{len(points)} choices in {args.games} matches, {args.playouts} playouts per option "
          f"({time.perf_counter() - started:.0f} s)")
    print("situation                 met  gain over the heuristic's option (% of matches won)")
    print("\n".join(report))
    if not args.dry_run:
        write(entries, args.games, args.playouts, args.z, args.min_points, len(points))
        print(f"wrote {len(entries)} entries to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
