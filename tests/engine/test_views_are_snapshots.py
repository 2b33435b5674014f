"""Every game's views are snapshots: a view (the revealed view too) and a legal-action list
returned after one move are never changed by the moves after it. The room keeps each seat's
last frame and sends delta clients a patch from it (docs/protocol.md, "Delta state frames"); a
view sharing a list or a dict with the state would change in place, and the patch would miss
what changed."""

from __future__ import annotations

import copy
import random

import pytest

import app.games
from app.engine import Move, SeededRng, registry

app.games.load_all()
GAMES = sorted(g.id for g in registry.all_games())
STEPS = 400


@pytest.mark.parametrize("game_id", GAMES)
def test_views_and_legal_lists_are_not_changed_by_later_moves(game_id):
    game = registry.get_game(game_id)
    picker = random.Random(f"snapshots-{game_id}")
    for players in (game.min_players, game.max_players):
        rng = SeededRng(f"snapshots-{game_id}-{players}".encode())
        state = game.setup(players, game.parse_options({}), rng)
        seats = [None, *range(players)]
        for step in range(STEPS):
            held = [(seat, game.views(state, seats)[seat], game.legal_actions(state, seat))
                    for seat in seats]
            held.append(("revealed", game.revealed_view(state), []))  # a replay's, too
            kept = copy.deepcopy(held)
            if game.outcome(state) is not None:
                break
            choices = [(seat, action) for seat in seats
                       for action in game.legal_actions(state, seat)]
            people = [c for c in choices if c[0] is not None]
            seat, action = picker.choice(people or choices)
            game.step(state, Move(seat, game.parse_action(action), 1000 * (step + 1)), rng)
            for (who, view, legal), (_, view_then, legal_then) in zip(held, kept, strict=True):
                assert view == view_then, f"{game_id}: seat {who}'s view of step {step} changed"
                assert legal == legal_then, f"{game_id}: seat {who}'s legal list changed"
