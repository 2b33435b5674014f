"""Every match has a bound (docs/decisions/0038-every-match-has-a-bound.md): each game declares
``max_moves``, the most moves a match of it can have, and its rules end every match by then,
whatever is played. Random matches, and stalling ones (whoever moves never ends the match while
another listed move would not), are played to their end with the most players the game takes:
every one of them ends, and none is longer than the bound."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine import EngineError, Game, Move

from .games import GAMES, RandomMatch, game_id

class StallingMatch(RandomMatch):
    """A match whose movers keep it going: of the listed moves, in a random order, the first
    after which the match has not ended (each tried on a copy of the match), else any."""

    def pick(self, options: list[tuple[int | None, dict[str, Any]]]
             ) -> tuple[int | None, dict[str, Any]]:
        tried = self.picker.sample(options, len(options))
        for seat, action in tried:
            state, rng = copy.deepcopy((self.state, self.rng))
            move = Move(seat, self.game.parse_action(action), self.clock + 100)
            try:
                self.game.validate(state, move)
            except EngineError:
                continue
            self.game.apply(state, move, rng)
            if self.game.outcome(state) is None:
                return seat, action
        return tried[0]


def played_to_the_end(match: RandomMatch) -> RandomMatch:
    """``match`` played until it ends (or one move past its game's bound, which fails)."""
    for _ in match.steps(limit=match.game.max_moves + 1):
        pass
    return match


def test_every_game_declares_its_bound(game: Game[Any, Any]) -> None:
    assert isinstance(type(game).__dict__.get("max_moves", game.max_moves), int)
    assert 0 < game.max_moves <= 10_000, game.id


@pytest.mark.parametrize("kind", [RandomMatch, StallingMatch], ids=["random", "stalling"])
def test_every_match_ends_within_its_games_bound(game: Game[Any, Any], kind: type) -> None:
    first = 0.5 if kind is RandomMatch else 0.0  # a staller looks at every listed move
    match = played_to_the_end(kind(game, game.max_players, {}, f"{game.id}-bound", first=first))
    assert game.outcome(match.state) is not None, (game.id, len(match.log))
    assert len(match.log) <= game.max_moves, (game.id, len(match.log))


@pytest.fixture(params=GAMES, ids=game_id)
def game(request: pytest.FixtureRequest) -> Game[Any, Any]:
    return request.param
