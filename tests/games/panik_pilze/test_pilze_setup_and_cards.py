"""Components and setup (rulebook "Components", "Setup"; docs/games/panik-pilze.md, decisions
1 to 4)."""

from collections import Counter

import pytest

from app.engine import SeededRng
from app.games.panik_pilze import GAME
from app.games.panik_pilze.cards import ACTION_CARDS, MUSHROOM_CARDS, MUSHROOMS

from .pilze_helpers import build


def test_sixty_mushroom_cards_every_pair_of_two_types_six_times() -> None:
    pairs = Counter(frozenset(c) for c in MUSHROOM_CARDS)
    assert len(MUSHROOM_CARDS) == 60
    assert len(pairs) == 10 and set(pairs.values()) == {6}
    assert all(a != b for a, b in MUSHROOM_CARDS)
    assert MUSHROOMS == ("schlaubi", "chef", "knuddel", "panik", "gifti")


def test_twenty_six_action_cards_twenty_collect_three_party_three_steal() -> None:
    kinds = Counter(c.kind for c in ACTION_CARDS)
    assert kinds == {"collect": 20, "party": 3, "steal": 3}
    collect = Counter((c.mushroom, c.action, c.count) for c in ACTION_CARDS if c.kind == "collect")
    assert set(collect.values()) == {1}
    assert {(a, n) for _, a, n in collect} == {("draw", 1), ("draw", 2), ("turn", 1), ("turn", 2)}
    assert {m for m, _, _ in collect} == set(MUSHROOMS)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_deals_three_action_cards_each_and_lays_out_four(players: int) -> None:
    state = GAME.setup(players, GAME.parse_options({}), SeededRng(b"setup"))
    assert len(state.display) == 4 and len(state.pile) == 56
    assert all(len(h) == 3 for h in state.hands)
    assert len(state.action_pile) == 26 - 3 * players and state.action_discard == []
    assert all(not any(b.values()) for b in state.baskets)
    assert [state.serial[c] for c in state.display] == [1, 2, 3, 4]


@pytest.mark.parametrize("players", [1, 6])
def test_two_to_five_players_only(players: int) -> None:
    with pytest.raises(ValueError):
        GAME.setup(players, GAME.parse_options({}), SeededRng(b"x"))


def test_start_player_is_a_seeded_random_choice() -> None:
    starts = {GAME.setup(4, GAME.parse_options({}), SeededRng(bytes([i + 1]))).turn
              for i in range(40)}
    assert starts == {0, 1, 2, 3}
    again = GAME.setup(4, GAME.parse_options({}), SeededRng(b"same"))
    assert again.turn == GAME.setup(4, GAME.parse_options({}), SeededRng(b"same")).turn


def test_shuffled_cards_land_either_side_up() -> None:
    state = GAME.setup(3, GAME.parse_options({}), SeededRng(b"sides"))
    firsts = sum(1 for c in state.pile if state.up[c] == MUSHROOM_CARDS[c][0])
    assert 10 < firsts < 46


def test_laying_out_flips_the_card_the_side_seen_on_the_pile_goes_down() -> None:
    """Rulebook, ATTENTION: cards go into the display back side up."""
    from app.games.panik_pilze.rules import lay_out

    state = build([["steal"], ["party"]], display=[], pile=[("chef", "gifti"), ("panik", "knuddel")])
    assert state.up[state.pile[-1]] == "panik"
    event = lay_out(state)
    assert [state.up[c] for c in state.display] == ["knuddel"]
    assert event.transient and event.data == {"id": 1, "up": "knuddel", "was": "panik"}
    assert state.up[state.pile[-1]] == "chef"


def test_options_default_memory_aid_off_and_no_turn_timer() -> None:
    options = GAME.parse_options({})
    assert options.memory_aid is False and options.turn_timer is False
    state = GAME.setup(2, options, SeededRng(b"t"))
    assert state.turn_seconds == 0 and GAME.timers(state) == []
    timed = GAME.setup(2, GAME.parse_options({"turn_timer": True, "turn_seconds": 45}),
                       SeededRng(b"t"))
    [timer] = GAME.timers(timed)
    assert timer.seconds == 45 and timer.action == {"type": "timeout"}
    assert timer.seats == (timed.turn,)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_setup_is_re_derived_from_the_seed_as_decision_4_describes(players):
    """docs/games/panik-pilze.md, decision 4: the draws in order, the list ends as the piles'
    tops, the up side by a coin per card id, the deal seat by seat, four lay-outs, the start."""
    from itertools import combinations

    seed = f"pilze-setup-{players}".encode()
    state = GAME.setup(players, GAME.parse_options({}), SeededRng(seed))
    rng = SeededRng(seed)

    def shuffled(n: int) -> list[int]:
        items = list(range(n))
        for i in range(n - 1, 0, -1):
            j = rng.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    pairs = [pair for pair in combinations(
        ("schlaubi", "chef", "knuddel", "panik", "gifti"), 2) for _ in range(6)]
    assert pairs == list(MUSHROOM_CARDS)
    pile = shuffled(60)
    up = [pairs[c][rng.randbelow(2)] for c in range(60)]
    actions = shuffled(26)
    hands = [[actions.pop() for _ in range(3)] for _ in range(players)]
    display = [pile.pop() for _ in range(4)]
    start = rng.randbelow(players)
    assert state.hands == hands and state.action_pile == actions
    assert state.pile == pile and state.display == display and state.turn == start
    for card in range(60):  # laid-out cards were flipped: their pile side went down
        flipped = card in display
        assert (state.up[card] == up[card]) is not flipped, card
