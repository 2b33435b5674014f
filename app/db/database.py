"""The database handle: an engine, a session factory, and schema migration through Alembic.

No database call may hang the site (docs/architecture.md, "Persistence"): every connection has a
connect timeout, every PostgreSQL statement a statement timeout and every SQLite write a busy
timeout, and ``Database.run`` runs a call on the handle's own worker threads with a deadline,
turning "no answer" and "refused" alike into ``DatabaseUnavailable``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import os
import socket
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import orjson

from sqlalchemy import Engine, create_engine, event, exc, text
from sqlalchemy.orm import Session, sessionmaker

from app.config import PROJECT_ROOT
from app.db.lane import CallLane

T = TypeVar("T")

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_SECONDS = 5.0
SLOW_CONNECT_SECONDS = 1.0
"""A connection attempt that failed after this long met a silent server, not a closed port."""
DB_THREADS = 8
"""Worker threads of one ``Database``: a call stuck on a silent server holds one of these, never
a thread of the event loop's shared pool."""


class DatabaseUnavailable(Exception):
    """The database refused the connection, or did not answer within its time."""


UNAVAILABLE_ERRORS: tuple[type[Exception], ...] = (
    exc.OperationalError, exc.InterfaceError, exc.TimeoutError, TimeoutError, DatabaseUnavailable,
)
"""What "the database is down or too slow" looks like from here: a refused or timed-out
connection, a statement cancelled by its timeout, a locked SQLite file, an empty pool."""


def _too_late(limit: float) -> DatabaseUnavailable:
    """A call that did not answer within ``limit`` seconds (``Database.run`` and ``write``)."""
    return DatabaseUnavailable(f"the database did not answer within {limit:g} s")


def _refused(error: BaseException) -> DatabaseUnavailable:
    """A refusal or a timeout of the driver's, reported as its first line."""
    return DatabaseUnavailable(str(error).splitlines()[0])


def json_dumps(value: object) -> str:
    """JSON text as the JSON columns keep it (orjson)."""
    return orjson.dumps(value).decode()


JSON_CODEC = {"json_serializer": json_dumps, "json_deserializer": orjson.loads}
"""JSON columns (options, action log) through orjson: a match's log is thousands of values."""


