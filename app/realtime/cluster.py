"""Several server processes joined through Redis: a directory of rooms and a frame relay.

Each room lives in exactly one process (its *node*): its actor and state stay there. Redis holds
the directory (``{prefix}:room:{code}`` → the owning node and a public summary, with a time to
live that the owner keeps refreshing), so room codes are unique across nodes and any node can
list the public rooms. A client whose WebSocket lands on another node is relayed: that node
checks the frame (size, rate, shape) and publishes it on the owner's channel
(``{prefix}:node:{id}``); the owner hands it to the room through a ``RelayConnection``, whose
outgoing frames travel back on the client node's channel. Redis is the engine; nothing here
stores game state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import Any

import orjson
import redis.asyncio as aioredis

from .connection import Connection
from .protocol import ProtocolError, encode, error_frame, parse_client_frame

log = logging.getLogger(__name__)

DIRECTORY_TTL_SECONDS = 30
REFRESH_SECONDS = 5.0


class RelayConnection(Connection):
    """A client connected to another node, as the owning room sees it."""

    __slots__ = ("_cluster", "_node", "key")

    def __init__(self, cluster: Cluster, node: str, key: str) -> None:
        super().__init__()
        self._cluster = cluster
        self._node = node
        self.key = key

    def send_text(self, text: str) -> None:
        if not self.closed:
            self._cluster.publish(self._node, {"op": "out", "conn": self.key, "text": text})

    def send_control(self, text: str) -> None:
        """Pings and pongs travel as every frame does (durable rooms' gate: journal.py)."""
        self.send_text(text)

    def close(self, code: int = 1000, error: tuple[str, str] | None = None) -> None:
        if not self.closed:
            if error is not None:
                self.error(*error)
            self.closed = True
            self._cluster.publish(self._node, {"op": "close", "conn": self.key, "code": code})


class Cluster:
    """This process's membership in a group of nodes sharing one Redis."""

    def __init__(self, url: str, prefix: str = "pp") -> None:
        self.redis = aioredis.from_url(url)
        self.prefix = prefix
        self.node = secrets.token_hex(6)
        self._find_room: Callable[[str], Any] = lambda code: None
        self._relays: dict[str, RelayConnection] = {}
        """Connections on other nodes to rooms on this one, by ``node:id``."""
        self._remote: dict[str, Connection] = {}
        """Connections on this node to rooms on other nodes, by ``node:id``."""
        self._outgoing: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._pubsub: Any = None

    # --- life ----------------------------------------------------------------------------------
    async def start(self, find_room: Callable[[str], Any]) -> None:
        self._find_room = find_room
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self._channel(self.node))
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._publish())]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        await self.redis.aclose()

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except Exception:  # noqa: BLE001 - any failure means "not healthy"
            return False

    def _channel(self, node: str) -> str:
        return f"{self.prefix}:node:{node}"

    def _room_key(self, code: str) -> str:
        return f"{self.prefix}:room:{code}"

    # --- the directory -------------------------------------------------------------------------
    async def claim_code(self, code: str, summary: dict[str, Any]) -> bool:
        """Reserve ``code`` for a room of this node; False when another node holds it."""
        value = orjson.dumps({"node": self.node, **summary})
        return bool(
            await self.redis.set(self._room_key(code), value, nx=True, ex=DIRECTORY_TTL_SECONDS)
        )

    async def refresh(self, summaries: dict[str, dict[str, Any]]) -> None:
        """Keep this node's rooms in the directory (called every few seconds)."""
        if not summaries:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for code, summary in summaries.items():
                value = orjson.dumps({"node": self.node, **summary})
                pipe.set(self._room_key(code), value, ex=DIRECTORY_TTL_SECONDS)
            await pipe.execute()

    async def forget(self, code: str) -> None:
        current = await self.lookup(code)
        if current is not None and current.get("node") == self.node:
            await self.redis.delete(self._room_key(code))

    async def lookup(self, code: str) -> dict[str, Any] | None:
        raw = await self.redis.get(self._room_key(code))
        return orjson.loads(raw) if raw else None

    async def rooms(self) -> list[dict[str, Any]]:
        """Every room of every node, as the directory holds them."""
        keys = [key async for key in self.redis.scan_iter(match=self._room_key("*"), count=500)]
        if not keys:
            return []
        values = await self.redis.mget(keys)
        return [orjson.loads(v) for v in values if v]

    # --- the relay: the client's side ----------------------------------------------------------
    def open_remote(self, owner: str, code: str, conn: Connection) -> str:
        key = f"{self.node}:{conn.id}"
        self._remote[key] = conn
        self.publish(owner, {"op": "open", "code": code, "conn": key, "from": self.node})
        return key

    def forward(self, owner: str, code: str, key: str, text: str) -> None:
        self.publish(owner, {"op": "frame", "code": code, "conn": key, "text": text})

    def close_remote(self, owner: str, code: str, key: str) -> None:
        self._remote.pop(key, None)
        self.publish(owner, {"op": "closed", "code": code, "conn": key})

    # --- messages between nodes ----------------------------------------------------------------
    def publish(self, node: str, message: dict[str, Any]) -> None:
        self._outgoing.put_nowait((self._channel(node), orjson.dumps(message)))

    async def _publish(self) -> None:
        while True:
            batch = [await self._outgoing.get()]
            while not self._outgoing.empty():
                batch.append(self._outgoing.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, payload in batch:
                        pipe.publish(channel, payload)
                    await pipe.execute()
            except Exception:  # noqa: BLE001 - a Redis hiccup loses these frames, not the node
                log.exception("cluster: could not publish %d messages", len(batch))

    async def _listen(self) -> None:
        async for item in self._pubsub.listen():
            try:
                self._dispatch(orjson.loads(item["data"]))
            except Exception:  # noqa: BLE001 - one bad message must not stop the listener
                log.exception("cluster: could not handle a message")

    def _dispatch(self, message: dict[str, Any]) -> None:
        op, key = message["op"], message["conn"]
        if op == "out":
            conn = self._remote.get(key)
            if conn is not None:
                conn.send_text(message["text"])
        elif op == "close":
            conn = self._remote.pop(key, None)
            if conn is not None:
                conn.close(message.get("code", 1000))
        elif op == "open":
            self._relays[key] = RelayConnection(self, message["from"], key)
        elif op == "frame":
            self._relay_frame(message["code"], key, message["text"])
        elif op == "closed":
            relay = self._relays.pop(key, None)
            room = self._find_room(message["code"])
            if relay is not None and room is not None:
                room.post("closed", relay)

    def _relay_frame(self, code: str, key: str, text: str) -> None:
        relay = self._relays.get(key)
        if relay is None:
            return
        room = self._find_room(code)
        if room is None or room.closed:
            relay.send_text(encode(error_frame("no_such_room", f"there is no room {code!r}")))
            relay.close()
            return
        try:
            message = parse_client_frame(text)
        except ProtocolError as exc:
            relay.error(exc.code, exc.message)
            return
        if not room.inbox.allow():  # the room's share of frames, relayed ones included
            relay.error("rate_limited", "this room is busy; slow down", getattr(message, "ref", None))
            return
        room.post("frame", relay, message)
