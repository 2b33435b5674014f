"""The shared engine interface's helpers (what every game must pass is tests/conformance/), and
the registry: every game package is registered, so the conformance suite checks every game."""

from __future__ import annotations

from pathlib import Path

import app.games
from app.engine import all_games, get_game, ranks_from_scores
from app.games import load_all

GAMES_DIR = Path(app.games.__file__).parent


def test_competition_ranking_shares_ties() -> None:
    assert ranks_from_scores([3, 5, 3, 1]) == [2, 1, 2, 4]
    assert ranks_from_scores([0, 0]) == [1, 1]


def test_every_game_package_is_registered_under_its_name() -> None:
    """The registry, which the game lists of the tests and the site come from, holds a game for
    each package under app/games (none forgotten, none stale)."""
    load_all()
    packages = {p.parent.name for p in GAMES_DIR.glob("*/__init__.py")}
    assert {g.id for g in all_games()} >= packages and len(packages) >= 5
    assert all(get_game(name) is not None for name in packages)


def test_get_game_returns_none_for_an_unknown_id() -> None:
    assert get_game("chess") is None
