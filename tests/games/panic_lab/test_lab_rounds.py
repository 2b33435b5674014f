"""Rounds and arbitration in arrival order (the default mode)."""

from __future__ import annotations

import copy

import pytest

from app.engine import IllegalAction, MalformedAction, Move
from app.games.panic_lab import GAME
from tests.endings import said

from .rings import answer, claim, start, system, wrong_tiles


def revealed(players: int = 3, reveal_at: int = 3000, **options):
    state, rng = start(players, **options)
    system(state, rng, "reveal", reveal_at)
    return state, rng


def test_game_identity_and_registry_entry():
    import app.games.panic_lab as package  # noqa: PLC0415
    from app.engine import get_package  # noqa: PLC0415

    assert GAME.id == "panic_lab" and GAME.title == "Panic Lab" and GAME.pitch
    assert (GAME.min_players, GAME.max_players) == (2, 10)
    registered = get_package("panic_lab")
    assert registered is package.PACKAGE and registered.game is GAME is package.GAME


def test_options_defaults_and_limits():
    opts = GAME.parse_options({})
    assert opts.model_dump() == {"variant": "standard", "target_tokens": 5,
                                 "countdown_seconds": 3, "search_seconds": 60,
                                 "latency_fair": False}
    for bad in ({"target_tokens": 0}, {"countdown_seconds": 6}, {"variant": "hard"},
                {"surprise": 1}):
        with pytest.raises(MalformedAction):
            GAME.parse_options(bad)
    schema = GAME.Options.model_json_schema()
    assert all("description" in prop for prop in schema["properties"].values())


@pytest.mark.parametrize("variant,size", [("standard", 25), ("no_mutations", 22),
                                          ("no_mutations_no_vents", 19)])
def test_setup_shuffles_the_variant_ring_once(variant, size):
    state, rng = start(4, variant=variant)
    assert len(state.ring) == size and state.phase == "countdown" and state.round == 1
    assert state.tokens == [0, 0, 0, 0]
    again, _ = start(4, variant=variant)
    assert again.ring == state.ring
    other, _ = start(4, seed=b"another seed", variant=variant)
    assert other.ring != state.ring
    ring_before = state.ring
    system(state, rng, "reveal", 3000)
    system(state, rng, "timeout", 63000)
    system(state, rng, "next_round", 69000)
    assert state.ring == ring_before


def test_countdown_timer_then_reveal_rolls_dice_and_records_time():
    state, rng = start(countdown_seconds=4)
    (timer,) = GAME.timers(state)
    assert timer.action == {"type": "reveal"} and timer.seconds == 4
    assert state.roll is None and state.solution is None
    events = system(state, rng, "reveal", 4012)
    assert state.phase == "search" and state.reveal_at_ms == 4012
    assert state.roll is not None and state.solution is not None
    assert events[0].kind == "reveal" and events[0].data["dice"] == state.roll.to_json()
    (timer,) = GAME.timers(state)
    assert timer.action == {"type": "timeout"} and timer.seconds == 60


def test_claim_before_reveal_is_rejected_and_changes_nothing():
    state, rng = start()
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction, match="wait for the dice"):
        claim(state, rng, 0, 5, at_ms=1000)
    assert state == before


def test_first_correct_claim_wins_the_token_immediately():
    state, rng = revealed()
    wrong = wrong_tiles(state)[0]
    claim(state, rng, 0, wrong, at_ms=3900)
    events = claim(state, rng, 1, answer(state), at_ms=4100)
    assert state.tokens == [0, 1, 0]
    assert state.phase == "result"
    assert [e.text for e in events][0] == "{seat:1} found it!"
    assert state.last_round["winner"] == 1 and state.last_round["ended_by"] == "found"
    assert state.last_round["answer"] == answer(state)
    with pytest.raises(IllegalAction, match="decided"):
        claim(state, rng, 2, answer(state), at_ms=4150)
    (timer,) = GAME.timers(state)
    assert timer.action == {"type": "next_round"} and timer.seconds == 6


def test_arrival_order_decides_not_at_ms():
    # Normal mode: the order moves reach the engine is the order; at_ms plays no part.
    state, rng = revealed()
    claim(state, rng, 2, answer(state), at_ms=5000)
    with pytest.raises(IllegalAction):
        claim(state, rng, 0, answer(state), at_ms=4000)
    assert state.tokens == [0, 0, 1]


