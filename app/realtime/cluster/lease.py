"""Room leases and the room directory in Redis (docs/architecture.md, "Several processes").

A room is owned by exactly one process (its *node*) at a time: the node whose id is the value of
the room's lease key ``{prefix}:lease:{code}``. Every claim and takeover also draws a fencing
token from ``{prefix}:fence:{code}`` (a counter): the database keeps the owner's token with the
room, and a process whose token is lower writes nothing more there (app/db/rooms.py). The lease has a time to live (``LEASE_SECONDS``);
the owner renews all its leases together every third of it, with a compare-and-renew script (a
lease whose value is no longer this node's id is not touched and is reported lost). A node's id
is fresh for every process start, so it is the fencing value: a process never renews a lease it
did not take itself. Whoever finds a room's lease gone (the room's owner died or stopped) may
take it with ``SET NX``: exactly one node wins.

The directory lives next to the leases, written only by the owner in the same scripts:

- ``{prefix}:rooms``, a hash: code -> the room's public summary (JSON with the owning node);
- ``{prefix}:rooms:expiry``, a sorted set: code -> when the entry goes stale (ms since the
  epoch): the owner pushes it forward on every renewal; an entry past it belongs to a dead or
  stopped owner, and the sweepers of the other nodes take its room over (a node stopping
  gracefully sets it to 0 so that this happens at once);
- ``{prefix}:lobby``, a sorted set of the public rooms still waiting for players, scored by the
  same expiry: the lobby's list is this set (pruned by score) and the hash, no key scan.

Each node also keeps a heartbeat, ``{prefix}:alive:{node}``, with the same time to live: the
owner of a room drops the relayed clients of a node whose heartbeat ran out (cluster.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import redis.asyncio as aioredis

# KEYS: the hash, the expiry set, the lobby set, then one lease key per room.
# ARGV: node, ttl ms, expiry ms, then three per room: code, summary JSON, "1" if in the lobby.
# Renews each lease this node holds and writes its directory entry; returns the 1-based
# positions of the rooms whose lease is not this node's any more (lost).
_RENEW = """
local lost = {}
for i = 4, #KEYS do
  local at = 4 + (i - 4) * 3
  local code = ARGV[at]
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[2])
    redis.call('HSET', KEYS[1], code, ARGV[at + 1])
    redis.call('ZADD', KEYS[2], ARGV[3], code)
    if ARGV[at + 2] == '1' then
      redis.call('ZADD', KEYS[3], ARGV[3], code)
    else
      redis.call('ZREM', KEYS[3], code)
    end
  else
    table.insert(lost, i - 3)
  end
end
return lost
"""

# KEYS: the lease, the hash, the expiry set, the lobby set, the fence counter. ARGV: node,
# ttl ms, code, summary, expiry ms, "1" if in the lobby. A new room's code: free only if no
# lease and no directory entry names it (a dead node's room that nobody has taken over yet
# keeps its code). Returns the new fencing token, or 0 when the code is taken.
_CLAIM = """
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1 then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[3])
if ARGV[6] == '1' then redis.call('ZADD', KEYS[4], ARGV[5], ARGV[3]) end
return redis.call('INCR', KEYS[5])
"""

# KEYS: the lease, the fence counter. ARGV: node, ttl ms. A takeover: the lease if nobody holds
# it, with a new fencing token (0: another node holds the lease).
_ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return 0
"""

# KEYS: the fence counter. ARGV: a token the database holds. The counter is raised past it.
_RAISE = """
local at = tonumber(redis.call('GET', KEYS[1]) or '0')
if at < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return redis.call('INCR', KEYS[1])
"""

# KEYS: the hash, the expiry set, the lobby set, then one lease key per room.
# ARGV: node, mode, then one code per room. Only leases this node holds are let go. Mode
# "forget": the room is gone (its directory entry goes too); "handover": the room lives on
# in the database (its entry is marked stale at once, so another node takes it over now).
_RELEASE = """
local released = 0
for i = 4, #KEYS do
  local code = ARGV[i - 1]
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
    redis.call('ZREM', KEYS[3], code)
    if ARGV[2] == 'forget' then
      redis.call('HDEL', KEYS[1], code)
      redis.call('ZREM', KEYS[2], code)
    else
      redis.call('ZADD', KEYS[2], 0, code)
    end
    released = released + 1
  end
end
return released
"""

