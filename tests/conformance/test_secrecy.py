"""No view shows a secret: in every state a seat cannot tell from the real one (the game's
``hidden_variant``: what the seat may not see drawn again, OpenSpiel's resample from the
information state), the seat's view and legal list are exactly the same. The room builds every
frame of a seat from these alone (test_room.py), so no frame carries another seat's hand, a
draw pile, a face-down side or a secret number. A game that hides something must really redraw
it: somewhere in its matches the variant differs from the real state."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import Game, SeededRng

from .games import GAMES, game_id, matches


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_a_seat_sees_the_same_in_every_state_it_cannot_tell_apart(game: Game[Any, Any]) -> None:
    rng = SeededRng(f"secrecy-{game.id}".encode())
    redrawn = 0
    for match in matches(game, seeds=2):
        seats = [None, *range(match.players)]
        for step in match.steps(limit=200):
            if step.number % 2:
                continue
            for seat in seats:
                variant = game.hidden_variant(step.state, seat, rng)
                assert game.view(variant, seat) == game.view(step.state, seat), (
                    f"{game.id}: seat {seat}'s view shows something hidden from it "
                    f"(move {step.number})")
                assert game.legal_actions(variant, seat) == game.legal_actions(step.state, seat)
                assert game.active_seats(variant) == game.active_seats(step.state)
                redrawn += variant != step.state
    if game.hidden_information:
        assert redrawn, f"{game.id} hides something but its hidden_variant never redrew it"
    else:
        assert not redrawn, f"{game.id} says everything is public but its variants differ"
