"""Bots finish matches of every player count, alone or mixed with random players, and only
ever choose actions from ``legal`` (docs/bots.md, "What the tests show")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bots import DIFFICULTIES, MAX_DELAY_MS, bot_games, make_bot, make_random_bot
from app.bots.arena import play_match
from app.engine.registry import get_game

GAMES = sorted(bot_games())


class Checked:
    """Wraps a bot: every decision must be one of the frame's legal actions, its thinking time
    bounded, and nothing decided for a seat with nothing legal."""

    def __init__(self, bot, max_delay_ms: int = MAX_DELAY_MS) -> None:
        self.bot = bot
        self.max_delay_ms = max_delay_ms
        self.decisions = 0

    def observe(self, frame):
        self.bot.observe(frame)

    def decide(self, frame):
        decision = self.bot.decide(frame)
        if decision is not None:
            assert decision.action in frame["legal"], (decision.action, frame["legal"])
            assert 0 <= decision.delay_ms <= self.max_delay_ms, decision.delay_ms
            self.decisions += 1
        return decision


def max_delay(game_id: str) -> int:
    # Panic Lab's reaction time is bounded by the search time (60 s by default), not 3 s.
    return 60_000 if game_id == "panic_lab" else MAX_DELAY_MS


def seat_mix(game_id: str, players: int, match: int) -> list[Checked]:
    """Seats alternate bots of each difficulty and random players, shifted by match."""
    seats = []
    for seat in range(players):
        kind = (seat + match) % 4
        if kind == 3 and players > 1:
            bot = make_random_bot(game_id, seat, seed=f"{match}-{seat}")
        else:
            bot = make_bot(game_id, seat, DIFFICULTIES[kind], seed=f"{match}-{seat}")
        seats.append(Checked(bot, max_delay(game_id)))
    return seats


@pytest.mark.parametrize("game_id", GAMES)
def test_mixed_matches_of_every_player_count_end_with_only_legal_actions(game_id):
    game = get_game(game_id)
    for players in game.player_counts():
        for match in range(3):
            seats = seat_mix(game_id, players, match)
            result = play_match(game_id, seats, f"{game_id}-{players}-{match}".encode())
            assert result.outcome is not None, (game_id, players, match, result.moves)
            assert result.rejected == []
            assert sum(s.decisions for s in seats) > 0


@pytest.mark.parametrize("game_id", GAMES)
def test_matches_of_bots_only_end(game_id):
    game = get_game(game_id)
    for players in game.player_counts():
        bots = [Checked(make_bot(game_id, s, "normal", seed=s), max_delay(game_id))
                for s in range(players)]
        result = play_match(game_id, bots, f"only-{players}".encode())
        assert result.outcome is not None and result.rejected == []


def test_make_bot_refuses_games_without_bots_and_unknown_difficulties():
    with pytest.raises(ValueError):
        make_bot("panika_counter", 0)
    with pytest.raises(ValueError):
        make_bot("panika", 0, "impossible")


def test_bots_use_their_own_generator_so_the_same_seed_plays_the_same_match():
    def run():
        bots = [make_bot("panika", 0, "normal", seed=7), make_bot("panika", 1, "easy", seed=8)]
        return play_match("panika", bots, b"same")

    first, second = run(), run()
    assert first.outcome == second.outcome and first.moves == second.moves


@pytest.mark.parametrize("options", [
    {"variant": "no_mutations"}, {"variant": "no_mutations_no_vents"},
    {"latency_fair": True, "target_tokens": 3}, {"search_seconds": 15, "countdown_seconds": 2},
])
def test_panic_lab_bots_end_matches_of_every_variant_and_mode(options):
    bots = [Checked(make_bot("panic_lab", s, d, s), max_delay("panic_lab"))
            for s, d in enumerate(DIFFICULTIES)]
    result = play_match("panic_lab", bots, repr(options).encode(), options)
    assert result.outcome is not None and result.rejected == []


def test_pilze_bots_end_matches_with_the_memory_aid_and_the_turn_timer():
    options = {"memory_aid": True, "turn_timer": True, "turn_seconds": 15}
    bots = [Checked(make_bot("panik_pilze", s, d, s)) for s, d in enumerate(DIFFICULTIES)]
    result = play_match("panik_pilze", bots, b"aid", options)
    assert result.outcome is not None and result.rejected == []


@settings(max_examples=25, deadline=None)
@given(game_id=st.sampled_from(GAMES), data=st.data(), seed=st.binary(min_size=1, max_size=8))
def test_any_seats_any_seed_only_legal_actions_and_the_match_ends(game_id, data, seed):
    game = get_game(game_id)
    players = data.draw(st.integers(game.min_players, min(game.max_players, 5)))
    # At least one bot: random players alone need not end a match (Panic Lab's random claims
    # lose tokens as fast as they win them).
    kinds = data.draw(st.lists(st.sampled_from([*DIFFICULTIES, "random"]),
                               min_size=players - 1, max_size=players - 1))
    kinds.insert(data.draw(st.integers(0, players - 1)), data.draw(st.sampled_from(DIFFICULTIES)))
    seats = [Checked(make_random_bot(game_id, s, s) if kind == "random"
                     else make_bot(game_id, s, kind, s), max_delay(game_id))
             for s, kind in enumerate(kinds)]
    result = play_match(game_id, seats, seed)
    assert result.outcome is not None and result.rejected == []
