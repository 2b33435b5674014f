"""One thread that runs blocking calls in the order they were handed to it, each answered on the
event loop that handed it over: the journal's batches (``Database.write``).

The database handle's pool of worker threads (``concurrent.futures``) answers through two
futures chained across threads, a condition variable and a work item per call: about 25 us of
CPU a call beyond the thread hand-off itself, and the journal makes one call per transaction,
up to thousands a second (docs/performance.md, "The cost of durable rooms"). Here a call is one
entry on a ``SimpleQueue`` and one ``call_soon_threadsafe`` back; the order is the order handed
over, which the journal needs anyway (its batches are written one at a time, in order).
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from typing import Any

_Call = tuple[asyncio.Future[Any], asyncio.AbstractEventLoop, Callable[..., Any], tuple[Any, ...]]


class CallLane:
    """Runs calls on one thread of its own (started at the first call), in order."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.running: int | None = None
        """The thread's id while it runs a call (to cut a call stuck on a silent server)."""
        self.ident: int | None = None
        """The thread's id once it has started (a call may ask whether it runs on it)."""

    def submit(self, call: Callable[..., Any], args: tuple[Any, ...]) -> asyncio.Future[Any]:
        """Hand ``call(*args)`` over; the future (of the running loop) gets its result or its
        error. A call whose future is done before the thread came to it (cancelled, or failed
        by its caller's deadline) is skipped."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if self._thread is None:
            self._start()
        self._calls.put((future, loop, call, args))
        return future

    def stop(self) -> None:
        """The thread ends after the calls handed over so far (it is a daemon: it never holds
        the process up)."""
        if self._thread is not None:
            self._calls.put(None)

    def _start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
                self._thread.start()

    def _serve(self) -> None:
        self.ident = threading.get_ident()
        while (item := self._calls.get()) is not None:
            future, loop, call, args = item
            if future.done():  # its caller gave up waiting (a deadline): not run late
                continue
            self.running = self.ident
            try:
                result = call(*args)
            except BaseException as error:  # noqa: BLE001 - handed to the caller, whatever it is
                _answer(loop, _fail, future, error)
            else:
                _answer(loop, _succeed, future, result)
            finally:
                self.running = None


def _answer(loop: asyncio.AbstractEventLoop, how: Callable[[asyncio.Future[Any], Any], None],
            future: asyncio.Future[Any], value: Any) -> None:
    try:
        loop.call_soon_threadsafe(how, future, value)
    except RuntimeError:  # the loop has closed: nobody waits for the answer
        pass


def _succeed(future: asyncio.Future[Any], result: Any) -> None:
    if not future.done():
        future.set_result(result)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)
