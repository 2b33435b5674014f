"""Hidden information in the views (docs/games/panik-pilze.md, "Hidden information") and the turn
timer (decision 12)."""

import random

from app.engine import Move, SeededRng
from app.games.panik_pilze import GAME
from app.games.panik_pilze.cards import other_side

from .pilze_helpers import act, build, counts
from .twins import twins

DISPLAY = [("chef", "gifti"), ("panik", "chef"), ("chef", "knuddel"), ("gifti", "schlaubi")]


def test_each_seat_sees_only_its_own_hand() -> None:
    state = GAME.setup(3, GAME.parse_options({}), SeededRng(b"views"))
    for seat in range(3):
        view = GAME.view(state, seat)
        assert [c["id"] for c in view["hand"]] == state.hands[seat]
        assert [p["hand"] for p in view["players"]] == [3, 3, 3]
    assert "hand" not in GAME.view(state, None) and "legal" not in GAME.view(state, None)


def test_display_down_sides_hidden_unless_the_memory_aid_is_on() -> None:
    state = GAME.setup(3, GAME.parse_options({}), SeededRng(b"aid"))
    assert all(set(e) == {"id", "up"} for e in GAME.view(state, 0)["display"])
    aided = GAME.setup(3, GAME.parse_options({"memory_aid": True}), SeededRng(b"aid"))
    shown = GAME.view(aided, None)["display"]
    assert [e["down"] for e in shown] == [other_side(c, aided.up[c]) for c in aided.display]
    assert GAME.view(aided, None)["memory_aid"] is True


def test_the_pile_shows_its_top_side_and_size_only() -> None:
    state = GAME.setup(2, GAME.parse_options({}), SeededRng(b"pile"))
    assert GAME.view(state, 1)["pile"] == {"count": 56, "top": state.up[state.pile[-1]]}


def test_views_do_not_change_with_any_secret_over_a_whole_game() -> None:
    rng = SeededRng(b"twins")
    chooser = random.Random(3)
    state = GAME.setup(4, GAME.parse_options({}), rng)
    checked = 0
    while state.phase != "over":
        for seat in [None, 0, 1, 2, 3]:
            view = GAME.view(state, seat)
            for twin in twins(state, seat, chooser):
                assert GAME.view(twin, seat) == view
                checked += 1
        legal = GAME.legal_actions(state, state.turn)
        GAME.step(state, Move(state.turn, GAME.parse_action(chooser.choice(legal))), rng)
    assert checked > 500


def test_a_flipped_card_shows_its_new_up_side_to_everyone() -> None:
    state = build([["knuddel-turn1", "steal", "steal"], ["party"]], display=DISPLAY)
    events = act(state, 0, {"type": "collect", "card": state.hands[0][0], "flip": [1]})
    assert GAME.view(state, 1)["display"][0] == {"id": 1, "up": "gifti"}
    flip = next(e for e in events if e.kind == "flip")
    assert flip.transient and flip.data == {"id": 1, "up": "gifti"}


def test_timeout_plays_the_first_hand_card_in_its_simplest_form() -> None:
    state = build([["chef-turn2", "steal", "party"], ["party"]], display=DISPLAY, turn_seconds=30)
    [timer] = GAME.timers(state)
    assert timer.key == "turn:1" and timer.seats == (0,)
    events = act(state, None, {"type": "timeout"})
    assert events[0].kind == "timeout" and events[0].text.startswith("{seat:0} ran out of time")
    # Turn 2 on the first two display cards: chef->gifti, panik->chef; chef x2 taken.
    assert counts(state, 0) == {"chef": 2}
    assert state.turn == 1 and GAME.timers(state)[0].key == "turn:2"


def test_timeout_with_an_unplayable_steal_first_plays_the_next_card() -> None:
    state = build([["steal", "party", "chef-draw1"], ["party"]], display=DISPLAY, turn_seconds=30)
    act(state, None, {"type": "timeout"})
    assert counts(state, 0) == {}  # a party for Schlaubi: none in the display
    assert state.action_discard[-1] in range(20, 23)


def test_timeout_with_only_unplayable_steals_swaps_the_first_card() -> None:
    state = build([["steal", "steal", "steal"], ["party"]], display=DISPLAY, turn_seconds=30)
    first = state.hands[0][0]
    events = act(state, None, {"type": "timeout"})
    assert any(e.kind == "swap" and e.data == {"count": 1, "n": 1} for e in events)
    assert state.action_discard[-1] == first and len(state.hands[0]) == 3
