"""The search, case by case: the rulebook's worked examples and the cases docs/games/panic-lab.md
lists."""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest

from app.engine import SeededRng
from app.games.panic_lab.solver import SearchNeverEnds, solve
from app.games.panic_lab.tiles import (
    ALL_ROLLS,
    COLOUR_DIE,
    LAB_DIE,
    PATTERN_DIE,
    SHAPE_DIE,
    VARIANT_TILES,
    Kind,
    Roll,
    roll_dice,
)

from .rings import full_ring, kind, ring, roll


def steps(solution) -> list[tuple]:
    """The path as (kind, index[, to]) tuples, for compact assertions."""
    out = []
    for step in solution.path:
        out.append((step.kind, step.index, step.to) if step.kind == "vent"
                   else (step.kind, step.index))
    return out


# --- the rulebook's worked examples ------------------------------------------------------------
def test_fig4_violet_crawling_dotted_from_blue_lab_white_arrow():
    # The blue lab (1); following the white arrow the amoeba is at (2). Another violet crawling
    # dotted amoeba lies just the other way round: it is not the one.
    ring_ = full_ring({0: "LB", 1: "vts", 2: "rcd", 3: "vcd", 24: "vcd",
                       8: "V", 14: "V", 19: "V"})
    solution = solve(ring_, roll("blue", "white", "vcd"))
    assert solution.answer == 3
    assert solution.reason == "amoeba"
    assert steps(solution) == [("start", 0), ("look", 1), ("look", 2), ("answer", 3)]


def test_fig5_vent_hides_the_tiles_up_to_the_next_vent_black_arrow():
    # Red lab (1), black arrow: a vent (2), tiles ignored up to the next vent (3) although one
    # of them is a red tentacled striped amoeba, then the amoeba is found (4).
    ring_ = full_ring({0: "LR", 24: "vts", 23: "rcs", 22: "V", 21: "rts", 20: "vcd", 19: "V",
                       18: "rtd", 17: "rts", 10: "V"})
    solution = solve(ring_, roll("red", "black", "rts"))
    assert solution.answer == 17
    assert steps(solution) == [
        ("start", 0), ("look", 24), ("look", 23), ("vent", 22, 19), ("look", 18), ("answer", 17),
    ]
    assert 21 not in [step.index for step in solution.path]


def test_fig7_pattern_room_then_colour_room_then_vent():
    # Yellow lab (1), white arrow, tentacled violet striped: Pattern room (2) -> tentacled violet
    # dotted; Colour room (3) -> tentacled red dotted; vent (4) to vent (5); found (6).
    ring_ = full_ring({0: "LY", 1: "rcs", 2: "MP", 3: "vts", 4: "MC", 5: "vtd", 6: "V",
                       7: "rtd", 8: "rcd", 9: "V", 10: "vcs", 11: "rtd", 20: "V"})
    solution = solve(ring_, roll("yellow", "white", "vts"))
    assert steps(solution) == [
        ("start", 0), ("look", 1), ("mutation", 2), ("look", 3), ("mutation", 4),
        ("look", 5), ("vent", 6, 9), ("look", 10), ("answer", 11),
    ]
    assert solution.path[2].sought == kind("vtd")
    assert solution.path[4].sought == kind("rtd")
    assert solution.answer == 11
    assert solution.sought == kind("rtd")
    assert solution.passes == 2


# --- the cases docs/games/panic-lab.md asks for -----------------------------------------------
def test_mutation_room_right_after_exit_vent_is_looked_at():
    ring_ = ring("LB", "rcs", "V", "vts", "V", "MC", "rts", "V", "vcd")
    solution = solve(ring_, roll("blue", "white", "vts"))
    assert steps(solution) == [
        ("start", 0), ("look", 1), ("vent", 2, 4), ("mutation", 5), ("answer", 6),
    ]
    assert solution.path[3].sought == kind("rts")


def test_vent_right_after_exit_vent_jumps_on():
    # Vents at 2, 5, 6. In at 2, out at 5; 6 is a vent: in again, out at the next vent, which
    # wraps round to 2; the search resumes at 3.
    ring_ = ring("LB", "rcs", "V", "vts", "rcd", "V", "V", "vts", "rtd", "rts")
    solution = solve(ring_, roll("blue", "white", "vts"))
    assert steps(solution) == [
        ("start", 0), ("look", 1), ("vent", 2, 5), ("vent", 6, 2), ("answer", 3),
    ]


