"""The shared engine interface's helpers (what every game must pass is tests/conformance/)."""

from __future__ import annotations

from app.engine import get_game, ranks_from_scores


def test_competition_ranking_shares_ties() -> None:
    assert ranks_from_scores([3, 5, 3, 1]) == [2, 1, 2, 4]
    assert ranks_from_scores([0, 0]) == [1, 1]


def test_get_game_returns_none_for_an_unknown_id() -> None:
    assert get_game("chess") is None
