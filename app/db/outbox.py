"""Nothing finished is lost: the outbox of matches not yet in the database, and its writer.

A finished match is first written to local disk (``var/outbox/``, one JSON file per match,
atomically: a temporary file, fsync, rename, fsync of the folder), and only then offered to the
database. A match whose first write fails waits in the outbox; one background task writes the
waiting matches with retries and capped exponential backoff until the database has them, then
deletes their files; the backoff ends early when the rooms' journal sees the database answer
again (``retry_now``). At start-up the writer takes up whatever the outbox holds, so a restart
(or a crash) keeps what was pending. Writes are idempotent (``save_match`` finds a match by its
unique seed hash), so a write whose answer was lost, retried, stores the match once.
(docs/decisions/0017; docs/architecture.md, "Persistence".)
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from app.logs import cause

from .database import Database, DatabaseUnavailable, migrate
from .matches import MatchRecord, save_match

log = logging.getLogger(__name__)

SaveState = Callable[[str], None]
"""Told ``"retrying"`` when a match could not be written at once and waits in the outbox."""


class Outbox:
    """Finished matches not yet in the database: one JSON file each, in arrival order."""

    SUFFIX = ".json"

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def put(self, record: MatchRecord) -> str:
        """Keep ``record`` durably; returns its key. Atomic: the file is whole or absent."""
        self.directory.mkdir(parents=True, exist_ok=True)
        key = f"{time.time_ns():020d}-{record.seed_hash[:32]}"
        final = self.directory / f"{key}{self.SUFFIX}"
        temporary = self.directory / f".{key}.tmp"
        with open(temporary, "wb") as file:
            file.write(record.encoded())
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, final)
        self._sync_directory()
        return key

    def keys(self) -> list[str]:
        """The keys of the matches waiting, oldest first."""
        if not self.directory.is_dir():
            return []
        return sorted(p.name[: -len(self.SUFFIX)] for p in self.directory.glob(f"*{self.SUFFIX}")
                      if not p.name.startswith("."))

    def load(self, key: str) -> MatchRecord:
        return MatchRecord.from_json(orjson.loads((self.directory / f"{key}{self.SUFFIX}")
                                                  .read_bytes()))

    def remove(self, key: str) -> None:
        (self.directory / f"{key}{self.SUFFIX}").unlink(missing_ok=True)
        self._sync_directory()

    def set_aside(self, key: str) -> None:
        """An unreadable entry is kept for a person to look at, out of the writer's way."""
        path = self.directory / f"{key}{self.SUFFIX}"
        path.rename(path.with_suffix(".unreadable"))

    def _sync_directory(self) -> None:
        descriptor = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


class _Waiting:
    """A match in the outbox and the rooms waiting to hear its id."""

    __slots__ = ("record", "waiters", "attempts")

    def __init__(self, record: MatchRecord) -> None:
        self.record = record
        self.waiters: list[asyncio.Future[int]] = []
        self.attempts = 0


