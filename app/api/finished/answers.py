"""Every answer about a finished match, built once, in a process of its own, and kept
(docs/decisions/0039-match-answers-are-built-once-in-a-process-of-their-own.md).

A finished match never changes, so each answer about it is built once per match id and
variant and kept in memory: the JSON of ``GET /api/matches/{id}`` with its draws and of
``GET /api/matches/{id}/replay?eyes=`` (gzip- and Brotli-compressed, served in the form the
client takes), and the match page's move list in each
language (``MatchStory``: its pages of lines, as JSON and as HTML, compressed; a request renders
the page around one of them). Concurrent requests for an answer wait for its one build, and the
builds of one match share one read of its record (on the database's threads, within its
deadline: ``Database.run``).

The building itself (a replay of the whole match, its draws, its story, their encoding and
compression: app/api/finished/builds.py) runs in one builder process, at a lower priority, never in
the server's own. A thread would not do: CPU work in a thread holds the interpreter's lock the
event loop needs, and on a busy machine the system suspends that thread with the lock held, so
every room of the process would wait for it (a player's ping waited up to 1.5 s while twelve
pages of a long match were built on one thread). The builder is shared by every app of the
process, started at its first build, and started again if it dies or if the registry of games
changed (a game registered while the process runs, as the conformance suite's example is).

The cache (``AnswerCache``) holds at most ``MAX_ENTRIES`` answers and ``MAX_BYTES`` bytes, the
least recently used dropped first: every answer of a maximal match (``Game.max_moves``) fits it
many times over (docs/protocol.md, "Answers about a finished match").
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gzip
import subprocess
import sys
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
from fastapi import Request
from fastapi.responses import Response
from markupsafe import Markup

from app.config import PROJECT_ROOT
from app.db import matches as store
from app.db.database import Database
from app.engine import all_packages

from . import builds
from .replay import Eyes
from .story import StoryLine

T = TypeVar("T")

Packed = tuple[bytes, bytes]
"""An answer as JSON, gzip-compressed and Brotli-compressed (``builds.packed``)."""

MAX_ENTRIES = 512
MAX_BYTES = 32 * 1024 * 1024
"""The cache's budget, compressed bytes. The largest answers are a maximal match's: the
counter's 10,000 moves are 86 KB of replay through each pair of eyes, 58 KB of match with its
draws and 190 KB of move list in each language (1.4 MB in all); Panic Lab's longest, ten
players to round 250, 230 KB of replay through each pair of eyes (2.6 MB in all)."""


class AnswerCache:
    """Answers kept by key: at most ``max_entries`` of them and ``max_bytes`` bytes in all (each
    answer's size given by its builder), the least recently used dropped first (one answer
    larger than the whole budget is served but not kept). A key being built is built once: the
    build runs as a task of its own, which a request that goes away does not cancel, and every
    request for the key waits for it; its failure reaches each of them and is not kept, nor is
    an answer of ``None`` (no such match: it may exist later). Used from the event loop only."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._building: dict[Hashable, asyncio.Task[Any]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def get(self, key: Hashable) -> Any:
        """The answer, marked as just used; ``None`` when not kept."""
        found = self._entries.get(key)
        if found is None:
            return None
        self._entries.move_to_end(key)
        return found[0]

    def put(self, key: Hashable, answer: Any, size: int) -> None:
        if key in self._entries:
            self.bytes -= self._entries.pop(key)[1]
        if size > self.max_bytes:
            return
        self._entries[key] = (answer, size)
        self.bytes += size
        while len(self._entries) > self.max_entries or self.bytes > self.max_bytes:
            _, (_, dropped) = self._entries.popitem(last=False)
            self.bytes -= dropped

    async def get_or_build(self, key: Hashable, build: Callable[[], Awaitable[T]],
                           size: Callable[[Any], int] = len) -> T:
        """The kept answer, else ``build()``'s, kept (built once for concurrent requests);
        ``size(answer)``: its bytes, the cache's measure."""
        found = self.get(key)
        if found is not None:
            return found
        task = self._building.get(key)
        if task is None:
            task = asyncio.get_running_loop().create_task(build())  # type: ignore[arg-type]
            self._building[key] = task
            task.add_done_callback(functools.partial(self._built, key, size))
        return await asyncio.shield(task)

    def _built(self, key: Hashable, size: Callable[[Any], int], task: asyncio.Task[Any]) -> None:
        """A build ended (before any waiting request resumes): its answer is kept."""
        del self._building[key]
        if task.cancelled() or task.exception() is not None:  # retrieved: every waiter has it
            return
        answer = task.result()
        if answer is not None:
            self.put(key, answer, size(answer))


