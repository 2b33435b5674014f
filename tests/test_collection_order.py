"""The order a whole run hands its tests out in (tests/conftest.py, ``spread_long_tests``)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.conftest import spread_long_tests


@dataclass
class FakeItem:
    name: str
    seconds: int | None = None

    def get_closest_marker(self, name: str):  # type: ignore[no-untyped-def]
        return pytest.mark.long(self.seconds).mark if name == "long" and self.seconds else None


def first_slices(items: list, workers: int) -> list[list]:
    """What pytest-xdist's worksteal scheduler hands each idle worker first."""
    out, left, start = [], len(items), 0
    for worker in range(workers):
        size = left // (workers - worker)
        out.append(items[start:start + size])
        start, left = start + size, left - size
    return out


def test_each_worker_starts_with_its_share_of_the_long_tests_longest_first() -> None:
    items = [FakeItem(f"t{i}") for i in range(40)]
    for i, seconds in ((3, 30), (17, 90), (25, 45), (30, 60)):
        items[i].seconds = seconds
    spread = spread_long_tests(items, 3)
    assert sorted(item.name for item in spread) == sorted(item.name for item in items)
    heads = [[item.seconds for item in slice_ if item.seconds] for slice_ in first_slices(spread, 3)]
    assert heads == [[90, 30], [60], [45]]
    for slice_ in first_slices(spread, 3):  # at the head of the slice, where the worker begins
        marked = [i for i, item in enumerate(slice_) if item.seconds]
        assert marked == list(range(len(marked)))
    short = [item.name for item in spread if not item.seconds]
    assert short == [item.name for item in items if not item.seconds]  # the rest keep their order


def test_one_process_or_too_few_tests_keep_a_simple_order() -> None:
    items = [FakeItem("a"), FakeItem("b", 50), FakeItem("c")]
    assert spread_long_tests(items, 1) == items
    assert [item.name for item in spread_long_tests(items, 6)] == ["b", "a", "c"]
