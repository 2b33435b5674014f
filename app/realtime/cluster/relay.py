"""Several server processes joined through Redis: room leases, a directory and a one-hop relay
(docs/architecture.md, "Several processes").

Each room lives in exactly one process (its *node*), the holder of the room's lease
(``lease.py``): its actor and state stay there. A client whose WebSocket lands on another node is
relayed: that node checks the frame (size, rate, shape) and publishes it on the owner's channel
(``{prefix}:node:{id}``); the owner hands it to the room through a ``RelayConnection``. The
owner's frames for the clients of one node travel back as one message per node and moment
(``out``: every frame of a broadcast for that node's clients, each text once with the keys of
the clients it is for, in order), fanned out to the sockets there. A ``RelayConnection`` sends
through the room's frame gate like a local connection, so a relayed client never sees a move the
database does not have. Every node watches the relays it serves: a relay whose room's lease
changed hands or vanished (its owner died or stopped) is closed with 1012, so the page
reconnects to the room's new owner; an owner drops the relayed clients of a node that died.
Redis is the engine; nothing here stores game state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

import orjson
import redis.asyncio as aioredis
import redis.exceptions

from app.logs import cause
from app.realtime.cluster.lease import Leases
from app.realtime.room.effects import Closed, Frame
from app.realtime.room.protocol import ProtocolError, parse_client_frame
from app.realtime.transport.connection import Connection, Message

log = logging.getLogger(__name__)

LEASE_SECONDS = 6.0
"""A room's lease lives this long unless renewed (``LEASE_SECONDS``); renewed every third."""
CLOSE_SERVER_RESTARTING = 1012
RESTARTING = ("server_restarting", "the server is restarting; back in a moment")
CLOSE_TRY_AGAIN_LATER = 1013
UNAVAILABLE = ("unavailable", "the server cannot reach its room directory; try again in a moment")

