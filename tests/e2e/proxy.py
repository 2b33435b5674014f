"""A TCP proxy on 127.0.0.1 that a test can cut (close both ends) or stall (stop forwarding).

Playwright's offline mode does not close WebSockets, and a dead Wi-Fi keeps a socket open while
nothing arrives: this proxy makes both happen between a real page and a real server.
"""

from __future__ import annotations

import asyncio
import threading

from tests.live import free_port


class TcpProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.server: asyncio.base_events.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        self.refusing = False
        self.stalled = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> TcpProxy:
        self.thread.start()
        self._call(self._start())
        return self

    def __exit__(self, *exc: object) -> None:
        self._call(self._stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)

    def _call(self, coro):  # type: ignore[no-untyped-def]
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    async def _start(self) -> None:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", self.port)

    async def _stop(self) -> None:
        await self._close_all()
        if self.server is not None:
            self.server.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refusing:
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self.writers.update((writer, up_writer))
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                while self.stalled.is_set():  # hold the bytes: nothing gets through
                    await asyncio.sleep(0.05)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()
            self.writers.discard(writer)

    async def _close_all(self) -> None:
        for writer in list(self.writers):
            writer.transport.abort()
        self.writers.clear()

    def cut(self, refuse: bool = True) -> None:
        """Close every connection at both ends; with ``refuse``, new ones are closed at once."""
        self.refusing = refuse
        self._call(self._close_all())

    def stall(self) -> None:
        """Keep every connection open but forward nothing (a dead Wi-Fi)."""
        self.stalled.set()

    def resume(self) -> None:
        """Forward again and accept new connections. Bytes held while stalled are dropped with
        their connections, as a dead network would."""
        if self.stalled.is_set():
            self._call(self._close_all())
        self.stalled.clear()
        self.refusing = False
