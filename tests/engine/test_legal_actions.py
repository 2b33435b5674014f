"""``Game.legal_actions`` for every registered game: each listed action passes ``validate``,
and random play driven only by the lists (players and the system's timers alike) keeps going
until the match ends or the step budget runs out, never stuck with nobody able to act."""

from __future__ import annotations

import random

import pytest

import app.games
from app.engine import Move, SeededRng, registry

app.games.load_all()
GAMES = sorted(g.id for g in registry.all_games())
STEPS = 600


def _choices(game, state, players):
    seats = [None, *range(players)]
    return [(seat, action) for seat in seats for action in game.legal_actions(state, seat)]


@pytest.mark.parametrize("game_id", GAMES)
def test_random_legal_play_only_sends_accepted_actions(game_id):
    game = registry.get_game(game_id)
    picker = random.Random(game_id)
    for players in (game.min_players, game.max_players):
        rng = SeededRng(f"{game_id}-{players}".encode())
        state = game.setup(players, game.parse_options({}), rng)
        for step in range(STEPS):
            if game.outcome(state) is not None:
                break
            choices = _choices(game, state, players)
            assert choices, f"{game_id}: nobody can act at step {step}"
            at_ms = 1000 * (step + 1)
            for seat, action in picker.sample(choices, min(len(choices), 8)):
                game.validate(state, Move(seat, game.parse_action(action), at_ms))
            # People act more often than timers fire: prefer a player's action.
            people = [c for c in choices if c[0] is not None]
            seat, action = picker.choice(people or choices)
            game.step(state, Move(seat, game.parse_action(action), at_ms), rng)


@pytest.mark.parametrize("game_id", GAMES)
def test_no_legal_actions_once_the_match_is_over_or_for_unknown_seats(game_id):
    game = registry.get_game(game_id)
    state = game.setup(game.min_players, game.parse_options({}), SeededRng(b"x"))
    assert game.legal_actions(state, game.max_players + 5) == []
