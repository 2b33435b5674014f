"""Fair, replayable randomness: a keyed hash in counter mode.

Every shuffle, roll and secret number of a match comes from one ``SeededRng`` built from the
match's secret seed. Block ``i`` of the stream is ``HMAC-SHA256(seed, i)``; nobody who lacks the
seed can predict it, and anyone who learns the seed when the match ends can replay the match
exactly from (seed, options, action log). Engines receive this object; they never touch the
global ``random`` module or the clock.

Every draw a game makes for its match is a named chance step (OpenSpiel's chance nodes): each
public method takes ``step``, the game's stable id of what the draw is for (``"burst_number"``,
``"deck"``, ``"lab_die"``; docs/games/<game>.md lists each game's). ``SeededRng`` ignores it;
``RecordingRng``, the generator a live match runs on, records it with the draw
(docs/decisions/0053-chance-is-data-recorded-with-the-match.md).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

SEED_BYTES = 32


def new_seed() -> bytes:
    """A fresh secret seed from the operating system."""
    return secrets.token_bytes(SEED_BYTES)


def seed_commitment(seed: bytes) -> str:
    """The SHA-256 of the seed, shown when a match starts (the seed itself is shown at the end)."""
    return hashlib.sha256(seed).hexdigest()


class SeededRng:
    """A deterministic stream of random numbers derived from a secret seed."""

    __slots__ = ("_key", "_counter", "_pool", "_pool_bits")

    def __init__(self, seed: bytes) -> None:
        if not seed:
            raise ValueError("seed must not be empty")
        self._key = seed
        self._counter = 0
        self._pool = 0
        self._pool_bits = 0

    def _refill(self) -> None:
        block = hmac.new(self._key, self._counter.to_bytes(8, "big"), hashlib.sha256).digest()
        self._counter += 1
        self._pool = (self._pool << 256) | int.from_bytes(block, "big")
        self._pool_bits += 256

    def getrandbits(self, k: int, step: str | None = None) -> int:
        """``k`` uniformly random bits as a non-negative integer."""
        if k < 0:
            raise ValueError("k must be non-negative")
        while self._pool_bits < k:
            self._refill()
        self._pool_bits -= k
        value = self._pool >> self._pool_bits
        self._pool &= (1 << self._pool_bits) - 1
        return value

    def randbelow(self, n: int, step: str | None = None) -> int:
        """A uniform integer in ``[0, n)``, by rejection sampling (no modulo bias): draws of
        ``n.bit_length()`` bits until one is below ``n``. The draws are ``getrandbits``'s, taken
        from the pool here (every shuffle makes one call per card: a method call per draw was
        most of a shuffle's time); the stream is the same bit for bit (tests/engine/test_rng.py).
        """
        if n <= 0:
            raise ValueError("n must be positive")
        k = n.bit_length()
        while True:
            bits = self._pool_bits
            while bits < k:
                self._refill()
                bits = self._pool_bits
            bits -= k
            pool = self._pool
            value = pool >> bits
            self._pool = pool ^ (value << bits)
            self._pool_bits = bits
            if value < n:
                return value

    def randint(self, low: int, high: int, step: str | None = None) -> int:
        """A uniform integer in ``[low, high]``, both ends included."""
        return low + self.randbelow(high - low + 1)

    def choice(self, items: Sequence[T], step: str | None = None) -> T:
        """One element of a non-empty sequence, uniformly."""
        if not items:
            raise IndexError("cannot choose from an empty sequence")
        return items[self.randbelow(len(items))]

    def shuffle(self, items: MutableSequence[T], step: str | None = None) -> None:
        """Shuffle in place (Fisher-Yates)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]


class RecordingRng(SeededRng):
    """A ``SeededRng`` that notes every draw a match makes, in order: the chance log.

    Each public call made by a game is one chance step ``{"name", "op", "args", "result"}``
    (docs/fairness.md, "The chance log"): ``name`` is the game's ``step`` (``None`` if it gave
    none), then ``getrandbits [k]``, ``randbelow [n]``, ``randint [low, high]``,
    ``choice [len(items)]`` with the chosen index as its result, and ``shuffle [len(items)]``
    with the resulting permutation (``result[i]`` is the old index of the item now at ``i``).
    Calls a method makes on the way (``shuffle`` drawing ``randbelow``) are part of that entry,
    not entries of their own. The stream is exactly ``SeededRng``'s.
    """

    __slots__ = ("draws", "_depth")

    def __init__(self, seed: bytes) -> None:
        super().__init__(seed)
        self.draws: list[dict[str, object]] = []
        self._depth = 0

    def _note(self, step: str | None, op: str, args: list[int], result: object) -> None:
        if self._depth == 0:
            self.draws.append({"name": step, "op": op, "args": args, "result": result})

    def getrandbits(self, k: int, step: str | None = None) -> int:
        self._depth += 1
        try:
            value = super().getrandbits(k)
        finally:
            self._depth -= 1
        self._note(step, "getrandbits", [k], value)
        return value

    def randbelow(self, n: int, step: str | None = None) -> int:
        self._depth += 1
        try:
            value = super().randbelow(n)
        finally:
            self._depth -= 1
        self._note(step, "randbelow", [n], value)
        return value

    def randint(self, low: int, high: int, step: str | None = None) -> int:
        self._depth += 1
        try:
            value = super().randint(low, high)
        finally:
            self._depth -= 1
        self._note(step, "randint", [low, high], value)
        return value

    def choice(self, items: Sequence[T], step: str | None = None) -> T:
        if not items:
            raise IndexError("cannot choose from an empty sequence")
        self._depth += 1
        try:
            index = super().randbelow(len(items))
        finally:
            self._depth -= 1
        self._note(step, "choice", [len(items)], index)
        return items[index]

    def shuffle(self, items: MutableSequence[T], step: str | None = None) -> None:
        # The same swaps as SeededRng.shuffle, made on the indices to learn the permutation.
        order = list(range(len(items)))
        self._depth += 1
        try:
            super().shuffle(order)
        finally:
            self._depth -= 1
        items[:] = [items[i] for i in order]
        self._note(step, "shuffle", [len(order)], order)