# KEYS: the hash, the lobby set. ARGV: now ms. Prunes stale lobby entries, returns the others.
_LOBBY = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1])
local codes = redis.call('ZRANGE', KEYS[2], 0, -1)
local out = {}
for i = 1, #codes, 500 do
  local chunk = {}
  for j = i, math.min(i + 499, #codes) do chunk[#chunk + 1] = codes[j] end
  local values = redis.call('HMGET', KEYS[1], unpack(chunk))
  for _, v in ipairs(values) do if v then out[#out + 1] = v end end
end
return out
"""

def now_ms(clock: Callable[[], float] = time.time) -> int:
    """The wall clock in ms: the directory's expiry scores (node clocks must agree, as NTP
    keeps them, to within a fraction of the lease; the leases themselves run on Redis's clock)."""
    return int(clock() * 1000)


@dataclass(frozen=True, slots=True)
class Entry:
    """A room as this node renews it: its code, its summary, whether the lobby lists it."""

    code: str
    summary: dict[str, Any]
    lobby: bool


class Leases:
    """The leases and the directory of one site (one ``prefix``), as seen by node ``node``."""

    def __init__(self, redis: aioredis.Redis, prefix: str, node: str,
                 ttl_seconds: float, clock: Callable[[], float] = time.time) -> None:
        self.redis = redis
        self.clock = clock
        """The wall clock (seconds) of the directory's expiry scores (a test moves one by
        hand; the leases' time to live runs on Redis's clock)."""
        self.prefix = prefix
        self.node = node
        self.ttl_ms = max(1, int(ttl_seconds * 1000))
        self.rooms_key = f"{prefix}:rooms"
        self.expiry_key = f"{prefix}:rooms:expiry"
        self.lobby_key = f"{prefix}:lobby"
        self._renew = redis.register_script(_RENEW)
        self._claim = redis.register_script(_CLAIM)
        self._acquire = redis.register_script(_ACQUIRE)
        self._raise = redis.register_script(_RAISE)
        self._release = redis.register_script(_RELEASE)
        self._lobby = redis.register_script(_LOBBY)

    def lease_key(self, code: str) -> str:
        return f"{self.prefix}:lease:{code}"

    def fence_key(self, code: str) -> str:
        """The room's fencing counter: raised by every claim and takeover, never expired (a
        counter that restarted could hand out a token lower than one the database holds);
        at most one key per possible code."""
        return f"{self.prefix}:fence:{code}"

    def _value(self, summary: dict[str, Any]) -> bytes:
        return orjson.dumps({**summary, "node": self.node})

    # --- owning -------------------------------------------------------------------------------
    async def fence_above(self, code: str, recorded: int) -> int:
        """A fencing token above ``recorded`` (one the database holds), for a room whose lease
        this node holds: Redis's counter had forgotten it (its data was lost)."""
        return int(await self._raise(keys=[self.fence_key(code)], args=[recorded]))

    async def claim(self, entry: Entry) -> int:
        """A new room's code, with its lease and directory entry: its fencing token (positive),
        or 0 when the code is taken (leased, or in the directory)."""
        return int(await self._claim(
            keys=[self.lease_key(entry.code), self.rooms_key, self.expiry_key, self.lobby_key,
                  self.fence_key(entry.code)],
            args=[self.node, self.ttl_ms, entry.code, self._value(entry.summary),
                  now_ms(self.clock) + self.ttl_ms, "1" if entry.lobby else "0"]))

    async def acquire(self, code: str) -> int:
        """The lease of an existing room nobody holds (a takeover): a new fencing token, higher
        than every earlier owner's, or 0 when a node holds the lease."""
        return int(await self._acquire(keys=[self.lease_key(code), self.fence_key(code)],
                                       args=[self.node, self.ttl_ms]))

    async def renew(self, entries: list[Entry]) -> list[str]:
        """Renew these rooms' leases and directory entries (one script for all); returns the
        codes whose lease this node no longer holds."""
        if not entries:
            return []
        args: list[Any] = [self.node, self.ttl_ms, now_ms(self.clock) + self.ttl_ms]
        for e in entries:
            args += [e.code, self._value(e.summary), "1" if e.lobby else "0"]
        lost = await self._renew(
            keys=[self.rooms_key, self.expiry_key, self.lobby_key,
                  *(self.lease_key(e.code) for e in entries)], args=args)
        return [entries[int(i) - 1].code for i in lost]

    async def release(self, codes: list[str], *, forget: bool) -> int:
        """Let go of these rooms' leases (only those this node holds). ``forget``: the rooms
        are gone; else they live on in the database and are marked for takeover at once."""
        if not codes:
            return 0
        return int(await self._release(
            keys=[self.rooms_key, self.expiry_key, self.lobby_key,
                  *(self.lease_key(c) for c in codes)],
            args=[self.node, "forget" if forget else "handover", *codes]))

    # --- reading ------------------------------------------------------------------------------
    async def owner(self, code: str) -> str | None:
        raw = await self.redis.get(self.lease_key(code))
        return _text(raw) if raw else None

    async def owners(self, codes: list[str]) -> dict[str, str | None]:
        """Each code's owning node (None: no lease)."""
        if not codes:
            return {}
        values = await self.redis.mget([self.lease_key(c) for c in codes])
        return {c: (_text(v) if v else None) for c, v in zip(codes, values, strict=True)}

    async def summary(self, code: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(self.rooms_key, code)
        return orjson.loads(raw) if raw else None

    async def lobby(self) -> list[dict[str, Any]]:
        """The public rooms waiting for players, on every node (stale entries pruned)."""
        values = await self._lobby(keys=[self.rooms_key, self.lobby_key],
                                   args=[now_ms(self.clock)])
        return [orjson.loads(v) for v in values]

    async def stale(self, limit: int = 50) -> list[str]:
        """Codes whose owner stopped renewing them: rooms to take over."""
        codes = await self.redis.zrangebyscore(self.expiry_key, "-inf", now_ms(self.clock),
                                               start=0, num=limit)
        return [_text(c) for c in codes]

    # --- nodes --------------------------------------------------------------------------------
    def alive_key(self, node: str) -> str:
        return f"{self.prefix}:alive:{node}"

    async def heartbeat(self) -> None:
        """This node is alive for one more lease time (renewed with the leases)."""
        await self.redis.set(self.alive_key(self.node), b"1", px=self.ttl_ms)

    async def alive(self, nodes: list[str]) -> dict[str, bool]:
        """Which of these nodes renewed their heartbeat within the last lease time."""
        if not nodes:
            return {}
        values = await self.redis.mget([self.alive_key(n) for n in nodes])
        return {n: v is not None for n, v in zip(nodes, values, strict=True)}


def _text(value: object) -> str:
    """A Redis reply as text (the client returns ``bytes``; typed as it may be configured)."""
    return value.decode() if isinstance(value, bytes) else str(value)
