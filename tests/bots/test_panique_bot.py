"""Panique's computer player (docs/bots.md, "Panique")."""

from __future__ import annotations

from app.bots import make_bot


def frame(purpose, legal, heirs):
    view = {"phase": "play", "pending": {"purpose": purpose, "seats": [0]},
            "heirs": [{"seat": s, "space": space, "life": life, "status": "in"}
                      for s, (space, life) in enumerate(heirs)]}
    return {"type": "state", "seat": 0, "version": 1, "view": view, "legal": legal,
            "active": [0], "timers": [], "events": []}


def choose(option, target=None):
    action = {"type": "choose", "option": option}
    if target is not None:
        action["target"] = target
    return action


REST = [choose("rest"), choose("stay")]
BUTLER = [choose("accept"), choose("decline")]
ALLY = [choose("A"), choose("B", 1), choose("B", 2), choose("C", 1), choose("C", 2)]


def decide(purpose, legal, heirs, difficulty="normal"):
    return make_bot("panique", 0, difficulty, 1).decide(frame(purpose, legal, heirs)).action


def test_it_rolls_when_the_roll_is_its_own():
    assert decide("move", [{"type": "roll"}], [(4, 3), (2, 3)]) == {"type": "roll"}


def test_it_rests_at_one_or_two_life_points_and_keeps_going_otherwise():
    assert decide("rest", REST, [(10, 1), (10, 3)]) == choose("rest")
    assert decide("rest", REST, [(10, 2), (10, 3)]) == choose("rest")


def test_it_refuses_the_butler_unless_the_slime_pit_is_a_step_forward():
    assert decide("butler", BUTLER, [(12, 3), (3, 3)]) == choose("decline")
    assert decide("butler", BUTLER, [(0, 3), (3, 3)]) == choose("accept")
    assert decide("butler", BUTLER, [(0, 1), (3, 3)]) == choose("decline")


def test_the_ally_takes_it_out_of_the_house_or_holds_back_the_leader():
    heirs = [(27, 2), (20, 3), (10, 3)]
    assert decide("ally", ALLY, heirs) == choose("A")
    heirs = [(10, 2), (25, 3), (12, 3)]
    assert decide("ally", ALLY, heirs) == choose("B", 1)
    heirs = [(18, 2), (12, 3), (15, 3)]
    assert decide("ally", ALLY, heirs) == choose("A")


def test_easy_sometimes_chooses_at_random():
    picks = {str(make_bot("panique", 0, "easy", seed).decide(
        frame("butler", BUTLER, [(12, 3), (3, 3)])).action) for seed in range(30)}
    assert len(picks) == 2