REDIS_ERRORS: tuple[type[Exception], ...] = (
    redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
"""What the Redis client raises when Redis is away (refused, cut, silent)."""
REDIS_DOWN: tuple[type[Exception], ...] = (*REDIS_ERRORS, TimeoutError)
"""The same, and a call to Redis that ran past its time limit: an outage to wait out."""


class Outage:
    """How a node says that Redis is away: one warning when a call first fails, one when a call
    succeeds again, however many calls fail in between (those only at debug level): an outage
    is one event in the log, not a traceback per publish or per page (docs/decisions/0045)."""

    def __init__(self) -> None:
        self.since: float | None = None
        """``time.monotonic()`` of the outage's first failure; None while Redis answers."""
        self.failures = 0

    def failed(self, doing: str, error: BaseException) -> None:
        self.failures += 1
        why = cause(error)
        if self.since is None:
            self.since = time.monotonic()
            log.warning("cluster: Redis does not answer (%s: %s); rooms that need it wait, "
                        "pages are told to come back (1013)", doing, why)
        else:
            log.debug("cluster: Redis still away (%s: %s)", doing, why)

    def ok(self) -> None:
        if self.since is not None:
            log.warning("cluster: Redis answers again after %.1f s (%d calls failed meanwhile)",
                        time.monotonic() - self.since, self.failures)
            self.since = None
            self.failures = 0


class RelayConnection(Connection):
    """A client connected to another node, as the owning room sees it.

    Its frames pass the room's gate like a local connection's (``Connection.send_text`` and
    ``close``); what the gate lets out (``_write``) joins this moment's message to the client's
    node instead of a socket. Pings and pongs (``send_control``) skip the gate, as locally."""

    __slots__ = ("_cluster", "node", "key", "code")

    def __init__(self, cluster: Cluster, node: str, key: str, code: str) -> None:
        super().__init__()
        self._cluster = cluster
        self.node = node
        self.key = key
        self.code = code

    def send_control(self, text: str) -> None:
        if not self.closed:
            self._cluster.deliver(self.node, self.key, text)

    def _write(self, message: Message) -> None:
        if message["type"] == "websocket.send":
            data = message["text"]  # the room's bytes; carried as text between the nodes
            self._cluster.deliver(self.node, self.key,
                                  data.decode() if isinstance(data, bytes) else data)
        else:
            self._cluster.deliver_close(self.node, self.key, message.get("code", 1000))


class Cluster:
    """This process's membership in a group of nodes sharing one Redis."""

    def __init__(self, url: str, prefix: str = "pp", lease_seconds: float = LEASE_SECONDS) -> None:
        self.redis = aioredis.from_url(url)
        self.prefix = prefix
        self.node = secrets.token_hex(6)
        self.leases = Leases(self.redis, prefix, self.node, lease_seconds)
        self.lease_seconds = lease_seconds
        self._find_room: Callable[[str], Any] = lambda code: None
        self._relays: dict[str, RelayConnection] = {}
        """Connections on other nodes to rooms on this one, by ``node:id``."""
        self._remote: dict[str, tuple[Connection, str, str]] = {}
        """Connections on this node to rooms on other nodes, by ``node:id``: (the connection,
        the owning node, the room's code)."""
        self._out: dict[str, list[list[Any]]] = {}
        """This moment's frames for each other node's clients (``deliver``), sent together."""
        self._held: dict[str, list[dict[str, Any]]] = {}
        """Relayed messages for rooms being taken over here, kept until the room is ready."""
        self._outgoing: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        self._publishing = False
        """A batch is on its way to Redis (``stop`` waits for it)."""
        self._tasks: list[asyncio.Task[None]] = []
        self._pubsub: Any = None
        self._stopping = False
        """Set by ``stop``: the loops end at their next turn. A cancellation alone may not end
        them: the Redis client swallows one that arrives during a command (seen with
        redis-py 8), and ``stop`` then waited for the task for ever."""
        self.outage = Outage()
        """Redis being away, logged once per outage (the registry reports to it too)."""

    # --- life ----------------------------------------------------------------------------------
    async def start(self, find_room: Callable[[str], Any]) -> None:
        self._find_room = find_room
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self._channel(self.node))
        await self.leases.heartbeat()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._publish()),
                       loop.create_task(self._watch())]

    async def stop(self, timeout: float = 1.0) -> None:
        """Send what is waiting to go out (the closes of relayed clients), then leave."""
        self._flush()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (not self._outgoing.empty() or self._publishing) and loop.time() < deadline:
            await asyncio.sleep(0.01)
        self._stopping = True
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            # A task whose cancellation a Redis call swallowed ends at its loop's next turn.
            done, pending = await asyncio.wait(self._tasks, timeout=max(timeout, 1.0))
            for task in done:
                if not task.cancelled():
                    task.exception()  # retrieved: a task that ended by an error is not news
            for task in pending:
                log.warning("cluster: task %s did not stop", task.get_name())
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.redis.delete(self.leases.alive_key(self.node))
        await self.redis.aclose()

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except Exception:  # noqa: BLE001 - any failure means "not healthy"
            return False

    def _channel(self, node: str) -> str:
        return f"{self.prefix}:node:{node}"

    # --- rooms being taken over here -----------------------------------------------------------
    def hold(self, code: str) -> None:
        """Relayed frames for ``code`` wait: the room is being rebuilt on this node."""
        self._held.setdefault(code, [])

    def unhold(self, code: str) -> None:
        """The room is ready (or was not found): the frames that waited are handled now."""
        for message in self._held.pop(code, []):
            self._dispatch(message)

    # --- the relay: the client's side ----------------------------------------------------------
    def open_remote(self, owner: str, code: str, conn: Connection) -> str:
        """Relay ``conn`` to room ``code`` on ``owner``. When this node gives up on the
        connection (it fell behind: ``too_slow``), the owner is told at once that it is gone,
        so its member shows as disconnected there as it would locally, not only once the
        socket is dropped (docs/protocol.md, "Close codes")."""
        key = f"{self.node}:{conn.id}"
        self._remote[key] = (conn, owner, code)
        self.publish(owner, {"op": "open", "code": code, "conn": key, "from": self.node})
        conn.on_gone = lambda gone: self.close_remote(owner, code, key)
        return key

    def forward(self, owner: str, code: str, key: str, text: str) -> None:
        self.publish(owner, {"op": "frame", "code": code, "conn": key, "text": text})

    def close_remote(self, owner: str, code: str, key: str) -> None:
        self._remote.pop(key, None)
        self.publish(owner, {"op": "closed", "code": code, "conn": key})

    # --- the relay: the owner's side -----------------------------------------------------------
    def deliver(self, node: str, key: str, text: str) -> None:
        """A frame for client ``key`` on ``node``: it joins this moment's message to that node;
        the same text for the next client there is carried once (a broadcast's room frame, a
        spectator's view)."""
        items = self._pending(node)
        last = items[-1] if items else None
        if last is not None and last[0] == "t" and (last[1] is text or last[1] == text):
            last[2].append(key)
        else:
            items.append(["t", text, [key]])

    def deliver_close(self, node: str, key: str, code: int) -> None:
        self._pending(node).append(["c", key, code])

    def _pending(self, node: str) -> list[list[Any]]:
        items = self._out.get(node)
        if items is None:
            if not self._out:
                asyncio.get_running_loop().call_soon(self._flush)
            items = self._out[node] = []
        return items

    def _flush(self) -> None:
        out, self._out = self._out, {}
        for node, items in out.items():
            self.publish(node, {"op": "out", "items": items})

    # --- messages between nodes ----------------------------------------------------------------
    def publish(self, node: str, message: dict[str, Any]) -> None:
        self._outgoing.put_nowait((self._channel(node), orjson.dumps(message)))

    async def _publish(self) -> None:
        while not self._stopping:
            batch = [await self._outgoing.get()]
            while not self._outgoing.empty():
                batch.append(self._outgoing.get_nowait())
            self._publishing = True
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, payload in batch:
                        pipe.publish(channel, payload)
                    await pipe.execute()
            except REDIS_DOWN as error:  # an outage loses these frames, not the node
                self.outage.failed(f"publishing {len(batch)} messages", error)
            except Exception:  # noqa: BLE001 - a bug loses these frames, not the node
                log.exception("cluster: could not publish %d messages", len(batch))
            else:
                self.outage.ok()
            finally:
                self._publishing = False

    async def _listen(self) -> None:
        while not self._stopping:
            try:
                async for item in self._pubsub.listen():
                    try:
                        self._dispatch(orjson.loads(item["data"]))
                    except Exception:  # noqa: BLE001 - one bad message must not stop the rest
                        log.exception("cluster: could not handle a message")
            except asyncio.CancelledError:
                raise
            except REDIS_DOWN as error:  # Redis went away: listen again once it is back
                self.outage.failed("listening to this node's channel", error)
                await self._subscribe_again()
            except Exception:  # noqa: BLE001 - not an outage: logged whole, listened to again
                log.exception("cluster: the subscription broke; subscribing again")
                await self._subscribe_again()

    async def _subscribe_again(self) -> None:
        await asyncio.sleep(0.5)
        with contextlib.suppress(Exception):
            await self._pubsub.subscribe(self._channel(self.node))

    def _dispatch(self, message: dict[str, Any]) -> None:
        op = message["op"]
        if op == "out":
            self._fan_out(message["items"])
            return
        code: str = message.get("code") or ""
        if code in self._held and op in ("frame", "closed"):
            self._held[code].append(message)
            return
        key = message["conn"]
        if op == "open":
            self._relays[key] = RelayConnection(self, message["from"], key, code)
        elif op == "frame":
            self._relay_frame(code, key, message["text"])
        elif op == "closed":
            relay = self._relays.pop(key, None)
            room = self._find_room(code)
            if relay is not None and room is not None:
                room.post(Closed(relay))

    def _fan_out(self, items: list[list[Any]]) -> None:
        """One node's share of the owner's frames: each text to each of its clients here."""
        remote = self._remote
        for item in items:
            if item[0] == "t":
                data = item[1].encode()  # once for all of its clients here
                for key in item[2]:
                    entry = remote.get(key)
                    if entry is not None:
                        entry[0].send_text(data)
            else:
                entry = remote.pop(item[1], None)
                if entry is not None:
                    entry[0].close(item[2])

    def _relay_frame(self, code: str, key: str, text: str) -> None:
        relay = self._relays.get(key)
        if relay is None:
            return
        room = self._find_room(code)
        if room is None or room.state.closed:
            # Not (or no longer) here: the page reconnects and finds the room where it is now
            # (or learns that it is gone).
            log.info("cluster: a frame for room %s, which is not here; relay closed (1012)", code)
            relay.close(CLOSE_SERVER_RESTARTING, RESTARTING)
            self._relays.pop(key, None)
            return
        try:
            message = parse_client_frame(text, room.state.game)
        except ProtocolError as exc:
            relay.error(exc.code, exc.message, exc.ref)
            return
        if not room.inbox.allow():  # the room's share of frames, relayed ones included
            relay.error("rate_limited", "this room is busy; slow down", getattr(message, "ref", None))
            return
        room.post(Frame(relay, message))

    # --- watching the relays -------------------------------------------------------------------
    async def _watch(self) -> None:
        """Every third of a lease: this node's heartbeat; relays to a room whose lease is gone
        or held by another node than the one relayed to are closed (1012: the page reconnects
        to the new owner); relayed clients of a node that died leave their rooms here."""
        while not self._stopping:
            await asyncio.sleep(self.lease_seconds / 3)
            try:
                await self.leases.heartbeat()
                await self._check_remote()
                await self._check_relays()
            except REDIS_DOWN as error:  # Redis may come back; checked again next time
                self.outage.failed("checking the relays", error)
            except Exception:  # noqa: BLE001 - a bug: checked again next time
                log.exception("cluster: could not check the relays")
            else:
                self.outage.ok()

    async def _check_remote(self) -> None:
        if not self._remote:
            return
        # Only the relays open before the look-up: one opened while it ran is not in it.
        checked = list(self._remote.items())
        owners = await self.leases.owners(sorted({code for _, (_, _, code) in checked}))
        moved: dict[str, tuple[str, int]] = {}
        for key, (conn, owner, code) in checked:
            if key in self._remote and owners[code] != owner:
                self._remote.pop(key, None)
                conn.close(CLOSE_SERVER_RESTARTING, RESTARTING)
                moved[code] = (owner, moved.get(code, (owner, 0))[1] + 1)
        for code, (owner, n) in moved.items():
            log.warning("cluster: room %s left node %s (now: %s); %d relayed clients closed "
                        "(1012)", code, owner, owners.get(code) or "nobody", n)

    async def _check_relays(self) -> None:
        if not self._relays:
            return
        alive = await self.leases.alive(sorted({r.node for r in self._relays.values()}))
        for key, relay in list(self._relays.items()):
            if not alive.get(relay.node, True):
                del self._relays[key]
                relay.closed = True
                room = self._find_room(relay.code)
                if room is not None:
                    room.post(Closed(relay))
