"""The seeded generator: deterministic from its seed, uniform, and unpredictable without it."""

from __future__ import annotations

import hashlib
from collections import Counter
from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chisquare

from app.engine import SeededRng, new_seed, seed_commitment


def test_same_seed_gives_the_same_stream() -> None:
    a, b = SeededRng(b"seed"), SeededRng(b"seed")
    assert [a.randbelow(1000) for _ in range(200)] == [b.randbelow(1000) for _ in range(200)]


def test_different_seeds_give_different_streams() -> None:
    a, b = SeededRng(b"seed-1"), SeededRng(b"seed-2")
    assert [a.getrandbits(64) for _ in range(4)] != [b.getrandbits(64) for _ in range(4)]


def test_the_stream_is_hmac_sha256_in_counter_mode() -> None:
    """Block i is HMAC-SHA256(seed, i): anyone holding the revealed seed can recompute it."""
    import hmac

    seed = b"k" * 32
    expected = hmac.new(seed, (0).to_bytes(8, "big"), hashlib.sha256).digest()
    assert SeededRng(seed).getrandbits(256) == int.from_bytes(expected, "big")


def test_new_seeds_are_32_random_bytes_and_the_commitment_is_their_sha256() -> None:
    seeds = {new_seed() for _ in range(50)}
    assert len(seeds) == 50 and all(len(s) == 32 for s in seeds)
    seed = next(iter(seeds))
    assert seed_commitment(seed) == hashlib.sha256(seed).hexdigest()


def test_empty_seed_is_refused() -> None:
    with pytest.raises(ValueError):
        SeededRng(b"")


@given(st.binary(min_size=1, max_size=32), st.integers(1, 10**6), st.integers(-50, 50))
def test_randbelow_and_randint_stay_in_range(seed: bytes, n: int, low: int) -> None:
    rng = SeededRng(seed)
    assert all(0 <= rng.randbelow(n) < n for _ in range(20))
    assert all(low <= rng.randint(low, low + n) <= low + n for _ in range(20))


@given(st.binary(min_size=1, max_size=32), st.lists(st.integers(), max_size=30))
def test_shuffle_is_a_permutation(seed: bytes, items: list[int]) -> None:
    shuffled = list(items)
    SeededRng(seed).shuffle(shuffled)
    assert sorted(shuffled) == sorted(items)


def test_randbelow_is_uniform_without_modulo_bias() -> None:
    """n = 10 is not a power of two: a modulo would favour 0..5 out of 16; rejection does not."""
    rng = SeededRng(b"uniform")
    counts = Counter(rng.randbelow(10) for _ in range(20_000))
    assert chisquare([counts[i] for i in range(10)]).pvalue > 0.001


def test_shuffle_gives_every_order_of_four_evenly() -> None:
    rng = SeededRng(b"orders")
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(12_000):
        items = [0, 1, 2, 3]
        rng.shuffle(items)
        counts[tuple(items)] += 1
    assert set(counts) == set(permutations(range(4)))
    assert chisquare(list(counts.values())).pvalue > 0.001


def test_choice_of_an_empty_sequence_raises() -> None:
    with pytest.raises(IndexError):
        SeededRng(b"x").choice([])
