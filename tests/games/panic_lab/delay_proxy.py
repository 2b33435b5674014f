"""A TCP proxy on 127.0.0.1 that delays every chunk, in both directions, by a fixed time.

Put it in front of the live server to give one WebSocket client a slow line: with a delay of
``d`` seconds, every frame reaches the other side ``d`` later than it was sent (order kept, no
bandwidth limit), so the client's round trip grows by ``2 * d``.

Per connection and direction, a reader thread stamps each chunk with its due time and a writer
thread sends it when due; a half-closed side is passed on after the data in flight.
"""

from __future__ import annotations

import queue
import socket
import threading
import time
from typing import Any


class DelayProxy:
    def __init__(self, target_port: int, delay: float, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.delay = delay
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self.port: int = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._closed = threading.Event()
        self._accepter = threading.Thread(target=self._accept, daemon=True, name="delay-proxy")

    # --- the URL a test client connects to -------------------------------------------------------
    def ws_url(self, code: str) -> str:
        """Like ``LiveServer.ws_url``, so ``tests.live.Client(proxy, code)`` goes through it."""
        return f"ws://127.0.0.1:{self.port}/ws/{code}"

    def __enter__(self) -> DelayProxy:
        self._accepter.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._closed.set()
        for s in [self._listener, *self._sockets]:
            try:
                s.close()
            except OSError:
                pass

    # --- plumbing ------------------------------------------------------------------------------
    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            for s in (client, upstream):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._sockets += [client, upstream]
            self._pipe(client, upstream)
            self._pipe(upstream, client)

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        chunks: queue.Queue[tuple[float, bytes]] = queue.Queue()

        def read() -> None:
            while True:
                try:
                    data = src.recv(65536)
                except OSError:
                    data = b""
                chunks.put((time.monotonic() + self.delay, data))
                if not data:
                    return

        def write() -> None:
            while True:
                due, data = chunks.get()
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                try:
                    if not data:
                        dst.shutdown(socket.SHUT_WR)
                        return
                    dst.sendall(data)
                except OSError:
                    return

        threading.Thread(target=read, daemon=True).start()
        threading.Thread(target=write, daemon=True).start()
