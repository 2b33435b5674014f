"""The shared engine interface: option and action parsing, ranks, and every game registered."""

from __future__ import annotations

import pytest

from pathlib import Path

import app.games
from app.engine import MalformedAction, all_games, get_game, ranks_from_scores
from app.games import load_all

GAMES_DIR = Path(app.games.__file__).parent


@pytest.fixture(autouse=True, scope="module")
def _games() -> None:
    load_all()


def test_competition_ranking_shares_ties() -> None:
    assert ranks_from_scores([3, 5, 3, 1]) == [2, 1, 2, 4]
    assert ranks_from_scores([0, 0]) == [1, 1]


def test_every_game_is_registered_with_its_player_counts() -> None:
    """Every game package under app/games registers its game under the package's name."""
    packages = {p.parent.name for p in GAMES_DIR.glob("*/__init__.py")}
    assert {g.id for g in all_games()} == packages and len(packages) >= 5
    for game in all_games():
        assert 1 <= game.min_players <= game.max_players
        assert game.title and game.pitch
        assert game.Options.model_json_schema()["type"] == "object"


def test_default_options_are_valid_for_every_game() -> None:
    for game in all_games():
        assert game.parse_options({}) == game.parse_options(None)


def test_unknown_option_and_unknown_action_are_malformed() -> None:
    for game in all_games():
        with pytest.raises(MalformedAction):
            game.parse_options({"no_such_option": 1})
        with pytest.raises(MalformedAction):
            game.parse_action({"type": "no_such_action"})
        with pytest.raises(MalformedAction):
            game.parse_action("not an object")


def test_get_game_returns_none_for_an_unknown_id() -> None:
    assert get_game("chess") is None
