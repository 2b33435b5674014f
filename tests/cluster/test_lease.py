"""The lease and directory scripts against the real Redis (app/realtime/cluster/lease.py): one owner per
room, compare-and-renew, release only by the owner, takeover after expiry or a handover, and
the lobby from the hash and its sorted set."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

from app.realtime.cluster.lease import Entry, Leases
from tests.clock import ManualClock
from tests.live import run_async

pytestmark = pytest.mark.redis



def _with_nodes(redis_url: str, prefix: str, ttl: float,
                scenario: Callable[..., Awaitable[Any]], clock: Any = None) -> Any:
    """Run ``scenario(one, two)``: two nodes' views of the same site (their directory on
    ``clock`` when given; the leases' time to live runs on Redis's clock)."""

    async def run() -> Any:
        client = aioredis.from_url(redis_url)
        wall = {"clock": clock} if clock is not None else {}
        try:
            one = Leases(client, prefix, "node-one", ttl, **wall)
            two = Leases(client, prefix, "node-two", ttl, **wall)
            return await scenario(one, two)
        finally:
            await client.aclose()

    return run_async(run())


async def _until_redis(read: Callable[[], Awaitable[Any]], wanted: Any,
                       timeout: float = 10.0) -> Any:
    """Read until Redis answers ``wanted`` (a key's time to live runs on Redis's clock: the
    test waits for the expiry itself, not for a fixed time)."""
    deadline = time.monotonic() + timeout
    while (seen := await read()) != wanted:
        assert time.monotonic() < deadline, f"Redis still says {seen!r}"
        await asyncio.sleep(0.02)
    return seen


def _entry(code: str, lobby: bool = True, **summary: Any) -> Entry:
    return Entry(code, {"code": code, "public": lobby, "status": "waiting", **summary}, lobby)


def test_a_code_has_one_owner_and_only_the_owner_renews_or_releases_it(redis_url, prefix):
    async def scenario(one: Leases, two: Leases) -> None:
        assert await one.claim(_entry("ABCD")) == 1  # the room's first fencing token
        assert not await two.claim(_entry("ABCD"))  # leased
        assert not await two.acquire("ABCD")
        assert await one.owner("ABCD") == "node-one"
        assert await two.renew([_entry("ABCD")]) == ["ABCD"]  # not two's: reported lost
        assert await one.renew([_entry("ABCD", players=3)]) == []
        assert (await two.summary("ABCD"))["players"] == 3  # the owner's renewal wrote it
        assert await two.release(["ABCD"], forget=True) == 0  # not two's to let go
        assert await one.owner("ABCD") == "node-one"
        assert await one.release(["ABCD"], forget=True) == 1
        assert await one.owner("ABCD") is None and await one.summary("ABCD") is None
        assert await two.claim(_entry("ABCD")) == 2  # free again, with a higher token

    _with_nodes(redis_url, prefix, 5.0, scenario)


def test_an_expired_lease_is_taken_by_exactly_one_node_and_the_old_owner_learns_it(
    redis_url, prefix
):
    clock = ManualClock(time.time())

    async def scenario(one: Leases, two: Leases) -> None:
        first = await one.claim(_entry("WXYZ"))
        assert await two.stale() == []
        # One stopped renewing (it died): Redis lets the lease run out...
        await _until_redis(lambda: one.owner("WXYZ"), None)
        clock.advance(0.25)  # ...and the directory's clock passes the entry's expiry
        assert await two.stale() == ["WXYZ"]  # its directory entry went stale too
        # The code is not free for a new room while its entry waits for a takeover.
        assert not await two.claim(_entry("WXYZ"))
        won = await asyncio.gather(one.acquire("WXYZ"), two.acquire("WXYZ"), two.acquire("WXYZ"))
        assert sorted(won) == [0, 0, first + 1]  # one winner, with the next fencing token
        winner, loser = (one, two) if won[0] else (two, one)
        assert await loser.renew([_entry("WXYZ")]) == ["WXYZ"]
        assert await winner.renew([_entry("WXYZ")]) == []
        assert await winner.stale() == []

    _with_nodes(redis_url, prefix, 0.25, scenario, clock)


def test_a_handover_marks_the_room_for_takeover_at_once(redis_url, prefix):
    async def scenario(one: Leases, two: Leases) -> None:
        assert await one.claim(_entry("HAND"))
        assert await two.stale() == []
        assert await one.release(["HAND"], forget=False) == 1  # a graceful stop
        assert await two.stale() == ["HAND"]  # long before the 60 s lease would have run out
        assert await two.summary("HAND") is not None
        assert await two.acquire("HAND")
        assert await two.renew([_entry("HAND")]) == []
        assert (await one.summary("HAND"))["node"] == "node-two"

    _with_nodes(redis_url, prefix, 60.0, scenario)


def test_the_lobby_lists_public_waiting_rooms_and_prunes_stale_ones(redis_url, prefix):
    async def scenario(one: Leases, two: Leases) -> list[list[str]]:
        await one.claim(_entry("PUBA"))
        await one.claim(_entry("PRIV", lobby=False))
        await two.claim(_entry("PUBB"))
        seen = [sorted(r["code"] for r in await one.lobby())]
        await one.renew([_entry("PUBA", lobby=False)])  # it started: out of the lobby
        seen.append(sorted(r["code"] for r in await two.lobby()))
        await two.release(["PUBB"], forget=False)  # handed over: stale, out of the lobby
        seen.append(sorted(r["code"] for r in await one.lobby()))
        return seen

    seen = _with_nodes(redis_url, prefix, 30.0, scenario)
    assert seen == [["PUBA", "PUBB"], ["PUBB"], []]


def test_heartbeats_tell_which_nodes_are_alive(redis_url, prefix):
    async def scenario(one: Leases, two: Leases) -> tuple[dict, dict]:
        await one.heartbeat()
        first = await two.alive(["node-one", "node-two"])
        # One stops beating: its heartbeat runs out in Redis.
        later = await _until_redis(lambda: two.alive(["node-one"]), {"node-one": False})
        return first, later

    first, later = _with_nodes(redis_url, prefix, 0.25, scenario)
    assert first == {"node-one": True, "node-two": False}
    assert later == {"node-one": False}
