"""Random matches driven through the public API, replayed from seed, options and log."""

from __future__ import annotations

import json
import random

import pytest

from app.engine import IllegalAction, Move, SeededRng
from app.engine.replay import replay
from app.games.panic_lab import GAME


def play_random(seed: bytes, players: int, options: dict, driver: random.Random):
    """Play a whole match with random claims and the timers fired as the room would."""
    rng = SeededRng(seed)
    state = GAME.setup(players, GAME.parse_options(options), rng)
    log: list[Move] = []
    now = 0
    while GAME.outcome(state) is None:
        assert len(log) < 5000, "the match does not end"
        if state.phase in ("search", "settling") and driver.random() < 0.6:
            seat = driver.choice(GAME.active_seats(state))
            if driver.random() < 0.4:
                tile = state.solution.answer
            else:
                tile = driver.choice([i for i, t in enumerate(state.ring)
                                      if t.type in ("amoeba", "mutation")])
            now += driver.randint(0, 250)
            move = Move(seat, {"type": "claim", "tile": tile}, now, driver.randint(0, 450))
        else:
            (timer,) = GAME.timers(state)
            now += int(timer.seconds * 1000)
            move = Move(None, dict(timer.action), now)
        tokens_before = list(state.tokens)
        try:
            events = GAME.step(state, Move(move.seat, GAME.parse_action(move.action),
                                           move.at_ms, move.rtt_ms), rng)
        except IllegalAction:
            assert state.phase == "settling"  # a claim that came after the window
            continue
        log.append(move)
        for event in events:
            json.dumps(event.data)
        gained = [b - a for a, b in zip(tokens_before, state.tokens) if b > a]
        assert gained in ([], [1])
        assert min(state.tokens) >= 0
    return state, log


@pytest.mark.parametrize("variant", ["standard", "no_mutations", "no_mutations_no_vents"])
@pytest.mark.parametrize("latency_fair", [False, True])
def test_random_match_replays_to_the_same_views_and_outcome(variant, latency_fair):
    options = {"variant": variant, "latency_fair": latency_fair}
    seed = f"replay-{variant}-{latency_fair}".encode()
    players = 4
    state, log = play_random(seed, players, options, random.Random(seed))
    outcome = GAME.outcome(state)
    assert outcome is not None and state.tokens[outcome.winners[0]] == 5
    assert outcome.ranks[outcome.winners[0]] == 1 and outcome.ranks.count(1) == 1

    replayed = replay(GAME, players, options, seed, log).state
    assert replayed == state
    assert GAME.outcome(replayed) == outcome
    for seat in [None, *range(players)]:
        assert GAME.view(replayed, seat) == GAME.view(state, seat)
        json.dumps(GAME.view(replayed, seat))


def test_replay_through_json_log():
    seed = b"json-log"
    state, log = play_random(seed, 3, {}, random.Random(7))
    wire = json.loads(json.dumps([[m.seat, m.action, m.at_ms, m.rtt_ms] for m in log]))
    replayed = replay(GAME, 3, {}, seed, [Move(*entry) for entry in wire]).state
    assert GAME.view(replayed, None) == GAME.view(state, None)


def test_many_seeds_finish_and_differ():
    rings = set()
    for i in range(20):
        seed = f"many-{i}".encode()
        state, _ = play_random(seed, 2 + i % 9, {"target_tokens": 2}, random.Random(i))
        rings.add(state.ring)
    assert len(rings) == 20


@pytest.mark.parametrize("seed", range(12))
def test_every_listed_legal_action_validates_and_applies_without_error(seed):
    # The state frame's `legal` for every seat and the system (docs/games/panic-lab.md, "Action
    # JSON"): each listed action is accepted when it arrives inside the settle window, and a
    # walk choosing only among them ends with the winner's outcome.
    driver = random.Random(seed)
    rng = SeededRng(bytes([seed]))
    options = {"latency_fair": seed % 2 == 1, "target_tokens": 2,
               "variant": ("standard", "no_mutations", "no_mutations_no_vents")[seed % 3]}
    players = driver.randint(2, 10)
    state = GAME.setup(players, GAME.parse_options(options), rng)
    now = 0
    for _ in range(5000):
        if state.phase == "over":
            break
        now += driver.randint(0, 120)
        if state.settle_deadline_ms is not None:
            now = min(now, state.settle_deadline_ms - 1)
        listed = [(seat, action) for seat in [None, *range(players)]
                  for action in GAME.legal_actions(state, seat)]
        assert listed
        moves = [Move(seat, GAME.parse_action(a), now, driver.randint(0, 450))
                 for seat, a in listed]
        for move in moves:
            GAME.validate(state, move)
        GAME.apply(state, driver.choice(moves), rng)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [state.winner]
    assert state.tokens[state.winner] == 2
