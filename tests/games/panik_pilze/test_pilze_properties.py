"""Random legal games of 2 to 5 players, driven only by ``legal_actions`` (OpenSpiel-style random
simulation): every card accounted for, the display never short at a turn's start while the pile
lasts, the final scores equal an independent recount, and replay gives the same outcome."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import Move, SeededRng
from app.engine.replay import replay
from app.games.panik_pilze import GAME
from app.games.panik_pilze.cards import MUSHROOM_CARDS, MUSHROOMS
from app.games.panik_pilze.state import PilzeState

MAX_TURNS = 400


def check_cards(state: PilzeState) -> None:
    """All 60 mushroom cards once each, all 26 action cards once each; stacks show their type."""
    baskets = [c for b in state.baskets for stack in b.values() for c in stack]
    assert sorted(state.pile + state.display + baskets) == list(range(60))
    assert sorted(state.display) == sorted(state.serial)
    hands = [c for h in state.hands for c in h]
    assert sorted(hands + state.action_pile + state.action_discard) == list(range(26))
    for b in state.baskets:
        for m, stack in b.items():
            assert all(state.up[c] == m for c in stack)
    assert all(state.up[c] in MUSHROOM_CARDS[c] for c in range(60))


def recount(state: PilzeState) -> list[int]:
    """The scoring pad filled in by hand, written apart from the engine's scoring module."""
    n = state.players
    totals = [0] * n
    for m in MUSHROOMS:
        have = [len(state.baskets[s][m]) for s in range(n)]
        for s in range(n):
            if have[s] == 0:
                continue
            better = len([o for o in have if o > have[s]])
            if n == 2:
                pts = (2 if m == "panik" else 1) if better == 0 else 0
            else:
                pts = {0: 4 if m == "panik" else 3, 1: 2, 2: 1}.get(better, 0)
            totals[s] += pts
    return totals


def play_random_game(players: int, seed: bytes, choices: int, options: dict):
    chooser = random.Random(choices)
    rng = SeededRng(seed)
    state = GAME.setup(players, GAME.parse_options(options), rng)
    log: list[Move] = []
    for _ in range(MAX_TURNS):
        check_cards(state)
        if state.phase == "over":
            break
        assert len(state.display) >= 4 and state.pile
        seat = state.turn
        for other in range(players):
            if other != seat:
                assert GAME.legal_actions(state, other) == []
        legal = GAME.legal_actions(state, seat)
        assert legal
        if chooser.random() < 0.05 and options.get("turn_timer"):
            move = Move(None, GAME.parse_action({"type": "timeout"}))
        else:
            move = Move(seat, GAME.parse_action(chooser.choice(legal)))
        GAME.validate(state, move)
        GAME.apply(state, move, rng)
        log.append(Move(move.seat, move.action.model_dump(mode="json")))
    return state, log


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 5), seed=st.binary(min_size=1, max_size=8),
       choices=st.integers(0, 2**32), memory_aid=st.booleans(), timer=st.booleans())
def test_random_legal_games_keep_every_invariant_and_replay(
    players, seed, choices, memory_aid, timer
):
    options = {"memory_aid": memory_aid, "turn_timer": timer}
    state, log = play_random_game(players, seed, choices, options)
    assert state.phase == "over", "a game driven by legal_actions always ends"
    assert state.pile == [] and state.end_cause in ("draw", "refill")
    outcome = GAME.outcome(state)
    assert outcome.scores == recount(state)
    assert outcome.winners == [s for s in range(players) if outcome.scores[s] == max(outcome.scores)]
    again = replay(GAME, players, options, seed, log).state
    assert GAME.outcome(again) == outcome
    assert GAME.view(again, None) == GAME.view(state, None)
    json.dumps(GAME.view(state, 0))


def test_every_listed_legal_action_passes_validate_and_nothing_else_is_accepted() -> None:
    rng = SeededRng(b"legal")
    state = GAME.setup(4, GAME.parse_options({}), rng)
    chooser = random.Random(7)
    for _ in range(60):
        if state.phase == "over":
            break
        legal = GAME.legal_actions(state, state.turn)
        for raw in legal:
            GAME.validate(state, Move(state.turn, GAME.parse_action(raw)))
        # A Steal aimed at every (seat, type) that is not listed is refused.
        steal = next((c for c in state.hands[state.turn] if c >= 23), None)
        if steal is not None:
            listed = {(a["victim"], a["mushroom"]) for a in legal if a["type"] == "steal"}
            for victim in range(4):
                for m in MUSHROOMS:
                    raw = {"type": "steal", "card": steal, "victim": victim, "mushroom": m}
                    try:
                        GAME.validate(state, Move(state.turn, GAME.parse_action(raw)))
                        assert (victim, m) in listed
                    except Exception as exc:  # noqa: BLE001 - an engine refusal is expected
                        assert (victim, m) not in listed, exc
        GAME.step(state, Move(state.turn, GAME.parse_action(chooser.choice(legal))), rng)
