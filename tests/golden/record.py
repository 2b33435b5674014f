"""Write the golden playthroughs anew: ``python -m tests.golden.record [game id …]``.

The games that live only in the tests are installed and found as the test run finds them
(tests/conftest.py), so their playthroughs are written the same way.

Run it only when a change is meant to alter what clients see, and say in the commit which frames
changed and why (tests/golden/playthrough.py).
"""

from __future__ import annotations

import sys

import os

from app.__main__ import ensure_test_games
from app.engine import all_games, get_game
from app.games import load_all
from tests.golden.playthrough import FIXTURES, play, write_fixture


def main(ids: list[str]) -> int:
    sys.path.insert(0, os.fspath(ensure_test_games(sys.executable)))
    load_all()
    games = [get_game(i) for i in ids] if ids else all_games()
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for game in games:
        if game is None:
            print(f"no such game; known: {', '.join(g.id for g in all_games())}")
            return 2
        lines = play(game)
        write_fixture(game.id, lines)
        print(f"{game.id}: {len(lines)} frames")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
