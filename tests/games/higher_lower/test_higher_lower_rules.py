"""Higher or Lower's rules (tests/game_packages/higher_lower/README.md), found through the
registry as the site finds it: a right guess scores, a wrong one costs a life, a player with no
life is out and skipped, the match ends with the deck or the last player in, and the timer says
"higher"."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import IllegalAction, Move, NotYourTurn, SeededRng, get_game, get_package
from tests.endings import said

GAME = get_game("higher_lower")


def _state(players: int = 3, lives: int = 3, **options: Any) -> Any:
    assert GAME is not None
    return GAME.setup(players, GAME.parse_options({"lives": lives, **options}),
                      SeededRng(b"higher-lower"))


def _guess(state: Any, seat: int | None, guess: str | None = None) -> list[Any]:
    action = {"type": "timeout"} if guess is None else {"type": "guess", "guess": guess}
    return GAME.step(state, Move(seat, action), SeededRng(b"unused"))  # type: ignore[union-attr]


def _right(state: Any) -> str:
    return "higher" if state.deck[-1] > state.seen[-1] else "lower"


def _wrong(state: Any) -> str:
    return "lower" if _right(state) == "higher" else "higher"


def test_it_is_registered_from_its_own_distribution_with_its_bots() -> None:
    package = get_package("higher_lower")
    assert package is not None and package.bots is not None and package.folder is not None
    assert "app" not in package.folder.parts[-3:]  # installed apart, not in the site's folder


def test_a_right_guess_scores_and_a_wrong_one_costs_a_life() -> None:
    state = _state()
    events = _guess(state, 0, _right(state))
    assert state.points == [1, 0, 0] and state.turn == 1
    assert events[0].data["msg"] == "right"
    events = _guess(state, 1, _wrong(state))
    assert state.lives == [3, 2, 3] and events[0].data["msg"] == "wrong"


def test_a_player_out_of_lives_is_skipped_and_the_last_one_in_ends_it_most_points_winning() -> None:
    state = _state(players=3, lives=1)
    _guess(state, 0, _right(state))
    events = _guess(state, 1, _wrong(state))
    assert [e.kind for e in events] == ["guess", "out"] and state.turn == 2
    _guess(state, 2, _right(state))
    assert state.turn == 0  # seat 1 is out
    events = _guess(state, 0, _wrong(state))
    assert state.over and events[-1].data == {"msg": "last_one"}
    outcome = GAME.outcome(state)  # type: ignore[union-attr]
    assert outcome is not None and outcome.winners == [0, 2]  # a tie shares the win
    assert outcome.ending == "last_player"
    assert said("higher_lower", outcome) == "One player is left: P0 and P2 win with 1 point"
    assert said("higher_lower", outcome, "de") == (
        "Einer ist übrig: P0 und P2 gewinnen mit 1 Punkt")


def test_the_deck_running_out_ends_the_match_within_its_bound() -> None:
    state = _state(players=2, lives=5)
    moves = 0
    while not state.over:
        _guess(state, state.turn, _right(state))
        moves += 1
    assert moves == GAME.max_moves == 49 and state.deck == []  # type: ignore[union-attr]
    outcome = GAME.outcome(state)  # type: ignore[union-attr]
    assert outcome is not None and outcome.ending == "deck_empty"
    assert said("higher_lower", outcome).startswith("The deck is empty: P")
    assert said("higher_lower", outcome, "de").startswith("Der Stapel ist leer: P")


def test_the_timer_says_higher_and_only_the_player_whose_turn_it_is_may_guess() -> None:
    state = _state()
    with pytest.raises(NotYourTurn):
        _guess(state, 1, "higher")
    with pytest.raises(IllegalAction):
        _guess(state, 0, None)  # the timer's action is the system's
    current, card = state.seen[-1], state.deck[-1]
    events = _guess(state, None, None)
    assert events[0].kind == "timeout" and events[1].data["guess"] == "higher"
    assert state.points[0] == (1 if card > current else 0)
    assert [t.action for t in GAME.timers(state)] == [{"type": "timeout"}]  # type: ignore[union-attr]
