"""How well the computer players play: win rates with 95% confidence intervals (docs/bots.md).

For every game with bots, N matches (default 1,000) of two players in-process (the engine, the
rules' timers on a simulated clock, each seat fed only its own state frames; app/bots/arena.py):

- the normal bot against a player choosing uniformly among its legal actions;
- the hard bot against the normal bot.

The tested bot takes seat 0 in even matches and seat 1 in odd ones; each match has its own seed
(the engines draw the first player from it). A shared victory counts 1/k for each of the k
winners. The interval is Wilson's score interval for a proportion.

    .venv/bin/python bench/bots.py                 # 1,000 matches per line
    .venv/bin/python bench/bots.py --games 200     # quicker
    .venv/bin/python bench/bots.py --game panika --players 4
    .venv/bin/python bench/bots.py --games-for panique=20000
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.bots import Bot, bot_games, make_bot, make_random_bot  # noqa: E402
from app.bots.arena import play_match  # noqa: E402
from app.games import load_all  # noqa: E402

MATCHUPS = (("normal", "random"), ("hard", "normal"))
Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for ``successes`` out of ``n``."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def player(game_id: str, seat: int, kind: str, seed: str) -> Bot:
    if kind == "random":
        return make_random_bot(game_id, seat, seed)
    return make_bot(game_id, seat, kind, seed)


def run(game_id: str, tested: str, opponent: str, games: int, players: int
        ) -> dict[str, float]:
    score = 0.0
    shared = unfinished = 0
    started = time.process_time()
    for i in range(games):
        hero = i % players
        seats = [player(game_id, s, tested if s == hero else opponent, f"{game_id}/{i}/{s}")
                 for s in range(players)]
        result = play_match(game_id, seats, f"bench/{game_id}/{tested}/{opponent}/{i}".encode())
        if result.outcome is None:
            unfinished += 1
            continue
        winners = result.outcome.winners
        if hero in winners:
            score += 1 / len(winners)
        shared += len(winners) > 1
    low, high = wilson(score, games)
    return {"rate": score / games, "low": low, "high": high, "shared": shared,
            "unfinished": unfinished, "cpu_s": time.process_time() - started}


def main(argv: list[str] | None = None) -> int:
    load_all()  # before the parser: ``--game`` chooses among the registered games with bots
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="matches per line")
    parser.add_argument("--games-for", action="append", default=[], metavar="GAME=N",
                        help="another number of matches for one game (repeatable)")
    parser.add_argument("--players", type=int, default=2,
                        help="seats per match: the tested bot and players-1 opponents")
    parser.add_argument("--game", action="append", choices=sorted(bot_games()),
                        help="only this game (repeatable)")
    args = parser.parse_args(argv)
    games_for = {k: int(v) for k, v in (item.split("=", 1) for item in args.games_for)}
    fair = 1 / args.players
    print(f"{args.players} players; a fair share is {fair:.1%}; 95% Wilson intervals")
    print(f"{'game':<12} {'bot':<7} {'against':<8} {'games':>6} {'win rate':>8}  "
          f"{'95% CI':<15} {'shared':>6} {'cpu s':>6}  verdict")
    failed = False
    for game_id in args.game or sorted(bot_games()):
        for tested, opponent in MATCHUPS:
            games = games_for.get(game_id, args.games)
            r = run(game_id, tested, opponent, games, args.players)
            better = r["low"] > fair and not r["unfinished"]
            failed |= not better
            print(f"{game_id:<12} {tested:<7} {opponent:<8} {games:>6} {r['rate']:>8.1%}  "
                  f"[{r['low']:.1%}, {r['high']:.1%}]".ljust(64)
                  + f"{r['shared']:>6} {r['cpu_s']:>6.1f}  "
                  + ("beats it" if better else "NOT clearly better")
                  + (f" ({r['unfinished']} unfinished)" if r["unfinished"] else ""),
                  flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