@dataclass(frozen=True, slots=True)
class MatchStory:
    """What the match page shows of one match in one language: the record without its log
    (``match``: players, times, summary, seed, options), how many moves it has, and its move
    list in pages of ``builds.PAGE_MOVES`` lines, each as the JSON of its lines and as
    their HTML (a request renders none of them)."""

    match: dict[str, Any]
    moves: int
    pages: tuple[tuple[bytes, bytes], ...]
    """Each page's lines (JSON) and their HTML, gzip-compressed."""

    @property
    def size(self) -> int:
        return 4096 + sum(len(rows) + len(html) for rows, html in self.pages)

    def html(self, number: int) -> Markup:
        """The list items of page ``number`` (from 1)."""
        html = gzip.decompress(self.pages[number - 1][1]).decode()
        return Markup(html)  # noqa: S704 - escaped when the builder rendered it

    def line(self, move: int) -> StoryLine | None:
        """Move ``move``'s line (1 for the first); ``None`` for the set-up or past the end."""
        if not 1 <= move <= self.moves:
            return None
        page, at = divmod(move - 1, builds.PAGE_MOVES)
        return StoryLine(*orjson.loads(gzip.decompress(self.pages[page][0]))[at])


class Builder:
    """The builder process of this server process (one for every app in it: its calls go
    through one thread of its own, so one build runs at a time, whichever event loop asks):
    started at the first build, and again when it died or the registry of games changed."""

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="match-builder")
        self._process: subprocess.Popen[bytes] | None = None
        self._games: tuple[str, ...] = ()

    async def run(self, build: str, *args: Any) -> Any:
        """The answer of ``builds.BUILDS[build](*args)``, built in the builder process;
        its error is raised here."""
        ok, answer = await asyncio.get_running_loop().run_in_executor(
            self._thread, self._call, build, args)
        if not ok:
            raise answer
        return answer

    def _call(self, build: str, args: tuple[Any, ...]) -> tuple[bool, Any]:
        """On the builder's thread: one request and its answer (a builder that died meanwhile
        is started again, once)."""
        for attempt in (1, 2):
            process = self._started()
            assert process.stdin is not None and process.stdout is not None
            try:
                builds.send(process.stdin, (build, args))
                return builds.receive(process.stdout)
            except (BrokenPipeError, EOFError):
                self.stop()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _started(self) -> subprocess.Popen[bytes]:
        games = _extra_game_modules()
        if self._process is None or self._process.poll() is not None or games != self._games:
            self.stop()
            self._process = subprocess.Popen(
                [sys.executable, "-m", "app.api.finished.builds", *games],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=PROJECT_ROOT,
                start_new_session=True)
            self._games = games
        return self._process

    @property
    def pid(self) -> int | None:
        """The builder process's id while it runs."""
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    def stop(self) -> None:
        """End the builder process: its input closed, it exits (killed if it does not)."""
        process, self._process = self._process, None
        if process is None:
            return
        assert process.stdin is not None and process.stdout is not None
        process.stdin.close()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a builder stuck in a build
            process.kill()
            process.wait()
        process.stdout.close()


BUILDER = Builder()


def _extra_game_modules() -> tuple[str, ...]:
    """The modules of registered games that no entry point named (bare games a test
    registered): the builder registers them too (it finds the packages itself)."""
    return tuple(sorted({type(p.game).__module__ for p in all_packages() if p.folder is None}))