def engine_options(url: str, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> dict[str, Any]:
    """``create_engine`` keyword arguments that bound every call by ``timeout`` seconds.

    PostgreSQL (libpq): ``connect_timeout`` (whole seconds, at least 2: libpq's floor), a
    ``statement_timeout`` and ``lock_timeout`` for every session, TCP keepalives so a vanished
    server is noticed, and a pool that waits at most ``timeout`` for a free connection. SQLite:
    the busy timeout (how long a write waits for a lock held by another connection). A pooled
    connection is checked before use by ``Database`` itself (see ``_watch_connections``).
    """
    if url.startswith("sqlite"):
        return {"connect_args": {"timeout": timeout, "check_same_thread": False}}
    options: dict[str, Any] = {"pool_timeout": timeout}
    if url.startswith("postgresql"):
        ms = int(timeout * 1000)
        options["connect_args"] = {
            "connect_timeout": max(2, math.ceil(timeout)),
            "options": f"-c statement_timeout={ms} -c lock_timeout={ms}",
            "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
            "keepalives_count": 2, "tcp_user_timeout": ms,
        }
    return options


def make_engine(url: str, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> Engine:
    """An engine for ``url`` with bounded calls; SQLite gets foreign keys, WAL, and every commit
    flushed to the disk before it returns (``synchronous=FULL``, said here rather than left to
    the library's compiled-in default: a move is on the disk before any client sees it,
    docs/decisions/0037-a-commit-is-on-disk-before-its-move-is-shown.md)."""
    if url.startswith("sqlite"):
        if ":///" in url and not url.endswith(":memory:"):
            Path(url.split(":///", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, **engine_options(url, timeout), **JSON_CODEC)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record):
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.close()

        return engine
    return create_engine(url, **engine_options(url, timeout), **JSON_CODEC)


def alembic_config(
    url: str, timeout: float = DEFAULT_TIMEOUT_SECONDS
):
    """An Alembic configuration pointing at ``migrations/`` and ``url``."""
    from alembic.config import Config

    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["timeout"] = timeout
    return config


@lru_cache
def latest_revisions() -> tuple[str, ...]:
    """The head revisions of ``migrations/`` (the schema this code expects)."""
    from alembic.script import ScriptDirectory

    return tuple(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads())


def migrate(url: str, revision: str = "head", timeout: float = DEFAULT_TIMEOUT_SECONDS) -> None:
    """Bring the schema at ``url`` up to ``revision`` (the only way the schema changes)."""
    from alembic import command

    command.upgrade(alembic_config(url, timeout), revision)


class Database:
    """One database: its engine, its sessions, and its own worker threads."""

    def __init__(self, url: str, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        self.url = url
        self.timeout = timeout
        self.engine = make_engine(url, timeout)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._threads = ThreadPoolExecutor(DB_THREADS, thread_name_prefix="db")
        self._writer = CallLane("db-journal")
        """The journal's thread: its batches, one at a time, in order (``write``)."""
        self._writer_connection: Any = None
        """The writer thread's own driver connection (``writer_connection``)."""
        self._held: dict[int, set[Any]] = {}
        self._held_lock = threading.Lock()
        self._silent = False
        self._silent_until = 0.0
        """Until then, a new connection is refused at once: the last attempt waited for its
        connect timeout on a silent server, and every page would wait as long again."""
        self._watch_connections()

    # --- connections stuck on a silent server ----------------------------------------------
    def _watch_connections(self) -> None:
        """Know which thread holds which DBAPI connection, and check a pooled connection before
        use (SQLAlchemy's ``pool_pre_ping``, done here after the connection is known, so that a
        ping that never returns can be cut too; a failed ping makes the pool reconnect).

        A connection attempt that timed out on a silent server makes the next ones fail at once
        for the larger of 2 s and ``timeout``; then one attempt finds out while the others still
        fail at once, until one succeeds. While the database is silent every page answers 503 at
        once, instead of each waiting for its own connect timeout."""
        pinging = not self.url.startswith("sqlite")

        window = max(2.0, self.timeout)

        @event.listens_for(self.engine, "do_connect")
        def _connect(dialect, _record, cargs, cparams):
            started = time.monotonic()
            with self._held_lock:
                if started < self._silent_until:
                    raise DatabaseUnavailable("the database did not answer a moment ago")
                if self._silent:  # this attempt finds out; the others meanwhile do not wait
                    self._silent_until = started + window
            try:
                connection = dialect.connect(*cargs, **cparams)
            except Exception as error:
                # psycopg keeps an attempt that timed out (its socket too) in a reference cycle:
                # the error, its traceback, the frame that raised it. Cleared here, the socket
                # closes now, not at the collector's next full pass, which may be a minute or,
                # once frozen, hours away (app/collector.py): a silent server kept one open
                # connection per probe every 2 s.
                traceback.clear_frames(error.__traceback__)
                if self._silent or time.monotonic() - started >= SLOW_CONNECT_SECONDS:
                    with self._held_lock:
                        self._silent, self._silent_until = True, time.monotonic() + window
                raise
            with self._held_lock:
                self._silent, self._silent_until = False, 0.0
            return connection

        @event.listens_for(self.engine, "connect")
        def _fresh(_dbapi_connection, record):
            record.info["fresh"] = True

        @event.listens_for(self.engine, "checkout")
        def _checkout(dbapi_connection, record, _proxy):
            with self._held_lock:
                self._held.setdefault(threading.get_ident(), set()).add(dbapi_connection)
            if pinging and not record.info.pop("fresh", False):
                try:
                    cursor = dbapi_connection.cursor()
                    cursor.execute("SELECT 1")
                    cursor.close()
                except Exception as error:
                    self._release(dbapi_connection)
                    raise exc.DisconnectionError(str(error)) from error

        @event.listens_for(self.engine, "checkin")
        def _checkin(dbapi_connection, _record):
            self._release(dbapi_connection)

        @event.listens_for(self.engine, "invalidate")
        def _invalidated(dbapi_connection, _record, _error):
            self._release(dbapi_connection)

    def _release(self, dbapi_connection: Any) -> None:
        with self._held_lock:
            for thread, held in list(self._held.items()):
                held.discard(dbapi_connection)
                if not held:
                    del self._held[thread]

    def _cut(self, thread: int | None) -> None:
        """Free a thread stuck on a server that stopped answering mid-conversation (no statement
        timeout can fire: the server never heard the statement): shut its connection's socket
        down, so the call fails at once and the pool replaces the connection."""
        with self._held_lock:
            held = list(self._held.get(thread, ())) if thread is not None else []
        for dbapi_connection in held:
            try:
                if hasattr(dbapi_connection, "interrupt"):  # sqlite3
                    dbapi_connection.interrupt()
                    continue
                duplicate = socket.socket(fileno=os.dup(dbapi_connection.fileno()))
                try:
                    duplicate.shutdown(socket.SHUT_RDWR)
                finally:
                    duplicate.close()
            except Exception:  # noqa: BLE001 - already closed: nothing left to free
                log.debug("could not cut a database connection", exc_info=True)

    def session(self) -> Session:
        return self.sessions()

    @property
    def deadline(self) -> float:
        """How long ``run`` waits for a call: the engine's own timeouts, and one second more."""
        return self.timeout + 1.0

    async def run(
        self, call: Callable[..., T], /, *args: Any, deadline: float | None = None, **kwargs: Any
    ) -> T:
        """``call(*args, **kwargs)`` on a database thread, within ``deadline`` seconds.

        Raises ``DatabaseUnavailable`` when the database refuses, times out or does not answer in
        time; the event loop never waits on the database.
        """
        loop = asyncio.get_running_loop()
        worker: list[int] = []  # the thread running the call, while it runs

        def work() -> T:
            worker.append(threading.get_ident())
            try:
                return call(*args, **kwargs)
            finally:
                worker.clear()

        future = loop.run_in_executor(self._threads, work)
        return await self._answer(future, deadline, lambda: worker[0] if worker else None)

    async def write(self, call: Callable[..., T], /, *args: Any,
                    deadline: float | None = None) -> T:
        """``call(*args)`` on the handle's writer thread, after the calls handed to it before,
        within ``deadline`` seconds: ``run`` for the journal, whose batches are written one at
        a time and in order, handed over at less cost (app/db/lane.py). A call abandoned at its
        deadline is cut as in ``run``; one not yet started then is never run."""
        # The deadline is a timer on the loop that fails the future (``_expire``), not
        # ``asyncio.wait_for``: its own future, callback and extra turn of the loop cost about
        # 7 us of CPU a call, and the journal makes one call a transaction (docs/performance.md,
        # "The cost of durable rooms"). What a late call meets is ``_answer``'s.
        future: asyncio.Future[T] = self._writer.submit(call, args)
        limit = self.deadline if deadline is None else deadline
        timer = asyncio.get_running_loop().call_later(limit, self._expire, future, limit)
        try:
            return await future
        except DatabaseUnavailable:
            raise
        except UNAVAILABLE_ERRORS as error:
            raise _refused(error) from error
        finally:
            timer.cancel()

    def _expire(self, future: asyncio.Future[Any], limit: float) -> None:
        """A writer's call still unanswered at its deadline: cut on the writer thread if it
        runs (``_cut``), never run if it has not started (``CallLane`` skips a call whose
        future is done), and reported as ``DatabaseUnavailable``."""
        if future.done():
            return
        self._cut(self._writer.running)
        future.set_exception(_too_late(limit))

    async def _answer(self, future: asyncio.Future[T], deadline: float | None,
                      running: Callable[[], int | None]) -> T:
        """``future``'s result within ``deadline`` seconds (the handle's own by default); past
        it, the call is cut on the thread ``running()`` names and, as any refusal or timeout,
        reported as ``DatabaseUnavailable``."""
        limit = self.deadline if deadline is None else deadline
        try:
            return await asyncio.wait_for(future, limit)
        except TimeoutError as error:
            self._cut(running())
            raise _too_late(limit) from error
        except UNAVAILABLE_ERRORS as error:
            raise _refused(error) from error

    async def store(self, call: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """A write besides the journal's (a finished match): on SQLite on the journal's writer
        thread, in turn with its batches (``write``), on the connection it keeps; elsewhere on
        the handle's worker threads (``run``). SQLite takes one writer at a time: a second
        thread writing meets the file's lock and its busy handler, which sleeps 1, 2, 5, 10 ms
        and longer between tries, and holds the journal's batch, with every room's frames, the
        same way (docs/performance.md, "The cost of durable rooms")."""
        if self.engine.dialect.name == "sqlite":
            return await self.write(functools.partial(call, *args, **kwargs))
        return await self.run(call, *args, **kwargs)

    def driver_transaction(self, work: Callable[[Any], T]) -> T:
        """``work(connection)`` on a driver connection, then the commit (blocking): the writer
        thread's own connection on that thread (``writer_connection``: no check-out), else one
        taken from the engine's pool and given back. Either way the watch of stuck connections
        (``_cut``) sees it, and a connection that failed is never used again (it may be half-way
        through a transaction). The driver's own errors are raised as SQLAlchemy raises them
        (``OperationalError`` and the rest: ``UNAVAILABLE_ERRORS`` names the kinds that mean the
        database is away)."""
        dbapi_error = self.engine.dialect.loaded_dbapi.Error
        try:
            return self._in_driver_transaction(work)
        except dbapi_error as error:
            raise exc.DBAPIError.instance(None, None, error, dbapi_error) from error

    def _in_driver_transaction(self, work: Callable[[Any], T]) -> T:
        held = self.writer_connection()
        if held is not None:
            try:
                result = work(held)
                held.commit()
            except BaseException:
                self.drop_writer_connection()
                raise
            return result
        connection = self.engine.raw_connection()
        try:
            result = work(connection)
            connection.commit()
        except BaseException:
            connection.invalidate()
            raise
        finally:
            connection.close()
        return result

    def writer_connection(self) -> Any:
        """On the writer thread (``write``): its own driver connection, taken from the pool once
        and kept, so that a batch of moves pays for no check-out, check-in and reset (about 30
        us of CPU a transaction on SQLite: docs/performance.md, "The cost of durable rooms").
        It is held as a pooled connection is while in use (``_cut`` can free it); after any
        failure the caller drops it (``drop_writer_connection``) and the next batch takes a
        fresh one, checked as every check-out is. None on any other thread: the pool's way."""
        if threading.get_ident() != self._writer.ident:
            return None
        if self._writer_connection is None:
            self._writer_connection = self.engine.raw_connection()
        return self._writer_connection

    def drop_writer_connection(self) -> None:
        """The writer's connection failed (or the handle closes): never used again, its
        driver connection closed; the pool opens another when one is wanted."""
        connection, self._writer_connection = self._writer_connection, None
        if connection is None:
            return
        try:
            connection.invalidate()  # its driver connection closed, never back in use
            connection.close()  # its place in the pool given back
        except Exception:  # noqa: BLE001 - already broken: nothing left to close
            log.debug("could not close the writer's connection", exc_info=True)

    def ping(self) -> bool:
        """Whether the database answers a trivial query (blocking; see ``ping_within``)."""
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
            return True
        except Exception:  # noqa: BLE001 - any failure means "not healthy"
            return False

    async def ping_within(self, seconds: float) -> bool:
        """Whether the database answers a trivial query within ``seconds``."""
        try:
            return await self.run(self.ping, deadline=seconds)
        except DatabaseUnavailable:
            return False

    def schema_revisions(self) -> tuple[str, ...]:
        """The Alembic revisions the database says its schema is at (its ``alembic_version``;
        empty before the first migration). Blocking; raises when the database does not answer."""
        from alembic.runtime.migration import MigrationContext

        with self.engine.connect() as connection:
            return tuple(MigrationContext.configure(connection).get_current_heads())

    def dispose(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)
        self._writer.stop()
        self.drop_writer_connection()
        self.engine.dispose()