def test_adjacent_vents_entering_the_first_comes_out_of_the_second():
    ring_ = ring("LB", "rcs", "V", "V", "vts", "rcd", "V", "vts")
    solution = solve(ring_, roll("blue", "white", "vts"))
    assert steps(solution) == [("start", 0), ("look", 1), ("vent", 2, 3), ("answer", 4)]


def test_three_adjacent_vents_chain_and_end():
    ring_ = ring("LB", "rcs", "V", "V", "V", "vts")
    solution = solve(ring_, roll("blue", "white", "vts"))
    assert steps(solution) == [
        ("start", 0), ("look", 1), ("vent", 2, 3), ("vent", 4, 2), ("vent", 3, 4), ("answer", 5),
    ]


def test_lab_next_to_vent_start_lab_then_vent_and_lab_after_exit_vent_is_neutral():
    ring_ = ring("LB", "V", "vts", "V", "LY", "vts", "rcd", "V")
    solution = solve(ring_, roll("blue", "white", "vts"))
    assert steps(solution) == [("start", 0), ("vent", 1, 3), ("look", 4), ("answer", 5)]


def test_lab_before_vent_counter_clockwise():
    ring_ = ring("rcd", "V", "LR", "vts", "V", "rcs", "V", "vts")
    # Black arrow from the red lab at 2: the vent at 1 is the first tile, out at 6 (the next vent
    # going down, wrapping round), then 5.
    solution = solve(ring_, roll("red", "black", "rcs"))
    assert steps(solution) == [("start", 2), ("vent", 1, 6), ("answer", 5)]


def test_wrap_around_clockwise():
    ring_ = ring("rts", "vcd", "LY", "vts", "LB", "rcs")
    solution = solve(ring_, roll("blue", "white", "rts"))
    assert steps(solution) == [("start", 4), ("look", 5), ("answer", 0)]


def test_wrap_around_counter_clockwise():
    ring_ = ring("vcd", "LB", "rts", "rcs", "vts")
    solution = solve(ring_, roll("blue", "black", "rts"))
    assert steps(solution) == [
        ("start", 1), ("look", 0), ("look", 4), ("look", 3), ("answer", 2),
    ]


def test_vents_chain_from_the_third_back_to_the_first():
    # "This may continue up to the third vent, after which the tiles are no longer counted until
    # returning to the first vent": in at 6 (third), out at 2 (first), wrapping past 7..1.
    ring_ = ring("LB", "rcs", "V", "vts", "V", "rcd", "V", "vts", "rcs", "rtd")
    solution = solve(ring_, roll("blue", "white", "vts"))
    assert steps(solution) == [
        ("start", 0), ("look", 1), ("vent", 2, 4), ("look", 5), ("vent", 6, 2), ("answer", 3),
    ]


def test_start_lab_is_neutral_when_the_search_comes_round_again():
    ring_ = ring("LB", "rcs", "MC", "rcd", "vts")
    # Seek vts: 1, colour room -> rts, 3, 4 (vts, no longer sought), 0 the start lab (neutral),
    # 1, 2 colour room again -> vts, 3, 4 answer.
    solution = solve(ring_, roll("blue", "white", "vts"))
    assert [s.index for s in solution.path] == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]
    assert solution.path[5].kind == "look"
    assert solution.answer == 4 and solution.passes == 2


def test_fourth_pass_on_a_room_already_passed_is_the_answer():
    ring_ = ring("LY", "MC", "rts", "MS", "vts", "MP", "vcs")
    solution = solve(ring_, roll("yellow", "white", "rts"))
    # rts -> (colour) vts -> (shape) vcs -> (pattern) vcd, never met; round again to the colour
    # room: 4th pass, the amoeba is gone, the colour room is the answer.
    assert steps(solution) == [
        ("start", 0), ("mutation", 1), ("look", 2), ("mutation", 3), ("look", 4),
        ("mutation", 5), ("look", 6), ("look", 0), ("answer", 1),
    ]
    assert solution.answer == 1
    assert solution.reason == "fourth_pass"
    assert solution.passes == 4
    last = solution.path[-1]
    assert last.attribute == "colour" and last.passes == 4 and last.reason == "fourth_pass"
    assert solution.sought == kind("vcd")


