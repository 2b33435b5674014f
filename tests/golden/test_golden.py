"""Every game's golden playthrough sends, to every recipient, exactly the frames it stored
(tests/golden/playthrough.py; issue 21: a redesign leaves them byte for byte the same, and a
rules change that alters them says so in its commit)."""

from __future__ import annotations

import pytest

from app.engine import all_games
from app.games import load_all
from tests.golden.playthrough import fixture, play, read_fixture

load_all()


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_the_golden_playthrough_is_unchanged(game) -> None:  # type: ignore[no-untyped-def]
    path = fixture(game.id)
    assert path.exists(), f"no golden playthrough for {game.id}: python -m tests.golden.record"
    stored = read_fixture(game.id)
    lines = play(game)
    for number, (old, new) in enumerate(zip(stored, lines, strict=False), start=1):
        assert new == old, f"{path.name}, line {number}: the frame differs\nstored: {old}\nnow:    {new}"
    assert len(lines) == len(stored), f"{path.name}: {len(stored)} frames stored, {len(lines)} now"


def test_the_playthrough_is_the_same_twice() -> None:
    """Nothing in a playthrough depends on the machine or the moment (no clock, no entropy)."""
    game = all_games()[0]
    assert play(game) == play(game)
