"""One room per create, however often it is sent: the ``Idempotency-Key`` of ``POST /api/rooms``.

The lobby's create form makes a key once per form and sends it with every submit, so a double
click, a second tap on a slow phone or a retry after a lost answer make one room: the server
answers the same key from the same client address with the same room for ``KEPT_SECONDS``
(docs/decisions/0057). Without Redis the answers are this process's; with ``REDIS_URL`` they
are kept in Redis under ``{REDIS_PREFIX}:create:``, so two processes behind a balancer answer a
key with one room too, as they keep one count of rooms made (docs/decisions/0044).

Requests with one key that arrive together wait for the first one's answer: in one process on
its future, across processes by reading the key again until the first one has written its
answer (``WAIT_SECONDS`` at most; then 409, which the form retries with the same key).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from fastapi import HTTPException

from app.realtime.cluster.relay import Cluster

KEPT_SECONDS = 60.0
"""How long a key's room is the answer: a double click or a retry comes within seconds, and a
room that nobody joins closes after a minute anyway (``ROOM_UNJOINED_SECONDS``)."""
WAIT_SECONDS = 5.0
"""How long a request waits for another process's answer to the same key."""
_POLL_SECONDS = 0.05
KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]{8,64}")
"""What a key may look like: 8 to 64 URL-safe characters (the form sends 22 of base64url)."""
_PENDING = b""
"""The Redis value of a key whose room is being made."""

Answer = dict[str, Any]


def checked_key(key: str | None) -> str | None:
    """The key of a request, or 422 for one that is not a key (``KEY_PATTERN``)."""
    if key is None:
        return None
    if not KEY_PATTERN.fullmatch(key):
        raise HTTPException(422, "Idempotency-Key must be 8 to 64 letters, digits, '-' or '_'")
    return key


class CreateOnce:
    """The answers of ``POST /api/rooms`` by (client address, key), for ``KEPT_SECONDS``."""

    def __init__(self, cluster: Cluster | None, clock: Callable[[], float] = time.monotonic) -> None:
        self._cluster = cluster
        self._clock = clock
        self._local: dict[tuple[str, str], tuple[float, asyncio.Future[Answer]]] = {}

    async def answer(self, address: str, key: str | None,
                     create: Callable[[], Awaitable[Answer]]) -> Answer:
        """The room for ``key`` from ``address``: made by ``create`` the first time, the same
        answer after that. A request that fails (a refusal, a limit) keeps no answer: the same
        key may be tried again."""
        if key is None:
            return await create()
        if self._cluster is not None:
            return await self._shared(f"{self._cluster.prefix}:create:{address}:{key}", create)
        return await self._in_process((address, key), create)

    async def _in_process(self, name: tuple[str, str],
                          create: Callable[[], Awaitable[Answer]]) -> Answer:
        now = self._clock()
        for old in [k for k, (at, _) in self._local.items() if now - at > KEPT_SECONDS]:
            del self._local[old]
        kept = self._local.get(name)
        if kept is not None:
            return await asyncio.shield(kept[1])
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._local[name] = (now, future)
        try:
            answer = await create()
        except BaseException as error:
            del self._local[name]
            if isinstance(error, asyncio.CancelledError):
                future.cancel()
            else:
                future.set_exception(error)
                future.exception()  # retrieved: nobody else may be waiting for it
            raise
        future.set_result(answer)
        return answer

    async def _shared(self, name: str, create: Callable[[], Awaitable[Answer]]) -> Answer:
        assert self._cluster is not None
        redis = self._cluster.redis
        ttl = int(KEPT_SECONDS)
        if await redis.set(name, _PENDING, nx=True, ex=ttl):
            try:
                answer = await create()
            except BaseException:
                await redis.delete(name)
                raise
            await redis.set(name, orjson.dumps(answer), ex=ttl)
            return answer
        deadline = self._clock() + WAIT_SECONDS
        while True:
            value = await redis.get(name)
            if value is None:  # the first request failed: this one makes the room
                return await self._shared(name, create)
            if value != _PENDING:
                kept: Answer = orjson.loads(value)
                return kept
            if self._clock() > deadline:
                raise HTTPException(409, "a room for this Idempotency-Key is still being made",
                                    headers={"Retry-After": "1"})
            await asyncio.sleep(_POLL_SECONDS)
