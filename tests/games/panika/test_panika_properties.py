"""Random whole games (OpenSpiel-style random simulation), the burst number's distribution, and
replay from (seed, options, action log)."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import Move, SeededRng
from app.engine.replay import replay
from app.games.panika import GAME, rules
from app.games.panika.cards import CARD_JSON
from app.games.panika.state import PanikaState
from tests.stats import uniform_p

from .panika_helpers import random_moves, total_cards

SECRET_KEYS = {"burst_at", "burst_number", "secret", "seed", "piles", "hands"}
MAX_STEPS = 5000


def card_ids_in(obj) -> set[int]:
    """Every card id a view shows (card objects are the dicts with a "kind" key)."""
    if isinstance(obj, dict):
        found = {obj["id"]} if "kind" in obj and "id" in obj else set()
        for v in obj.values():
            found |= card_ids_in(v)
        return found
    if isinstance(obj, list):
        return set().union(*(card_ids_in(v) for v in obj)) if obj else set()
    return set()


def keys_in(obj) -> set[str]:
    if isinstance(obj, dict):
        return set(obj).union(*(keys_in(v) for v in obj.values()))
    if isinstance(obj, list):
        return set().union(*(keys_in(v) for v in obj)) if obj else set()
    return set()


def check_views(state: PanikaState) -> None:
    public = set(state.discard)
    for seat in [None, *range(state.players)]:
        view = GAME.view(state, seat)
        json.dumps(view)
        assert not SECRET_KEYS & keys_in(view)
        own = set(state.hands[seat]) if seat is not None else set()
        assert card_ids_in(view) <= own | public
        if seat is not None:
            assert [c["id"] for c in view["hand"]] == state.hands[seat]
        if view["last_burst"] is not None:
            assert view["last_burst"]["round"] < state.round or state.phase == "over"


def check_invariants(state: PanikaState) -> None:
    assert total_cards(state) == 120
    everything = [c for h in state.hands for c in h] + [c for p in state.piles for c in p]
    assert sorted(everything + state.discard) == list(range(120))
    assert all(len(h) <= 4 for h in state.hands)
    assert state.counter <= state.burst_at
    assert state.counter < state.burst_at or state.phase == "over"
    assert 21 <= state.burst_at <= 30


def random_games(max_examples: int):  # type: ignore[no-untyped-def]
    """Hypothesis over new matches: a player count, the match's seed and the choosing seed."""
    return lambda test: settings(
        max_examples=max_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    )(given(players=st.integers(2, 6), seed=st.binary(min_size=1, max_size=8),
            choices=st.integers(0, 2**32))(test))


def new_game(players: int, seed: bytes, choices: int
             ) -> tuple[random.Random, SeededRng, PanikaState]:
    """The chooser of moves, the match's generator and its first state."""
    rng = SeededRng(seed)
    return random.Random(choices), rng, GAME.setup(players, GAME.parse_options({}), rng)


@random_games(max_examples=25)
def test_random_legal_games_keep_every_invariant(players, seed, choices):
    chooser, rng, state = new_game(players, seed, choices)
    check_invariants(state)
    check_views(state)
    for _ in range(MAX_STEPS):
        if state.phase == "over":
            break
        seat, raw = chooser.choice(random_moves(state, chooser))
        GAME.step(state, Move(seat, GAME.parse_action(raw)), rng)
        check_invariants(state)
        check_views(state)
    assert state.phase == "over"
    outcome = GAME.outcome(state)
    assert outcome.winners and all(outcome.ranks[w] == 1 for w in outcome.winners)
    assert all(state.cards_left(w) == 0 for w in outcome.winners)


def test_burst_numbers_uniform_over_21_to_30():
    counts = [0] * 10
    for i in range(5000):
        state = PanikaState(players=2, turn_seconds=30, hands=[[], []], piles=[[], []])
        rules.start_round(state, SeededRng(b"burst-%d" % i))
        counts[state.burst_at - 21] += 1
    assert all(counts)
    assert uniform_p(counts) > 0.001


def test_burst_numbers_uniform_within_one_match():
    rng = SeededRng(b"one match")
    state = PanikaState(players=2, turn_seconds=30, hands=[[], []], piles=[[], []])
    counts = [0] * 10
    for _ in range(5000):
        rules.start_round(state, rng)
        counts[state.burst_at - 21] += 1
    assert uniform_p(counts) > 0.001


