"""A database that fails on demand: a TCP proxy on 127.0.0.1 in front of a real server.

Modes: ``forward`` (a healthy database), ``refuse`` (the port is closed), ``stall`` (a server that
accepts connections and never answers). Leaving ``forward`` for those cuts the connections it
carried, as an outage does; ``freeze`` keeps them open but carries nothing more either way (a
server that stops answering in the middle of a conversation), and new connections stall.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from sqlalchemy.engine import make_url

from tests.live import free_port


class DatabaseProxy:
    def __init__(self, upstream_url: str) -> None:
        self.upstream_url = upstream_url
        upstream = make_url(upstream_url)
        self.upstream = (upstream.host or "127.0.0.1", upstream.port or 5432)
        self.port = free_port()
        self.url = upstream.set(host="127.0.0.1", port=self.port).render_as_string(
            hide_password=False)
        self.mode = "forward"
        self.accepted = 0
        self.stalled = 0
        """Connections held unanswered now (``stall``, ``freeze``)."""
        self.most_stalled = 0
        """The most connections held unanswered at once (a test may reset it)."""
        self._server: asyncio.base_events.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._handlers: set[asyncio.Task[None]] = set()
        """The connections' tasks, awaited at exit (a task left pending when the loop stops is
        reported as destroyed while pending)."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> DatabaseProxy:
        self._thread.start()
        self._call(self._listen())
        return self

    def __exit__(self, *exc: object) -> None:
        self._call(self._close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def set_mode(self, mode: str) -> None:
        assert mode in ("forward", "refuse", "stall", "freeze"), mode
        self._call(self._set_mode(mode))

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    async def _listen(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port,
                                                      reuse_address=True)

    async def _cut(self) -> None:
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()

    async def _stop(self) -> None:
        await self._cut()
        if self._server is not None:
            self._server.close()
            self._server = None

    async def _close(self) -> None:
        await self._stop()
        if self._handlers:
            await asyncio.wait(list(self._handlers), timeout=5)

    async def _set_mode(self, mode: str) -> None:
        if mode != self.mode and "freeze" not in (mode, self.mode):
            await self._cut()
        self.mode = mode
        if mode == "refuse":
            await self._stop()
        else:
            await self._listen()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        self._writers.add(writer)
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)
        try:
            if self.mode in ("stall", "freeze"):
                self.stalled += 1
                self.most_stalled = max(self.most_stalled, self.stalled)
                try:
                    while await reader.read(65536):
                        pass  # heard, never answered
                finally:
                    self.stalled -= 1
                return
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
            self._writers.add(up_writer)
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        except OSError:
            pass
        finally:
            writer.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                if self.mode == "forward":
                    writer.write(data)
                    await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()
