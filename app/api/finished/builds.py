"""The building of every answer about a finished match, in the builder process
(``python -m app.api.finished.builds``, started by app/api/finished/answers.py;
docs/decisions/0039-match-answers-are-built-once-in-a-process-of-their-own.md).

Each build takes the stored match as ``app.db.matches.get_match_text`` reads it (the record
without its log, and the log as its JSON text, which crosses to the builder as one string) and
returns bytes: what the server keeps and serves. Nothing here touches the database, a socket or
an event loop. The builder reads requests from its standard input and writes each answer to its
standard output, one at a time, each a pickled value after its length (8 bytes, big-endian):
``(build, args)`` in, ``(True, answer)`` or ``(False, error)`` out. It ends when its input ends
(its server closed the pipe, or is gone).

The modules of the rules, the replay and the story are imported only once the builder has
lowered its priority (``main``), so even its start gives way to the rooms.
"""

from __future__ import annotations

import gzip
import importlib
import logging
import os
import pickle
import sys
from collections.abc import Callable
from typing import IO, Any

import orjson

log = logging.getLogger(__name__)

PAGE_MOVES = 100
"""Moves the match page lists at once (``?page=``): a page never renders thousands of lines,
however long the match."""

NICENESS = 10
"""How much lower than its server the builder runs (``os.nice``)."""

BROTLI_QUALITY = 5


def record_of(match: dict[str, Any], log_text: str) -> dict[str, Any]:
    """The match as ``app.db.matches.get_match`` gives it: with its log as ``actions``."""
    moves = orjson.loads(log_text)
    return {**match, "actions": [{"index": i, **move} for i, move in enumerate(moves)]}


def match_answer(match: dict[str, Any], log_text: str) -> tuple[bytes, bytes]:
    """``GET /api/matches/{id}``: the match with its draws, as JSON compressed both ways
    (``packed``)."""
    from app.engine.chance import with_draws

    return packed(orjson.dumps(with_draws(record_of(match, log_text))))


def replay_answer(match: dict[str, Any], log_text: str,
                  eyes: int | None) -> tuple[bytes, bytes]:
    """``GET /api/matches/{id}/replay``: the match move by move through ``eyes``, as JSON
    compressed both ways (``packed``). Raises ``Unreplayable``."""
    from .replay import build_replay

    return packed(build_replay(record_of(match, log_text), eyes))


def story_pages(match: dict[str, Any], log_text: str,
                lang: str) -> tuple[tuple[bytes, bytes], ...]:
    """The match page's move list in ``lang``, ``PAGE_MOVES`` lines a page (at least one page,
    empty for a match without moves): each page the JSON of its lines ``[index, at_ms, seat,
    who, text]`` and their HTML, the list items of templates/match_moves.html, both
    gzip-compressed (a page's lines say much the same thing a hundred times)."""
    import functools

    import jinja2

    from app.config import PROJECT_ROOT
    from app.i18n import translate

    from .story import clock_text, match_story

    lines = match_story(record_of(match, log_text), lang)
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(PROJECT_ROOT / "templates"),
                                     autoescape=jinja2.select_autoescape())
    items = environment.get_template("match_moves.html")
    pages = []
    for start in range(0, max(len(lines), 1), PAGE_MOVES):
        page = lines[start:start + PAGE_MOVES]
        rows = [[line.index, line.at_ms, line.seat, line.who, line.text] for line in page]
        html = items.render(lines=page, t=functools.partial(translate, lang), clock=clock_text)
        pages.append((compress(orjson.dumps(rows)), compress(html.encode())))
    return tuple(pages)


BUILDS: dict[str, Callable[..., Any]] = {
    "match": match_answer, "replay": replay_answer, "story": story_pages}
"""The builds a server may ask for, by name."""


def compress(body: bytes) -> bytes:
    """gzip, at a level that costs little CPU (JSON of views shrinks about tenfold)."""
    return gzip.compress(body, compresslevel=6, mtime=0)


def packed(body: bytes) -> tuple[bytes, bytes]:
    """``body`` gzip-compressed and Brotli-compressed (quality 5: half gzip's size, about its
    cost), so that the server compresses nothing per request: whatever a client takes, the
    answer is kept in that form, or is ``body`` again (app/api/finished/answers.py)."""
    import brotli

    return compress(body), brotli.compress(body, quality=BROTLI_QUALITY)


def send(stream: IO[bytes], value: Any) -> None:
    """One message: ``value`` pickled, after its length."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(8, "big") + data)
    stream.flush()


def receive(stream: IO[bytes]) -> Any:
    """The next message; ``EOFError`` when the stream has ended."""
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError("the stream ended")
    size = int.from_bytes(head, "big")
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the stream ended in a message")
    return pickle.loads(data)


def serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """Build what ``requests`` ask for, one at a time, until they end."""
    from .replay import Unreplayable

    while True:
        try:
            build, args = receive(requests)
        except EOFError:
            return
        try:
            reply: tuple[bool, Any] = (True, BUILDS[build](*args))
        except Exception as error:  # noqa: BLE001 - the server decides what it means
            if not isinstance(error, Unreplayable):  # a refusal the answer says; else a bug
                log.exception("the builder's %s build failed", build)
            reply = (False, error)
        try:
            send(answers, reply)
        except (pickle.PicklingError, TypeError, AttributeError):
            send(answers, (False, RuntimeError(repr(reply[1]))))


def lower_priority() -> None:
    """Run below the server: niceness ``NICENESS`` (a system that refuses runs the builder as it
    is). Where Linux schedules by session (autogroup), the builder's session is its own (its
    server starts it so): the time it takes is not charged to the server's rooms."""
    nice = getattr(os, "nice", None)
    if nice is not None:
        try:
            nice(NICENESS)
        except OSError:  # pragma: no cover - refused
            pass


def main(extra_games: list[str]) -> None:
    """The builder: its priority lowered first, then the site's games loaded, and those of
    ``extra_games`` (modules of games registered in the server's process besides, each with its
    ``GAME``); then it serves its server on its standard input and output (anything printed goes
    to its standard error)."""
    lower_priority()
    answers = sys.stdout.buffer
    sys.stdout = sys.stderr
    from app.engine import registry
    from app.games import load_all

    load_all()
    for name in extra_games:
        game = importlib.import_module(name).GAME
        if registry.get_game(game.id) is None:
            registry.register(game)
    serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    main(sys.argv[1:])
