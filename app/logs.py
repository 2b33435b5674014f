"""The server's logs: plain text, or one JSON object per line with ``LOG_FORMAT=json``
(docs/architecture.md, "Operations").

Every line carries the time, the level, the logger and the message, and where known the room's
code (``room``), the stored match's id (``match_id``) and the member (``member``). The context
comes from two context variables that cost one assignment where they change: a room's actor binds
its room once (``bind_room``, inherited by the tasks it starts) and notes the connection whose
frame it is handling (``handling``); a WebSocket's task binds its room and connection the same
way. Fields given with ``extra=`` go into the JSON object too. Uvicorn's own loggers (start-up,
errors, the access log) go through the same handler, so its lines have the same format.
"""

from __future__ import annotations

import logging
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

import orjson

_room: ContextVar[Any] = ContextVar("log_room", default=None)
_connection: ContextVar[Any] = ContextVar("log_connection", default=None)

CONTEXT_FIELDS = ("room", "match_id", "member")
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message", "asctime", "color_message", *CONTEXT_FIELDS,
}
"""A log record's own attributes; any other attribute came from ``extra=``."""
UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")
QUIET_LOGGERS = ("alembic", "httpx")


def cause(error: BaseException) -> str:
    """``error`` in one line, as an expected outage is logged (a warning without a traceback:
    docs/decisions/0045): its type and the first line of its message, e.g. ``ConnectionError:
    Error 111 connecting to 127.0.0.1:6379. Connection refused.``"""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


def bind_room(room: Any) -> None:
    """Lines logged from here on in this task (and the tasks it starts) name ``room`` (a room's
    state, app/realtime/room/state.py: its ``code`` and ``match_id``; ``None``: no room)."""
    _room.set(room)


def handling(connection: Any) -> None:
    """Lines logged from here on in this task name ``connection``'s member (``None``: none)."""
    _connection.set(connection)


class ContextFilter(logging.Filter):
    """Adds the room code, match id and member of the current context to each record (a field
    given with ``extra=`` wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        room = _room.get()
        if room is not None:
            if not hasattr(record, "room"):
                record.room = getattr(room, "code", None)
            if not hasattr(record, "match_id"):
                match_id = getattr(room, "match_id", None)
                if match_id is not None:
                    record.match_id = match_id
        connection = _connection.get()
        if connection is not None and not hasattr(record, "member"):
            member = getattr(connection, "member", None)
            if member is not None:
                record.member = member.id
        return True


def _context(record: logging.LogRecord) -> dict[str, Any]:
    return {key: getattr(record, key) for key in CONTEXT_FIELDS
            if getattr(record, key, None) is not None}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, the context
    fields, the ``extra=`` fields, and the exception's traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **_context(record),
        }
        if record.name == "uvicorn.access" and isinstance(record.args, tuple) \
                and len(record.args) == 5:
            client, method, path, version, status = record.args
            entry.update(client=client, method=method, path=path, http=version, status=status)
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return orjson.dumps(entry, default=str).decode()


class TextFormatter(logging.Formatter):
    """``time level logger: message [room=… match_id=… member=…]``."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        context = _context(record)
        if not context:
            return line
        fields = " ".join(f"{key}={value}" for key, value in context.items())
        head, newline, rest = line.partition("\n")  # the traceback stays below the line
        return f"{head} [{fields}]{newline}{rest}"


class _StandardErrorHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at the time (tests swap it)."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def make_handler(log_format: str) -> logging.Handler:
    """The handler of the chosen format, with the context filter."""
    handler = _StandardErrorHandler()
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    handler.addFilter(ContextFilter())
    return handler


_installed: list[logging.Handler] = []


def configure(level: str = "info", log_format: str = "text") -> None:
    """Send every log line (the app's and uvicorn's) to standard error in ``log_format``.

    Safe to call again: the handler installed before is replaced; handlers others installed on
    the root logger (a test runner's) are left alone.
    """
    root = logging.getLogger()
    for handler in _installed:
        root.removeHandler(handler)
    _installed.clear()
    handler = make_handler(log_format)
    root.addHandler(handler)
    _installed.append(handler)
    root.setLevel(level.upper())
    for name in UVICORN_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