def test_wrong_claim_costs_a_token_and_locks_the_player_out():
    state, rng = revealed()
    state.tokens[0] = 2
    events = claim(state, rng, 0, wrong_tiles(state)[0], at_ms=3500)
    assert state.tokens[0] == 1
    assert events[0].text == "{seat:0} claimed wrong and loses a token"
    assert state.locked == {0} and state.phase == "search"
    assert GAME.active_seats(state) == [1, 2]
    with pytest.raises(IllegalAction, match="already claimed"):
        claim(state, rng, 0, answer(state), at_ms=3600)
    assert state.tokens[0] == 1


def test_wrong_claim_without_tokens_stays_at_zero():
    state, rng = revealed()
    events = claim(state, rng, 1, wrong_tiles(state)[0], at_ms=3500)
    assert state.tokens == [0, 0, 0]
    assert events[0].text == "{seat:1} claimed wrong (no token to lose)"
    assert 1 in state.locked


def test_second_claim_by_the_same_player_is_rejected():
    state, rng = revealed(latency_fair=True)
    claim(state, rng, 0, answer(state), at_ms=3500, rtt_ms=100)
    assert state.phase == "settling"
    with pytest.raises(IllegalAction, match="already claimed"):
        claim(state, rng, 0, answer(state), at_ms=3510, rtt_ms=100)


def test_all_wrong_ends_the_round_without_a_token_then_next_round():
    state, rng = revealed()
    state.tokens[:] = [1, 0, 2]
    w = wrong_tiles(state)
    claim(state, rng, 0, w[0], at_ms=3500)
    claim(state, rng, 1, w[1], at_ms=3600)
    events = claim(state, rng, 2, w[2], at_ms=3700)
    assert state.phase == "result"
    assert state.tokens == [0, 0, 1]
    assert events[-1].kind == "all_wrong" and events[-1].data["answer"] == answer(state)
    last = state.last_round
    assert last["winner"] is None and last["ended_by"] == "all_wrong"
    assert [c["seat"] for c in last["claims"]] == [0, 1, 2]
    assert not any(c["correct"] for c in last["claims"])
    system(state, rng, "next_round", 9700)
    assert state.phase == "countdown" and state.round == 2
    assert state.roll is None and state.solution is None
    assert state.claims == [] and state.locked == set() and state.claimed == set()
    assert state.last_round is last


def test_timeout_shows_the_answer_without_a_token():
    state, rng = revealed()
    claim(state, rng, 0, wrong_tiles(state)[0], at_ms=3500)
    events = system(state, rng, "timeout", 63000)
    assert events[0].kind == "timeout" and events[0].text == "Time is up: nobody found it."
    assert state.phase == "result" and state.tokens == [0, 0, 0]
    assert state.last_round["ended_by"] == "timeout"
    assert state.last_round["answer"] == answer(state)
    with pytest.raises(IllegalAction):
        claim(state, rng, 1, answer(state), at_ms=63100)


def test_only_the_system_sends_system_actions():
    state, rng = start()
    for kind in ("reveal", "timeout", "settle", "next_round"):
        with pytest.raises(IllegalAction, match=f"only the system may send {kind}"):
            GAME.validate(state, Move(0, GAME.parse_action({"type": kind}), 3000))


def test_system_actions_only_in_their_phase():
    state, rng = start()
    for kind in ("timeout", "settle", "next_round"):
        with pytest.raises(IllegalAction):
            system(state, rng, kind, 1000)
    system(state, rng, "reveal", 3000)
    for kind in ("reveal", "settle", "next_round"):
        with pytest.raises(IllegalAction):
            system(state, rng, kind, 4000)


def test_the_system_does_not_claim():
    state, rng = revealed()
    with pytest.raises(IllegalAction):
        GAME.validate(state, Move(None, GAME.parse_action({"type": "claim", "tile": 1}), 4000))


def test_claim_on_a_lab_or_vent_is_rejected_as_a_misclick():
    state, rng = revealed()
    for i, tile in enumerate(state.ring):
        if tile.type in ("lab", "vent"):
            with pytest.raises(IllegalAction, match="never the answer"):
                claim(state, rng, 0, i, at_ms=3500)
    assert state.claims == [] and state.tokens == [0, 0, 0]