def test_replay_rebuilds_the_identical_match():
    seed, players, options = b"replay seed", 4, {"turn_seconds": 20}
    chooser = random.Random(7)
    rng = SeededRng(seed)
    state = GAME.setup(players, GAME.parse_options(options), rng)
    log = []
    while state.phase != "over":
        seat, raw = chooser.choice(random_moves(state, chooser))
        move = Move(seat, raw, at_ms=len(log) * 100)
        GAME.step(state, Move(seat, GAME.parse_action(raw), move.at_ms), rng)
        log.append(move)
    again = replay(GAME, players, options, seed, log).state
    for seat in [None, *range(players)]:
        assert GAME.view(again, seat) == GAME.view(state, seat)
    assert GAME.outcome(again) == GAME.outcome(state)
    assert (again.hands, again.piles, again.discard) == (state.hands, state.piles, state.discard)


def test_card_json_is_shared_and_complete():
    assert [c["id"] for c in CARD_JSON] == list(range(120))


@random_games(max_examples=10)
def test_every_listed_legal_action_validates_and_applies_without_error(players, seed, choices):
    # The state frame's `legal` (docs/games/panika.md, "Legal actions") for every seat and the
    # system: each listed action is accepted, and a walk choosing only among them never makes
    # `apply` raise (the crash fixed in 0cc04f0 was such a path); whoever must choose a card
    # always has a play listed (a Play Two player always holds two cards).
    chooser, rng, state = new_game(players, seed, choices)
    for _ in range(MAX_STEPS):
        if state.phase == "over":
            assert GAME.outcome(state) is not None and not GAME.timers(state)
            break
        listed = [(seat, action) for seat in [None, *range(players)]
                  for action in GAME.legal_actions(state, seat)]
        for seat, action in listed:
            GAME.validate(state, Move(seat, GAME.parse_action(action)))
        if state.phase == "play":
            assert any(a["type"] == "play" for a in GAME.legal_actions(state, state.turn))
            if state.play_two == state.turn:
                assert len(state.hands[state.turn]) >= 2
        seat, action = chooser.choice(listed)
        GAME.apply(state, Move(seat, GAME.parse_action(action)), rng)
        check_invariants(state)


def end_game_state(chooser: random.Random) -> PanikaState:
    """A random late position: short hands, piles mostly empty, maybe Play Two pending on the
    player to choose and the previous player's Last-card window open."""
    players = chooser.randint(2, 6)
    deck = list(range(120))
    chooser.shuffle(deck)
    hands = [[deck.pop() for _ in range(chooser.choice([1, 1, 2, 2, 3, 4]))]
             for _ in range(players)]
    piles = [[deck.pop() for _ in range(chooser.choice([0, 0, 0, 1, 2, 5]))]
             for _ in range(players)]
    state = PanikaState(
        players=players, turn_seconds=30, hands=hands, piles=piles, discard=deck,
        counter=chooser.randint(0, 20), burst_at=chooser.randint(21, 30), round=1,
        turn=chooser.randrange(players), last_card_called=[False] * players,
        penalty_cards=[0] * players, turn_serial=1)
    if chooser.random() < 0.4 and len(hands[state.turn]) >= 2:
        state.play_two = state.turn
    before = (state.turn - 1) % players
    if before != state.turn and chooser.random() < 0.6:
        # The previous player ended the turn with one card, no pile, and has not called yet.
        state.discard += hands[before][1:] + piles[before]
        del hands[before][1:], piles[before][:]
        state.window = before
    return state


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=st.integers(0, 2**32), seed=st.binary(min_size=1, max_size=8))
def test_end_games_from_random_positions_never_strand_a_player_or_crash(choices, seed):
    # The end game is where "Last card!" windows, penalties from hands and Play Two meet (the
    # crash of 0cc04f0: a window closed by its timer left a Play Two player one card). From a
    # random late position, a walk over the listed legal actions never makes `apply` raise and
    # always leaves whoever must choose a card a listed play (rulebook, "Play Two", last bullet).
    chooser = random.Random(choices)
    rng = SeededRng(seed)
    state = end_game_state(chooser)
    for _ in range(500):
        if state.phase == "over":
            break
        listed = [(seat, action) for seat in [None, *range(state.players)]
                  for action in GAME.legal_actions(state, seat)]
        for seat, action in listed:
            GAME.validate(state, Move(seat, GAME.parse_action(action)))
        if state.phase == "play":
            assert any(a["type"] == "play" for a in GAME.legal_actions(state, state.turn))
        seat, action = chooser.choice(listed)
        GAME.apply(state, Move(seat, GAME.parse_action(action)), rng)
        assert total_cards(state) == 120
