"""Log lines (docs/architecture.md, "Operations"): one JSON object per line with
``LOG_FORMAT=json`` (time, level, logger, message, and the room, match and member where known),
plain text otherwise; uvicorn's own lines in the same format."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import time
from types import SimpleNamespace

import httpx

from app import logs
from app.config import PROJECT_ROOT
from tests.live import free_port, run_async


def _record(message: str = "hello %s", *args: object, **extra: object) -> logging.LogRecord:
    record = logging.getLogger("app.test").makeRecord(
        "app.test", logging.WARNING, __file__, 1, message, args or ("world",), None, extra=extra)
    return record


def _format(log_format: str, record: logging.LogRecord) -> str:
    handler = logs.make_handler(log_format)
    assert handler.filter(record)
    return handler.format(record)


def test_json_lines_have_time_level_logger_message():
    line = _format("json", _record())
    entry = json.loads(line)
    assert "\n" not in line
    assert entry["level"] == "warning" and entry["logger"] == "app.test"
    assert entry["message"] == "hello world"
    assert entry["time"].endswith("+00:00") and "T" in entry["time"]
    assert not {"room", "match_id", "member"} & set(entry)


def test_json_lines_name_the_room_match_and_member_of_the_context():
    room = SimpleNamespace(code="ABCD", match_id=42)
    connection = SimpleNamespace(member=SimpleNamespace(id=3))

    async def in_a_room_task() -> str:
        logs.bind_room(room)
        logs.handling(connection)
        await asyncio.sleep(0)
        return _format("json", _record())  # formatted as the handler does: in the logging task

    async def elsewhere() -> str:
        await asyncio.sleep(0)
        return _format("json", _record())

    async def both() -> tuple[str, str]:
        inside = asyncio.create_task(in_a_room_task())
        outside = asyncio.create_task(elsewhere())
        return await inside, await outside

    inside, outside = run_async(both())
    entry = json.loads(inside)
    assert (entry["room"], entry["match_id"], entry["member"]) == ("ABCD", 42, 3)
    assert "room" not in json.loads(outside)  # a context variable stays in its own task


def test_extra_fields_and_exceptions_go_into_the_object():
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.getLogger("app.test").makeRecord(
            "app.test", logging.ERROR, __file__, 1, "failed", (), sys.exc_info(),
            extra={"room": "WXYZ", "attempt": 2})
    entry = json.loads(_format("json", record))
    assert entry["room"] == "WXYZ" and entry["attempt"] == 2
    assert "ValueError: boom" in entry["exception"]


def test_text_lines_are_plain_with_the_context_at_the_end():
    line = _format("text", _record(member=5, room="QRST"))
    assert line.endswith("WARNING app.test: hello world [room=QRST member=5]")
    assert not line.startswith("{")


def test_the_served_site_logs_json_lines_uvicorns_included(tmp_path):
    """``python3 -m app serve`` with ``LOG_FORMAT=json``: every line on standard error is one
    JSON object, uvicorn's start-up and access lines among them."""
    port = free_port()
    env = {**os.environ, "LOG_FORMAT": "json", "PORT": str(port), "VAR_DIR": str(tmp_path),
           "SECRET_KEY": "test", "GC_YOUNG_SECONDS": "0"}
    process = subprocess.Popen([sys.executable, "-m", "app.server"], cwd=PROJECT_ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert time.monotonic() < deadline, "the server did not start"
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=20)
    entries = [json.loads(line) for line in stderr.splitlines() if line.strip()]
    assert entries and all({"time", "level", "logger", "message"} <= set(e) for e in entries)
    assert any(e["logger"].startswith("uvicorn") and "Started server process" in e["message"]
               for e in entries)
    access = [e for e in entries if e["logger"] == "uvicorn.access"]
    assert any(e["path"] == "/healthz" and e["status"] == 200 for e in access)