def test_malformed_claims():
    state, rng = revealed(variant="no_mutations_no_vents")
    with pytest.raises(MalformedAction):
        claim(state, rng, 0, 19, at_ms=3500)
    for raw in ({"type": "claim"}, {"type": "claim", "tile": -1},
                {"type": "claim", "tile": 3, "hand": "left"}, {"type": "slap"},
                {"type": "claim", "tile": "three"}):
        with pytest.raises(MalformedAction):
            GAME.parse_action(raw)
    with pytest.raises(IllegalAction, match="there is no seat 7"):
        GAME.validate(state, Move(7, GAME.parse_action({"type": "claim", "tile": 1}), 3500))


def test_match_ends_at_target_tokens_with_the_right_outcome():
    state, rng = start(3)
    t = 0
    winners = [2, 0, 2, 2, 1, 2, 2]
    for r, seat in enumerate(winners, start=1):
        t += 3000
        system(state, rng, "reveal", t)
        if seat == 0:
            claim(state, rng, 1, wrong_tiles(state)[0], at_ms=t + 300)
        events = claim(state, rng, seat, answer(state), at_ms=t + 800)
        if r < len(winners):
            assert GAME.outcome(state) is None
            t += 6000
            system(state, rng, "next_round", t)
    assert state.tokens == [1, 1, 5]  # seat 1's wrong claim in round 2 cost nothing (had none)
    assert state.phase == "over" and state.winner == 2
    assert events[-1].kind == "match_over"
    assert events[-1].text == "{seat:2} wins the match with 5 tokens!"
    outcome = GAME.outcome(state)
    assert outcome.winners == [2] and outcome.scores == [1, 1, 5]
    assert outcome.ranks == [2, 2, 1]
    assert outcome.ending == "tokens_reached" and outcome.details == {"n": 5}
    assert said("panic_lab", outcome) == "P2 wins with 5 tokens"
    assert said("panic_lab", outcome, "de") == "P2 gewinnt mit 5 Markern"
    assert GAME.timers(state) == [] and GAME.active_seats(state) == []
    assert state.last_round["winner"] == 2
    for kind in ("next_round", "reveal"):
        with pytest.raises(IllegalAction, match="over"):
            system(state, rng, kind, t + 7000)
    with pytest.raises(IllegalAction, match="over"):
        claim(state, rng, 0, answer(state), at_ms=t + 7000)


def test_target_tokens_option():
    state, rng = start(2, target_tokens=1)
    system(state, rng, "reveal", 3000)
    claim(state, rng, 1, answer(state), at_ms=3500)
    assert GAME.outcome(state).winners == [1] and state.phase == "over"


def test_active_seats_are_those_who_may_still_claim():
    state, rng = start(4)
    assert GAME.active_seats(state) == []
    system(state, rng, "reveal", 3000)
    assert GAME.active_seats(state) == [0, 1, 2, 3]
    claim(state, rng, 2, wrong_tiles(state)[0], at_ms=3500)
    assert GAME.active_seats(state) == [0, 1, 3]
    assert [t.seats for t in GAME.timers(state)] == [()]  # the table's timer, no seat's


def test_fourth_pass_mutation_room_can_be_claimed():
    from app.games.panic_lab.solver import solve  # noqa: PLC0415

    from .rings import ring, roll  # noqa: PLC0415

    state, rng = start(2)
    ring_ = ring("LY", "MC", "rts", "MS", "vts", "MP", "vcs", "LB", "LR")
    state.ring = ring_
    state.ring_json = [t.to_json() for t in ring_]
    system(state, rng, "reveal", 3000)
    state.roll = roll("yellow", "white", "rts")
    state.solution = solve(ring_, state.roll)
    claim(state, rng, 0, 1, at_ms=3800)
    assert state.tokens == [1, 0]
    assert state.last_round["reason"] == "fourth_pass"