class MatchWriter:
    """Writes finished matches to the database through the outbox, retrying until it can."""

    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        *,
        first_delay: float = 0.5,
        max_delay: float = 30.0,
        schema_pending: bool = False,
    ) -> None:
        self.db = db
        self.outbox = outbox
        self.first_delay = first_delay
        self.max_delay = max_delay
        self.schema_pending = schema_pending
        """True when the start-up migration could not reach the database: the writer applies it
        before its next write."""
        self.database_down = False
        self._waiting: dict[str, _Waiting] = {}
        self._wake = asyncio.Event()
        self._retry = asyncio.Event()
        """Set by ``retry_now``: the backoff's wait ends at once."""
        self._task: asyncio.Task[None] | None = None
        self._memory_keys = 0
        self._keeping: set[asyncio.Future[str]] = set()

    # --- the life of the writer ------------------------------------------------------------
    async def start(self) -> None:
        """Take up every match the outbox holds (left by an outage, a restart or a crash)."""
        for key in await asyncio.to_thread(self.outbox.keys):
            try:
                record = await asyncio.to_thread(self.outbox.load, key)
            except Exception:  # noqa: BLE001 - one bad file must not stop the others
                log.exception("outbox entry %s is unreadable; set aside", key)
                await asyncio.to_thread(self.outbox.set_aside, key)
                continue
            self._waiting[key] = _Waiting(record)
        if self._waiting:
            log.warning("%d finished matches wait in the outbox", len(self._waiting))
        self._task = asyncio.get_running_loop().create_task(self._write_forever(),
                                                            name="match-writer")
        self._wake.set()

    async def stop(self, keep_seconds: float = 5.0) -> None:
        """Stop retrying; whatever waits stays in the outbox for the next start.

        Matches that ended just before (their rooms' save tasks may not have run yet) are first
        given the chance to reach the outbox: nothing finished is lost to a shutdown.
        """
        for _ in range(3):
            await asyncio.sleep(0)
        if self._keeping:
            await asyncio.wait(set(self._keeping), timeout=keep_seconds)
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    def pending_count(self) -> int:
        """Finished matches not yet in the database."""
        return len(self._waiting)

    def retry_now(self) -> None:
        """The database answers again (the rooms' journal saw it: app/realtime/durable/journal.py): the
        matches waiting are written now instead of after the rest of the backoff, which may
        be up to ``max_delay``."""
        if self._waiting or self.schema_pending:
            self._retry.set()

    # --- saving one match ------------------------------------------------------------------
    async def save(self, record: MatchRecord, on_state: SaveState | None = None) -> int:
        """Keep ``record`` in the outbox, then write it; returns its id once the database has it.

        The first write is attempted at once (unless the database is known to be down); if it
        fails, ``on_state("retrying")`` is called and the match waits for the background writer.
        """
        keeping = asyncio.get_running_loop().run_in_executor(None, self.outbox.put, record)
        self._keeping.add(keeping)
        keeping.add_done_callback(self._keeping.discard)
        try:
            key = await asyncio.shield(keeping)
        except OSError:
            log.exception("could not keep the match in the outbox; it waits in memory only")
            self._memory_keys += 1
            key = f"memory-{self._memory_keys}"
        else:
            if not self.database_down and not self.schema_pending:
                try:
                    match_id = await self.db.store(save_match, self.db, record=record)
                except DatabaseUnavailable as error:  # the outbox keeps the match
                    log.warning("could not save match %s yet (%s); it waits in the outbox",
                                record.seed_hash[:12], cause(error))
                    self.database_down = True
                except Exception:  # noqa: BLE001 - a bug: the outbox keeps the match all the same
                    log.exception("could not save match %s; it waits in the outbox",
                                  record.seed_hash[:12])
                    self.database_down = False
                else:
                    await self._forget(key)
                    return match_id
        if on_state is not None:
            on_state("retrying")
        waiting = self._waiting.setdefault(key, _Waiting(record))
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        waiting.waiters.append(future)
        self._wake.set()
        return await future

    # --- the background writer -------------------------------------------------------------
    def _backoff(self, attempt: int) -> float:
        """Capped exponential backoff, with up to 20% jitter so several servers do not march."""
        delay = min(self.max_delay, self.first_delay * 2 ** max(0, attempt - 1))
        return delay * (1 + random.random() * 0.2)  # noqa: S311 - timing jitter, not a secret

    async def _write_forever(self) -> None:
        failures = 0
        while True:
            if not self._waiting and not self.schema_pending:  # a pending schema: retried too
                self._wake.clear()
                await self._wake.wait()
                continue
            if await self._write_waiting():
                failures = 0
                continue
            failures += 1
            self._retry.clear()
            try:
                await asyncio.wait_for(self._retry.wait(), self._backoff(failures))
            except TimeoutError:
                pass

    async def _write_waiting(self) -> bool:
        """One pass over the waiting matches, oldest first; True when all of them were written.

        A database that is down ends the pass (the next pass waits for the backoff); a match the
        database refuses for another reason is retried in later passes without holding up the
        matches behind it.
        """
        if self.schema_pending:
            try:
                await self.db.run(migrate, self.db.url, timeout=self.db.timeout,
                                  deadline=max(60.0, self.db.deadline))
            except DatabaseUnavailable as error:  # retried with backoff
                log.warning("the database schema could not be brought up to date yet (%s)",
                            cause(error))
                return False
            except Exception:  # noqa: BLE001 - a bug or a broken migration: retried too
                log.exception("the database schema could not be brought up to date")
                return False
            self.schema_pending = False
        for key in list(self._waiting):
            waiting = self._waiting[key]
            waiting.attempts += 1
            try:
                match_id = await self.db.store(save_match, self.db, record=waiting.record)
            except DatabaseUnavailable as error:
                self.database_down = True
                log.warning("the database is unavailable (%s); %d matches wait in the outbox",
                            cause(error), len(self._waiting))
                return False
            except Exception:  # noqa: BLE001 - kept and retried; the others go on
                log.exception("match %s (attempt %d) was refused by the database",
                              waiting.record.seed_hash[:12], waiting.attempts)
                continue
            self.database_down = False
            await self._forget(key)  # the file goes first: nothing counted done is still kept
            del self._waiting[key]
            for future in waiting.waiters:
                if not future.done():
                    future.set_result(match_id)
            log.info("match %s saved as %d after %d attempts", waiting.record.seed_hash[:12],
                     match_id, waiting.attempts)
        return not self._waiting

    async def _forget(self, key: str) -> None:
        if not key.startswith("memory-"):
            await asyncio.to_thread(self.outbox.remove, key)
