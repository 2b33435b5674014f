"""Random legal games of 1 to 5 heirs driven only by ``legal_actions`` and the system's timer
actions (OpenSpiel-style random simulation): every game ends, Life Points stay within 0 to 3,
positions stay on the board, a vampire heir never wins by escaping, and replay from (seed,
options, log) gives the same match."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import Move, SeededRng
from app.engine.replay import replay
from app.games.panique import GAME
from app.games.panique.state import PaniqueState
from tests.endings import said

MAX_MOVES = 3000


def check_invariants(state: PaniqueState) -> None:
    for h in state.heirs:
        assert 0 <= h.life <= 3
        assert 0 <= h.space <= 29
        assert h.lost_turns >= 0
        assert (h.life == 0) == (h.status == "out")
        assert h.status != "escaped" or (not h.vampire and h.space == 29)
    assert state.circle is None or 1 <= state.circle <= 8
    if state.phase != "over":
        seats = GAME.active_seats(state)
        assert seats and all(0 <= s < state.players for s in seats)
        assert len(GAME.timers(state)) == 1
    for seat in [*range(state.players), None]:
        for raw in GAME.legal_actions(state, seat):
            GAME.validate(state, Move(seat, GAME.parse_action(raw)))
    assert GAME.legal_actions(state, None) == [dict(t.action) for t in GAME.timers(state)]


def play_random(players: int, seed: bytes, pick: random.Random, options: dict
                ) -> tuple[PaniqueState, list[Move]]:
    rng = SeededRng(seed)
    state = GAME.setup(players, GAME.parse_options(options), rng)
    log: list[Move] = []
    for _ in range(MAX_MOVES):
        if GAME.outcome(state) is not None:
            return state, log
        check_invariants(state)
        if pick.random() < 0.1:  # the timer runs out now and then
            (timer,) = GAME.timers(state)
            move = Move(None, timer.action)
        else:
            seat = pick.choice(GAME.active_seats(state))
            move = Move(seat, pick.choice(GAME.legal_actions(state, seat)))
        GAME.step(state, Move(move.seat, GAME.parse_action(move.action)), rng)
        log.append(move)
        json.dumps(GAME.view(state, None))
    raise AssertionError(f"no end after {MAX_MOVES} moves")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(1, 5), seed=st.binary(min_size=1, max_size=16),
       pick=st.randoms(use_true_random=False), choice_seconds=st.integers(5, 60))
def test_random_legal_games_end_within_the_rules_and_replay(players, seed, pick, choice_seconds
                                                            ) -> None:
    options = {"choice_seconds": choice_seconds}
    state, log = play_random(players, seed, pick, options)
    check_invariants(state)
    outcome = GAME.outcome(state)
    assert outcome is not None and state.phase == "over"
    assert sorted(outcome.ranks)[0] == 1 and len(outcome.scores) == players
    for winner in state.winners:
        heir = state.heirs[winner]
        assert heir.status in ("in", "escaped")
        assert not (heir.vampire and heir.status == "escaped")
    if state.ending == "escape":
        assert len(state.winners) == 1 and state.heirs[state.winners[0]].space == 29
    elif state.ending == "last_alive":
        assert players >= 2 and state.living() == state.winners
    elif state.ending == "solo_death":
        assert players == 1 and state.winners == []
    else:
        assert state.ending == "solo_escape" and players == 1
    again = replay(GAME, players, options, seed, log).state
    assert GAME.view(again, None) == GAME.view(state, None)
    assert GAME.outcome(again) == outcome


def test_many_seeds_reach_every_ending() -> None:
    endings = set()
    for i in range(200):
        state, _ = play_random(1 + i % 5, b"end%d" % i, random.Random(i), {})
        endings.add(state.ending)
    assert endings == {"escape", "last_alive", "solo_escape", "solo_death"}


def test_each_ending_is_named_by_the_outcome_and_said_in_both_languages() -> None:
    """Escape, last alive, a solo escape and a solo death, each reached by a random legal game
    (dawn: test_panique_turns.py), named by the outcome and said from the catalogs."""
    sentences = {"escape": ("escapes the house and wins", "entkommt dem Haus und gewinnt"),
                 "solo_escape": ("escapes the house and wins", "entkommt dem Haus und gewinnt"),
                 "last_alive": ("is the last heir alive and wins",
                                "überlebt als letzter Erbe und gewinnt"),
                 "solo_death": ("P0 did not survive the night",
                                "P0 hat die Nacht nicht überlebt")}
    seen = set()
    for i in range(200):
        state, _ = play_random(1 + i % 5, b"end%d" % i, random.Random(i), {})
        if state.ending in seen:
            continue
        seen.add(state.ending)
        outcome = GAME.outcome(state)
        assert outcome is not None and outcome.ending == state.ending
        en, de = sentences[state.ending]
        assert en in said("panique", outcome) and de in said("panique", outcome, "de")
    assert seen == set(sentences)