def test_legal_actions_are_every_claimable_tile_once_the_dice_show():
    """Rulebook: labs and vents are never the answer; one claim per player per round."""
    state, rng = start(3)
    assert GAME.legal_actions(state, 0) == []  # countdown: wait for the dice
    assert GAME.legal_actions(state, None) == [{"type": "reveal"}]
    system(state, rng, "reveal", 3000)
    actions = GAME.legal_actions(state, 1)
    tiles = {a["tile"] for a in actions}
    assert tiles == {i for i, t in enumerate(state.ring) if t.type not in ("lab", "vent")}
    for action in actions:
        GAME.validate(state, Move(1, GAME.parse_action(action), 4000))
    wrong = wrong_tiles(state)[0]
    claim(state, rng, 1, wrong, 4000)
    assert GAME.legal_actions(state, 1) == []
    assert GAME.legal_actions(state, 0) == actions


def test_a_claim_from_a_seat_outside_the_table_is_refused():
    state, rng = start(3)
    system(state, rng, "reveal", 3000)
    with pytest.raises(IllegalAction, match="there is no seat 7"):
        GAME.validate(state, Move(7, GAME.parse_action({"type": "claim", "tile": 0}), 4000))
    assert GAME.legal_actions(state, 7) == []


# --- the bound (docs/games/panic-lab.md, "The bound") --------------------------------------------
def _rounds_to_the_limit(state, rng, found_by: dict[int, int]) -> list:  # type: ignore[no-untyped-def]
    """Every round to the last: round r found by seat ``found_by[r]`` (if any), the others
    timed out; returns the last round's events."""
    from app.games.panic_lab.game import MAX_ROUNDS

    at = 0
    events: list = []
    for r in range(1, MAX_ROUNDS + 1):
        assert state.round == r and GAME.outcome(state) is None
        at += 1000
        system(state, rng, "reveal", at)
        at += 1000
        if r in found_by:
            events = claim(state, rng, found_by[r], answer(state), at)
        else:
            events = system(state, rng, "timeout", at)
        if r < MAX_ROUNDS:
            system(state, rng, "next_round", at + 6000)
    return events


def test_the_last_round_ends_the_match_and_the_most_tokens_share_the_win():
    """Rounds nobody wins could go on for ever: the 250th ends the match. Seats 0 and 1 found
    one amoeba each, seat 2 none: 0 and 1 share the win; the match took no more moves than the
    game's bound, and takes none after."""
    from app.games.panic_lab.game import MAX_ROUNDS

    assert MAX_ROUNDS == 250 and GAME.max_moves == 250 * 13
    state, rng = start(3)
    events = _rounds_to_the_limit(state, rng, {1: 0, 7: 1})
    assert [e.kind for e in events] == ["timeout", "limit"]
    assert events[-1].text == "Round 250 was the last: the match is over."
    assert events[-1].data == {"round": 250}
    assert state.phase == "over" and state.winner is None and state.tokens == [1, 1, 0]
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [0, 1] and outcome.ranks == [1, 1, 3]
    assert outcome.ending == "round_limit" and outcome.details == {"n": 1, "rounds": 250}
    assert said("panic_lab", outcome) == "Round 250 was the last: P0 and P1 win with 1 token"
    assert said("panic_lab", outcome, "de") == (
        "Runde 250 war die letzte: P0 und P1 gewinnen mit 1 Marker")
    assert GAME.timers(state) == [] and GAME.legal_actions(state, None) == []
    assert all(GAME.legal_actions(state, seat) == [] for seat in range(3))
    with pytest.raises(IllegalAction):
        system(state, rng, "next_round", 10**9)


def test_a_last_round_with_no_token_anywhere_has_no_winner():
    state, rng = start(2)
    _rounds_to_the_limit(state, rng, {})
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [] and outcome.ranks == [1, 1]
    assert outcome.ending == "round_limit"
    assert said("panic_lab", outcome) == (
        "Round 250 was the last: nobody has a token, nobody wins")
    assert said("panic_lab", outcome, "de") == (
        "Runde 250 war die letzte: niemand hat einen Marker, niemand gewinnt")


def test_a_token_that_reaches_the_target_in_the_last_round_wins_as_always():
    state, rng = start(2, target_tokens=1)
    from app.games.panic_lab import game as lab

    state.round = lab.MAX_ROUNDS
    system(state, rng, "reveal", 1000)
    events = claim(state, rng, 1, answer(state), 2000)
    assert [e.kind for e in events] == ["found", "match_over"]
    assert GAME.outcome(state).winners == [1] and state.winner == 1
