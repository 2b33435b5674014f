"""The answers to an ``Idempotency-Key`` within one process (docs/decisions/0057), with the
clock given: one room per key for ``KEPT_SECONDS``, a new one after; a failure keeps nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

import pytest
from fastapi import HTTPException

from app.api.create_once import KEPT_SECONDS, CreateOnce, checked_key
from tests.live import run_async


class Maker:
    """Makes numbered rooms. With a ``gate``, each waits for it (the test opens it once every
    overlapping request is in) and says it ``entered``."""

    def __init__(self, gate: asyncio.Event | None = None) -> None:
        self.made = 0
        self.gate = gate
        self.entered = asyncio.Event()

    async def __call__(self) -> dict[str, int]:
        self.entered.set()
        if self.gate is not None:
            await self.gate.wait()
        self.made += 1
        return {"room": self.made}


async def overlapping(first: Maker, *requests: Awaitable[Any]) -> list[Any]:
    """``requests`` at once, the first of them held in ``first`` until the others wait on it
    (tasks run in the order they were made: once the first has entered, the others have asked)."""
    assert first.gate is not None
    tasks = [asyncio.ensure_future(r) for r in requests]
    await first.entered.wait()
    first.gate.set()
    return await asyncio.gather(*tasks, return_exceptions=True)


def test_a_key_answers_one_room_for_its_time_and_per_address() -> None:
    now = [100.0]
    once = CreateOnce(None, clock=lambda: now[0])

    async def run() -> list[dict[str, int]]:
        make = Maker(asyncio.Event())
        together = await overlapping(make, *(once.answer("10.0.0.1", "key-aaaa", make)
                                             for _ in range(3)))
        now[0] += KEPT_SECONDS - 1
        later = await once.answer("10.0.0.1", "key-aaaa", make)
        elsewhere = await once.answer("10.0.0.2", "key-aaaa", make)
        no_key = await once.answer("10.0.0.1", None, make)
        now[0] += 2  # the first answer is older than KEPT_SECONDS now
        expired = await once.answer("10.0.0.1", "key-aaaa", make)
        return [*together, later, elsewhere, no_key, expired]

    assert [a["room"] for a in run_async(run())] == [1, 1, 1, 1, 2, 3, 4]


def test_a_failed_create_keeps_nothing_and_tells_those_waiting() -> None:
    once = CreateOnce(None)

    async def run() -> tuple[list[object], dict[str, int]]:
        held = Maker(asyncio.Event())

        async def refuse() -> dict[str, int]:
            await held()
            raise HTTPException(429, "too many")

        failed = await overlapping(held, once.answer("a", "key-bbbb", refuse),
                                   once.answer("a", "key-bbbb", refuse))
        return failed, await once.answer("a", "key-bbbb", Maker())

    failed, made = run_async(run())
    assert all(isinstance(f, HTTPException) and f.status_code == 429 for f in failed)
    assert made == {"room": 1}


@pytest.mark.parametrize("key", ["short", "x" * 65, "with space", "semi;colon", ""])
def test_a_key_that_is_not_one_is_refused(key: str) -> None:
    with pytest.raises(HTTPException) as refused:
        checked_key(key)
    assert refused.value.status_code == 422
    assert checked_key("Abc-123_xyz") == "Abc-123_xyz" and checked_key(None) is None
