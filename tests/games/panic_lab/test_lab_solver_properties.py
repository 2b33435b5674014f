"""Properties of the search over random rings of every variant and all 48 rolls."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.games.panic_lab.solver import solve
from app.games.panic_lab.tiles import ALL_ROLLS, VARIANT_TILES, Roll, Tile

rings = st.sampled_from(sorted(VARIANT_TILES)).flatmap(
    lambda variant: st.permutations(VARIANT_TILES[variant])
).map(tuple)


def next_vent(ring: tuple[Tile, ...], index: int, step: int) -> int:
    n = len(ring)
    for k in range(1, n + 1):
        if ring[(index + k * step) % n].type == "vent":
            return (index + k * step) % n
    raise AssertionError("no vent")


def check(ring: tuple[Tile, ...], roll: Roll) -> None:
    """Walk the solver's path against the ring, re-deriving every step independently."""
    n = len(ring)
    d = roll.step
    solution = solve(ring, roll)
    path = solution.path

    # Fewer than two laps' worth of looked-at tiles (the start lab and exit vents are not).
    assert solution.looks == len(path) - 1 < 2 * n

    start = path[0]
    assert start.kind == "start"
    assert ring[start.index].type == "lab" and ring[start.index].lab == roll.lab

    sought, passes, pos = roll.kind, 0, start.index
    for i, step in enumerate(path[1:], start=1):
        assert step.index == (pos + d) % n, f"step {i} does not follow from {pos}"
        tile = ring[step.index]
        last = i == len(path) - 1
        assert (step.kind == "answer") == last
        if step.kind == "vent":
            assert tile.type == "vent"
            assert step.to == next_vent(ring, step.index, d)
            pos = step.to
            continue
        pos = step.index
        if step.kind == "look":
            assert tile.type in ("lab", "amoeba")
            assert tile.kind != sought
        elif step.kind == "mutation":
            assert tile.type == "mutation"
            passes += 1
            assert passes < 4 and step.passes == passes
            sought = sought.flip(tile.attribute)
            assert step.sought == sought
        else:
            assert step.index == solution.answer
            if tile.type == "amoeba":
                assert solution.reason == "amoeba"
                assert tile.kind == sought == solution.sought
            else:
                assert tile.type == "mutation"
                assert solution.reason == "fourth_pass"
                assert passes + 1 == 4 == solution.passes
    assert path[-1].kind == "answer"


@settings(max_examples=150, deadline=None)
@given(rings)
def test_search_ends_within_two_laps_and_path_follows_the_ring(ring):
    for roll in ALL_ROLLS:
        check(ring, roll)


@settings(max_examples=60, deadline=None)
@given(st.permutations(VARIANT_TILES["no_mutations"]).map(tuple))
def test_without_mutation_rooms_the_answer_is_met_within_one_lap(ring):
    for roll in ALL_ROLLS:
        solution = solve(ring, roll)
        assert solution.reason == "amoeba" and solution.sought == roll.kind
        assert solution.looks <= len(ring)


@settings(max_examples=60, deadline=None)
@given(st.permutations(VARIANT_TILES["no_mutations_no_vents"]).map(tuple))
def test_without_vents_the_path_is_consecutive_tiles(ring):
    for roll in ALL_ROLLS:
        solution = solve(ring, roll)
        indices = [step.index for step in solution.path]
        assert indices == [(indices[0] + k * roll.step) % len(ring)
                           for k in range(len(indices))]
