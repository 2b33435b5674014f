"""Simulate Panique: N games per number of heirs (1 to 5) with simple play, and print the
distribution of game length and of the outcomes (recorded in docs/games/panique.md).

    .venv/bin/python bench/panique_sim.py              # 10,000 games per player count
    .venv/bin/python bench/panique_sim.py --games 500  # a quick look

Simple play: every roll is made; the Butler's offer is refused and the Ally's option is A (the
defaults a timer takes); an heir rests on a shared space with 1 Life Point. The games run through
the engine's own ``apply`` with the match generator (each game its own seed), without the JSON
parsing a room does.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from app.engine import Move, SeededRng
from app.games.panique import GAME
from app.games.panique.game import ChooseAction, RollAction
from app.games.panique.state import PaniqueState

ROLL = RollAction(type="roll")
CHOICE: dict[str, ChooseAction | RollAction] = {
    "butler": ChooseAction(type="choose", option="decline"),
    "ally": ChooseAction(type="choose", option="A"),
    "rest": ChooseAction(type="choose", option="rest"),
    "stay": ChooseAction(type="choose", option="stay"),
}
OPTIONS = GAME.parse_options({})


def play(players: int, seed: bytes) -> tuple[PaniqueState, int, int]:
    """One game; returns its final state, its rounds and the moves (presses) it took."""
    rng = SeededRng(seed)
    state = GAME.setup(players, OPTIONS, rng)
    rounds = moves = 0
    last_turn: int | None = None
    while state.phase != "over":
        pending = state.pending
        assert pending is not None
        seat = pending.seats[0]
        purpose = pending.purpose
        if purpose == "rest":
            action = CHOICE["rest" if state.heirs[seat].life <= 1 else "stay"]
        else:
            action = CHOICE.get(purpose, ROLL)
        if purpose == "move":
            assert state.turn is not None  # a "move" is asked of the heir whose turn it is
            if last_turn is None or state.turn <= last_turn:
                rounds += 1
            last_turn = state.turn
        GAME.apply(state, Move(seat, action), rng)
        moves += 1
    return state, rounds, moves


def percentile(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per player count")
    args = parser.parse_args()
    print(f"Panique: {args.games} games per player count, simple play")
    print("heirs | rounds mean  p10 median p90  max | turns mean | presses mean | "
          "escape  last-alive  all-dead | vampire died at the door")
    start = time.perf_counter()
    for players in range(1, 6):
        rounds_list: list[int] = []
        turns: list[int] = []
        presses: list[int] = []
        endings: Counter[str] = Counter()
        sunrise = 0
        for i in range(args.games):
            state, rounds, moves = play(players, b"panique-sim:%d:%d" % (players, i))
            rounds_list.append(rounds)
            turns.append(state.turns)
            presses.append(moves)
            endings[state.ending] += 1
            sunrise += sum(1 for h in state.heirs if h.vampire and h.space == 29 and h.life == 0)
        n = args.games
        escape = endings["escape"] + endings["solo_escape"]
        print(f"{players:5} | {statistics.mean(rounds_list):11.1f} {percentile(rounds_list, 0.1):4}"
              f" {statistics.median(rounds_list):6.0f} {percentile(rounds_list, 0.9):3}"
              f" {max(rounds_list):4} | {statistics.mean(turns):10.1f} |"
              f" {statistics.mean(presses):12.1f} | {100 * escape / n:5.1f}%"
              f" {100 * endings['last_alive'] / n:10.1f}% {100 * endings['solo_death'] / n:8.1f}% |"
              f" {100 * sunrise / n:5.2f}% of games")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
