"""A real server for tests: uvicorn on a free 127.0.0.1 port in a thread, and WebSocket clients
that keep every frame they receive (so a test can walk them all for secrets)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from app.config import Settings
from app.http_protocol import http_protocol
from app.main import create_app


def pending_tasks() -> str:
    """Every unfinished asyncio task of this process and where it waits (the diagnosis of a
    server that does not stop)."""
    import gc

    lines = []
    for task in [obj for obj in gc.get_objects() if isinstance(obj, asyncio.Task)]:
        if not task.done():
            where = " <- ".join(f"{frame.f_code.co_qualname}:{frame.f_lineno}"
                                for frame in reversed(task.get_stack(limit=6)))
            lines.append(f"{task.get_name()}: {where}")
    return "\n".join(lines)


def run_async(coro: Any) -> Any:
    """Run a coroutine to the end in a fresh event loop of its own thread (the browser tests'
    Playwright keeps an event loop running in the main thread, where ``asyncio.run`` refuses)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def free_port() -> int:
    """A port for a server another process (or a later start) binds: free now, drawn at random
    below the kernel's ephemeral range, so that the outgoing connections of the tests running
    in parallel (to PostgreSQL, Redis, the servers) cannot take it before the server binds it."""
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randrange(20_000, 32_768)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port below 32768")


def bound_socket() -> socket.socket:
    """A listening socket on a free port, for a server in this process: bound before the
    server starts, so no other test can take its port meanwhile."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


class LocalSite:
    """The addresses of a site served on 127.0.0.1 at ``port``, and a room made over HTTP (the
    in-process server, a server process, a proxy in front of processes)."""

    port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, code: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/{code}"

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=10)

    def create_room(self, game: str, nickname: str = "Host", **body: Any) -> dict[str, Any]:
        with self.http() as client:
            response = client.post("/api/rooms", json={"game": game, "nickname": nickname, **body})
            response.raise_for_status()
            return response.json()


SQLITE_FILE = "panic-party.sqlite3"
"""The database file of a var folder without a ``database_url`` (``Settings``)."""
_migrated: list[Path] = []


def migrated_sqlite(var_dir: Path) -> None:
    """Put a copy of an empty database already at the newest revision into ``var_dir`` (unless
    it holds a database already): the server's start then finds nothing to migrate. Migrating a
    new SQLite file from nothing cost each in-process server about 60 ms of CPU (hundreds of
    servers in a run); the copy is SQLite's own backup of a file this process migrated once,
    so it is exactly what the migrations make."""
    import atexit
    import shutil
    import sqlite3
    import tempfile

    from app.db.database import migrate

    target = var_dir / SQLITE_FILE
    if target.exists():
        return
    if not _migrated:
        folder = tempfile.mkdtemp(prefix="migrated-")
        atexit.register(shutil.rmtree, folder, True)
        template = Path(folder) / SQLITE_FILE
        migrate(f"sqlite:///{template}")
        _migrated.append(template)
    var_dir.mkdir(parents=True, exist_ok=True)
    source, copy = sqlite3.connect(_migrated[0]), sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()


def deal_from(monkeypatch: Any, seed: bytes) -> None:
    """Every match a room of this test process starts (a ``LiveServer`` serves in this process)
    deals from ``seed``: the same match every run, where a test plays one whole (the seed is
    otherwise the operating system's, ``app.engine.new_seed``)."""
    from app.realtime.room import life

    monkeypatch.setattr(life, "MatchRun", functools.partial(life.MatchRun, seed=seed))


class LiveServer(LocalSite):
    """The whole app served by uvicorn, as in production, on a loopback port."""

    def __init__(self, var_dir: Path, database_url: str = "", deflate: bool = False,
                 **settings: Any) -> None:
        # ``deflate``: uvicorn's permessage-deflate, which the site's server turns off
        # (app/server.py); on only for a test of the path a compressed connection takes.
        # The collector schedule is process-wide: tests keep CPython's own (several servers
        # share one test process).
        settings.setdefault("gc_young_seconds", 0)
        # A test's client answers pings only while it reads: the presence timeout (a silent
        # connection closed) is on only where a test asks for it (the browser tests do).
        settings.setdefault("presence_timeout_seconds", 0)
        self.settings = Settings(
            var_dir=var_dir, database_url=database_url, secret_key="test-secret", **settings
        )
        if not database_url and self.settings.migrate_on_start:
            migrated_sqlite(var_dir)
        self.app = create_app(self.settings)
        self.socket = bound_socket()
        self.port = self.socket.getsockname()[1]
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, log_level="warning",
            ws_max_size=64 * 1024, ws_per_message_deflate=deflate, lifespan="on",
            http=http_protocol(self.settings),
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]},
                                       daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        self.socket.close()
        # A server that does not stop is a defect (a shutdown waiting for ever), not a detail.
        assert not self.thread.is_alive(), f"the test server did not stop; waiting:\n{pending_tasks()}"


    @property
    def registry(self):  # type: ignore[no-untyped-def]
        return self.app.state.registry


