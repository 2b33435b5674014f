"""The bare baseline: a FastAPI WebSocket broadcast server with no game and no database.

A room is a list of sockets. Each ``action`` frame a socket sends bumps the room's version and
one ``state`` frame (orjson) goes to every socket of the room, awaited in the sender's own
reader task: no actor, no queue, no writer task, no validation, no per-seat view. The frames look
enough like the real ones (``welcome``, ``state`` with ``version`` and a counter ``view``) for the
same bots (bench/load.py, ``counter`` scenario) to play against it, so the real server's cost
shows as a ratio of the two figures. ``BENCH_BARE_FRAME_BYTES`` (``load.py --bare-frame-bytes``)
pads each state frame with a ``pad`` string to about that many bytes, so that the bare server
sends frames the size of the real game's (bench/run_all.py passes Panika's).

Run the benchmark against it (it is served by bench/serve.py with the same uvicorn settings as
the real server: permessage-deflate off, 64 KB frames):

    .venv/bin/python bench/bare_broadcast.py --rooms 50 --duration 10          # saturation
    .venv/bin/python bench/bare_broadcast.py --rooms 1000 --rate 2000 --duration 20

(any bench/load.py option works; this is ``load.py --server bare --scenario counter``).

The heartbeat: like the real server (docs/protocol.md, "Presence"), each room pings its sockets
every ``PING_INTERVAL_SECONDS`` (1 s, the real server's default; ``load.py --ping-interval``
sets both) with a ``ping`` frame carrying ``t`` and the room's round trips, and a ``pong``
with a ``t`` it sent counts as that socket's round trip: the frames the real server sends and
reads besides the game's, at the least it can cost, so that the ratio of the two servers is one
of the same frames. ``BENCH_BARE_HEARTBEAT=0`` leaves it out (the broadcast alone).

The collector: the site's schedule (app/collector.py, with the site's settings: young passes
every ``GC_YOUNG_SECONDS``, what survives frozen), as any server with thousands of sockets
should run it. Left to CPython's automatic collection, the bare server paused 390-515 ms at
4,000 connections for a full pass (one in most 8-12 s windows): its p99 was its collector's,
and the capacity ladder found no rate it kept 10 ms at (docs/performance.md, "The method").
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import Response

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.collector import run_collector_schedule  # noqa: E402
from app.config import get_settings  # noqa: E402

FRAME_BYTES = int(os.environ.get("BENCH_BARE_FRAME_BYTES") or 0)
"""The size a state frame is padded to (0: no padding)."""
_UNPADDED = 190
"""About the size of a state frame without its padding."""
PAD = "x" * max(0, FRAME_BYTES - _UNPADDED)
HEARTBEAT = os.environ.get("BENCH_BARE_HEARTBEAT", "1") != "0"
PING_SECONDS = float(os.environ.get("PING_INTERVAL_SECONDS") or 1.0)


class BareRoom:
    __slots__ = ("sockets", "version", "counter", "pings", "rtts", "pinger")

    def __init__(self) -> None:
        self.sockets: list[WebSocket] = []
        self.version = 0
        self.counter = 0
        self.pings: dict[int, float] = {}
        """The last ping's ``t`` and when it left."""
        self.rtts: dict[str, int] = {}
        self.pinger: asyncio.Task[None] | None = None

    async def heartbeat(self) -> None:
        loop = asyncio.get_running_loop()
        t = 0
        while self.sockets:
            await asyncio.sleep(PING_SECONDS)
            t += 1
            self.pings = {t: loop.time()}
            text = orjson.dumps({"type": "ping", "t": t, "rtt": self.rtts}).decode()
            for peer in list(self.sockets):
                await peer.send_text(text)
        self.pinger = None

    def pong(self, ws: WebSocket, t: Any) -> None:
        sent = self.pings.get(t)
        if sent is not None:
            self.rtts[str(id(ws) % 1000)] = round((asyncio.get_running_loop().time() - sent) * 1000)

    def state(self) -> str:
        return orjson.dumps({
            "type": "state", "version": self.version, "seat": None,
            "view": {"counter": self.counter, "phase": "counting", "round": 1,
                     "last_burst": None, "taps": [0, 0, 0, 0], "you": None},
            "active": [0, 1, 2, 3], "timers": [], "events": [], "pad": PAD,
        }).decode()


@asynccontextmanager
async def collected(_app: FastAPI) -> AsyncIterator[None]:
    """The site's collector schedule while the app runs (the module doc)."""
    settings = get_settings()
    collector = asyncio.get_running_loop().create_task(run_collector_schedule(
        settings.gc_young_seconds, settings.gc_full_seconds, settings.gc_thaw_seconds))
    yield
    collector.cancel()


def create_bare_app() -> FastAPI:
    app = FastAPI(lifespan=collected)
    rooms: dict[str, BareRoom] = {}
    codes = itertools.count(1)

    @app.post("/api/rooms", status_code=201)
    async def create_room(request: Request) -> Response:
        await request.body()
        code = f"R{next(codes)}"
        rooms[code] = BareRoom()
        body = {"code": code, "member": 1, "token": code, "room_url": "", "join_url": ""}
        return Response(orjson.dumps(body), status_code=201, media_type="application/json")

    @app.websocket("/ws/{code}")
    async def room_socket(ws: WebSocket, code: str) -> None:
        await ws.accept()
        room = rooms.get(code)
        if room is None:
            await ws.close(code=4404)
            return
        joined = False
        try:
            while True:
                message: Any = orjson.loads(await ws.receive_text())
                kind = message.get("type")
                if kind == "action":
                    action = message.get("action") or {}
                    room.version += 1
                    if action.get("type") == "tap":
                        room.counter += 1
                    elif action.get("type") == "reset":
                        room.counter = 0
                    text = room.state()
                    for peer in room.sockets:
                        await peer.send_text(text)
                elif kind == "join" and not joined:
                    joined = True
                    seat = len(room.sockets)
                    room.sockets.append(ws)
                    await ws.send_text(orjson.dumps({
                        "type": "welcome", "room": code, "member": seat + 1, "seat": seat,
                        "token": None, "watching": False}).decode())
                    await ws.send_text(room.state())
                    if HEARTBEAT and room.pinger is None:
                        room.pinger = asyncio.create_task(room.heartbeat())
                elif kind == "pong":
                    room.pong(ws, message.get("t"))
                # start and anything else: ignored
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            if ws in room.sockets:
                room.sockets.remove(ws)

    return app


if __name__ == "__main__":
    import load  # bench/load.py (this directory is sys.path[0])

    sys.exit(load.main(["--server", "bare", "--scenario", "counter", *sys.argv[1:]]))