class MatchAnswers:
    """The answers about finished matches (``app.state.match_answers``): the cache, and one read
    of a match's record shared by the builds that need it at the same time."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES,
                 builder: Builder = BUILDER) -> None:
        self.cache = AnswerCache(max_entries, max_bytes)
        self.builder = builder
        self._reading: dict[int, asyncio.Task[tuple[dict[str, Any], str] | None]] = {}
        self._pages = asyncio.Lock()

    @contextlib.asynccontextmanager
    async def page_turn(self) -> AsyncIterator[None]:
        """One match page rendered per turn of the event loop: the pages of a burst of
        requests, all waiting for one build, are rendered one turn after another, with the
        rooms' frames and pings in between, not all in one turn when the build ends."""
        async with self._pages:
            yield
            await asyncio.sleep(0)

    async def record(self, db: Database, match_id: int) -> tuple[dict[str, Any], str] | None:
        """The stored match and its log's text (``app.db.matches.get_match_text``), read once
        for every build that asks for it meanwhile; ``None`` when there is no such match. Not
        kept: the answers are."""
        task = self._reading.get(match_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(
                db.run(store.get_match_text, db, match_id=match_id))
            self._reading[match_id] = task
            task.add_done_callback(lambda _: self._reading.pop(match_id, None))
        return await asyncio.shield(task)

    async def match_json(self, db: Database, match_id: int) -> Packed | None:
        """``GET /api/matches/{id}``: the match with its draws, as compressed JSON."""

        async def build() -> Packed | None:
            found = await self.record(db, match_id)
            if found is None:
                return None
            return await self.builder.run("match", *found)

        return await self.cache.get_or_build(("match", match_id), build, _packed_size)

    async def replay(self, db: Database, match_id: int, eyes: Eyes,
                     check: Callable[[dict[str, Any]], None]) -> Packed | None:
        """``GET /api/matches/{id}/replay``: the match move by move through ``eyes``, as
        compressed JSON. ``check(match)`` may refuse the request for this match (raise) before
        anything is built. Raises ``Unreplayable``."""

        async def build() -> Packed | None:
            found = await self.record(db, match_id)
            if found is None:
                return None
            check(found[0])
            return await self.builder.run("replay", *found, eyes)

        return await self.cache.get_or_build(("replay", match_id, eyes), build, _packed_size)

    async def story(self, db: Database, match_id: int, lang: str) -> MatchStory | None:
        """The match page's record and move list of the match in ``lang``."""

        async def build() -> MatchStory | None:
            found = await self.record(db, match_id)
            if found is None:
                return None
            match, log_text = found
            pages = await self.builder.run("story", match, log_text, lang)
            last = orjson.loads(gzip.decompress(pages[-1][0]))
            moves = builds.PAGE_MOVES * (len(pages) - 1) + len(last)
            return MatchStory(match, moves, pages)

        return await self.cache.get_or_build(("story", match_id, lang), build,
                                             lambda story: int(story.size))

    async def response(self, request: Request, packed: Packed,
                       headers: dict[str, str] | None = None) -> Response:
        """A kept JSON answer in a form it is kept in: Brotli to a client that takes it, else
        gzip, else the JSON itself, decompressed on a thread (zlib leaves the interpreter's lock
        meanwhile). It goes out with its ``Content-Encoding`` (but the JSON itself, which the
        site's compression then leaves alone: the client takes neither form), so nothing is
        compressed per request (app/web/compression.py compresses only what has none)."""
        headers = {**(headers or {}), "Vary": "Accept-Encoding"}
        taken = accepted_encodings(request.headers.get("accept-encoding", ""))
        for coding, body in (("br", packed[1]), ("gzip", packed[0])):
            if coding in taken:
                return Response(body, media_type="application/json",
                                headers={**headers, "Content-Encoding": coding})
        plain = await asyncio.to_thread(gzip.decompress, packed[0])
        return Response(plain, media_type="application/json", headers=headers)


def _packed_size(answer: Packed) -> int:
    return len(answer[0]) + len(answer[1])


def accepted_encodings(header: str) -> set[str]:
    """The content codings an ``Accept-Encoding`` header takes (those with a quality above 0;
    ``*`` stands for any)."""
    taken = set()
    for item in header.split(","):
        coding, _, params = item.strip().partition(";")
        quality = params.strip()
        if quality.startswith("q="):
            try:
                if float(quality[2:]) <= 0:
                    continue
            except ValueError:
                continue
        if coding.strip():
            taken.add(coding.strip().lower())
    if "*" in taken:
        taken |= {"br", "gzip"}
    return taken