class ClientPool:
    """Opens clients on any server and closes them all at the end (``with ClientPool() as open``)."""

    def __init__(self) -> None:
        self.opened: list[Client] = []

    def __call__(self, server: LiveServer, code: str) -> Client:
        client = Client(server, code)
        self.opened.append(client)
        return client

    def __enter__(self) -> ClientPool:
        return self

    def __exit__(self, *exc: object) -> None:
        for client in self.opened:
            try:
                client.close()
            except Exception:  # noqa: BLE001 - already closed by the server or the test
                pass


class Client:
    """A real WebSocket client of one room; ``frames`` keeps everything it received, in order
    (``raw``: the texts as they came over the wire)."""

    def __init__(self, server: LiveServer, code: str) -> None:
        # Entered by hand: the client lives as long as the test keeps it (closed by ``close``).
        # No keepalive of the client's own: a test client reads when its test asks, and on a
        # busy machine the library's 20 s ping timeout closed connections mid-test (1011). The
        # server's pings and presence are what the tests check.
        # No bound on the frames it holds unread (``max_queue``): with the library's 16, a test
        # that stopped reading left the server's close frame unread behind its pings, and the
        # close at the end waited its whole 10 s timeout.
        self.ws = connect(server.ws_url(code), max_size=2**22, open_timeout=10,
                          ping_interval=None, max_queue=None).__enter__()
        self.frames: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self._cursor = 0
        self.member: int | None = None
        self.seat: int | None = None
        self.token: str | None = None

    def send(self, frame: dict[str, Any] | str) -> None:
        self.ws.send(frame if isinstance(frame, str) else json.dumps(frame))

    def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        text = self.ws.recv(timeout=timeout)
        self.raw.append(text)
        frame = json.loads(text)
        self.frames.append(frame)
        if frame["type"] == "welcome":
            self.member, self.seat, self.token = frame["member"], frame["seat"], frame["token"]
        elif frame["type"] == "ping":
            # A ping read after the server's close arrived (pings pass a durable room's frame
            # gate, the frames held behind it do not): the pong cannot go, and the frames still
            # queued (the close's error frame among them) are read before recv reports the close.
            with contextlib.suppress(ConnectionClosed):
                self.send({"type": "pong", "t": frame["t"]})
        elif frame["type"] == "room" and self.member is not None:
            mine = next((m for m in frame["members"] if m["id"] == self.member), None)
            if mine is not None:
                self.seat = mine["seat"]
        return frame

    def wait_for(
        self, kind: str, where: Callable[[dict[str, Any]], bool] = lambda f: True,
        timeout: float = 5.0,
    ) -> dict[str, Any]:
        """The next frame of ``kind`` matching ``where`` (earlier unread frames are searched too)."""
        while self._cursor < len(self.frames):
            frame = self.frames[self._cursor]
            self._cursor += 1
            if frame["type"] == kind and where(frame):
                return frame
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {kind!r} frame arrived in {timeout} s")
            frame = self.recv(timeout=left)
            self._cursor = len(self.frames)
            if frame["type"] == kind and where(frame):
                return frame

    def drain(self, quiet: float = 0.2) -> None:
        """Read until nothing arrives for ``quiet`` seconds."""
        try:
            while True:
                self.recv(timeout=quiet)
        except TimeoutError:
            pass

    def latest_state(self) -> dict[str, Any] | None:
        states = [f for f in self.frames if f["type"] == "state"]
        return states[-1] if states else None

    def join(self, nickname: str | None = None, token: str | None = None, watch: bool = False):
        frame: dict[str, Any] = {"type": "join"}
        if nickname:
            frame["nickname"] = nickname
        if token:
            frame["token"] = token
        if watch:
            frame["watch"] = True
        self.send(frame)
        return self.wait_for("welcome")

    def action(self, action: dict[str, Any], ref: int | None = None) -> None:
        frame: dict[str, Any] = {"type": "action", "action": action}
        if ref is not None:
            frame["ref"] = ref
        self.send(frame)

    def close(self) -> None:
        self.ws.close()