def test_fourth_pass_after_a_vent():
    ring_ = ring("LY", "MC", "V", "MS", "rts", "V", "MP", "MS", "vcd", "V", "rcd")
    # rts -(colour)-> vts; vent 2 -> 5; -(pattern)-> vtd; -(shape)-> vcd, found at 8.
    solution = solve(ring_, roll("yellow", "white", "rts"))
    assert solution.answer == 8 and solution.passes == 3
    # Without that amoeba the 4th pass happens in the next stretch: vent 9 -> 2 -> MS at 3.
    ring2 = ring("LY", "MC", "V", "MS", "rts", "V", "MP", "MS", "rcs", "V", "rcd")
    solution2 = solve(ring2, roll("yellow", "white", "rts"))
    assert steps(solution2)[-3:] == [("look", 8), ("vent", 9, 2), ("answer", 3)]
    assert solution2.reason == "fourth_pass"


def test_white_and_black_arrows_search_opposite_ways():
    ring_ = full_ring({0: "LB", 1: "vts", 2: "rcd", 3: "vcd", 24: "vcd",
                       8: "V", 14: "V", 19: "V"})
    assert solve(ring_, roll("blue", "white", "vcd")).answer == 3
    black = solve(ring_, roll("blue", "black", "vcd"))
    assert black.answer == 24
    assert steps(black) == [("start", 0), ("answer", 24)]


def test_arrow_steps_white_clockwise_plus_one_black_minus_one():
    assert roll("blue", "white", "rts").step == 1
    assert roll("blue", "black", "rts").step == -1
    assert roll("red", "black", "vcd").to_json() == {
        "lab": "red", "arrow": "black", "step": -1,
        "colour": "violet", "shape": "crawling", "pattern": "dotted",
    }


# --- guards ------------------------------------------------------------------------------------
def test_unreachable_answer_raises_instead_of_looping():
    # Two vents hide the only red tentacled striped amoeba: the search would go round forever.
    ring_ = ring("LB", "V", "rts", "V", "vcd")
    with pytest.raises(SearchNeverEnds):
        solve(ring_, roll("blue", "white", "rts"))


def test_missing_kind_without_rooms_raises():
    with pytest.raises(SearchNeverEnds):
        solve(ring("LB", "vcd", "rcs"), roll("blue", "white", "rts"))


def test_ring_without_the_rolled_lab_is_refused():
    with pytest.raises(ValueError):
        solve(ring("LB", "vcd", "rts"), roll("red", "white", "rts"))


def test_path_json_names_each_step():
    ring_ = ring("LB", "rcs", "V", "vts", "V", "MC", "rts", "V", "vcd")
    path = solve(ring_, roll("blue", "white", "vts")).to_json()["path"]
    assert path == [
        {"index": 0, "kind": "start"},
        {"index": 1, "kind": "look"},
        {"index": 2, "kind": "vent", "to": 4},
        {"index": 5, "kind": "mutation", "attribute": "colour", "passes": 1,
         "sought": {"colour": "red", "shape": "tentacled", "pattern": "striped"}},
        {"index": 6, "kind": "answer", "reason": "amoeba",
         "sought": {"colour": "red", "shape": "tentacled", "pattern": "striped"}},
    ]


# --- components --------------------------------------------------------------------------------
def test_box_has_25_tiles_and_variants_22_and_19():
    standard = VARIANT_TILES["standard"]
    assert len(standard) == 25
    assert len(VARIANT_TILES["no_mutations"]) == 22
    assert len(VARIANT_TILES["no_mutations_no_vents"]) == 19
    types = Counter(t.type for t in standard)
    assert types == {"lab": 3, "vent": 3, "mutation": 3, "amoeba": 16}
    kinds = Counter(t.kind for t in standard if t.type == "amoeba")
    assert len(kinds) == 8 and set(kinds.values()) == {2}
    assert {t.lab for t in standard if t.type == "lab"} == {"blue", "yellow", "red"}
    assert {t.attribute for t in standard if t.type == "mutation"} == {
        "colour", "shape", "pattern"}


def test_dice_faces_give_48_equally_likely_rolls():
    assert len(LAB_DIE) == 6 and len(set(LAB_DIE)) == 6
    counts = Counter(
        Roll(lab_, arrow, Kind(c, s, p))
        for (lab_, arrow), c, s, p in product(LAB_DIE, COLOUR_DIE, SHAPE_DIE, PATTERN_DIE)
    )
    assert set(counts) == set(ALL_ROLLS) and len(ALL_ROLLS) == 48
    assert set(counts.values()) == {27}


def test_roll_dice_is_seeded_and_uses_only_the_rng():
    rolls_a = [roll_dice(rng) for rng in [SeededRng(b"s")] for _ in range(20)]
    rng = SeededRng(b"s")
    rolls_b = [roll_dice(rng) for _ in range(20)]
    assert rolls_a == rolls_b
    assert len(set(rolls_b)) > 5
