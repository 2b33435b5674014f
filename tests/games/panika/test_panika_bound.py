"""Panika's bound (docs/games/panika.md, "The bound"): its rules end every match within
``MAX_MOVES`` moves without a limit of their own. Players who make a match as long as they can
(the play that owes the most taps, every tap one by one, every "Last card!" call that counts,
the system's moves only when nobody else may move) still end it within the bound, on every
number of seats; and each kind of move stays within its share of the count the bound is made
of."""

from __future__ import annotations

from collections import Counter

import pytest

from app.engine import Move, SeededRng
from app.games.panika import GAME
from app.games.panika.cards import DECK_SIZE
from app.games.panika.rules import MAX_MOVES, play_effect


def longest_move(state, players: int) -> tuple[int | None, dict]:  # type: ignore[no-untyped-def]
    """The move that keeps the match going longest: a call that counts, else a tap, else the
    play that owes the most taps (two cards before one); the system only when nobody may move."""
    listed = [(seat, action) for seat in range(players)
              for action in GAME.legal_actions(state, seat)]
    for kind in ("last_card", "tap"):
        found = [(seat, a) for seat, a in listed if a["type"] == kind]
        if found:
            return found[0]
    plays = [(seat, a) for seat, a in listed if a["type"] == "play"]
    if plays:
        return max(plays, key=lambda p: (play_effect(p[1]["cards"])[0], len(p[1]["cards"])))
    timers = GAME.legal_actions(state, None)
    assert timers, "nobody may move and no timer runs"
    return None, timers[-1]  # a window's close before a timeout: one more move


@pytest.mark.parametrize("players", range(GAME.min_players, GAME.max_players + 1))
def test_the_longest_play_ends_within_the_bound(players: int) -> None:
    assert GAME.max_moves == MAX_MOVES
    for seed in range(3):
        rng = SeededRng(b"longest-%d-%d" % (players, seed))
        state = GAME.setup(players, GAME.parse_options({}), rng)
        kinds: Counter[str] = Counter()
        at_ms = 0
        while GAME.outcome(state) is None:
            assert sum(kinds.values()) < MAX_MOVES, kinds
            seat, action = longest_move(state, players)
            at_ms += 500
            events = GAME.step(state, Move(seat, GAME.parse_action(action), at_ms), rng)
            kinds[action["type"]] += 1
            kinds["void"] += sum(1 for e in events if e.kind == "void")
        # The shares the bound adds up (docs/games/panika.md, "The bound").
        assert kinds["play"] + kinds["timeout"] - kinds["void"] <= DECK_SIZE
        assert kinds["tap"] + kinds["auto_tap"] <= 15 * DECK_SIZE
        assert kinds["close_last_card"] <= DECK_SIZE
        assert sum(kinds.values()) - kinds["void"] <= MAX_MOVES
        assert kinds["tap"] > 2 * kinds["play"], kinds  # it did tap the most it could
