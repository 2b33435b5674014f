"""A real server process for restart tests: ``python -m uvicorn`` on a fixed 127.0.0.1 port and
a var folder that outlive the process, so a test can SIGKILL it and start it again in place."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from app.config import PROJECT_ROOT
from tests.live import LocalSite, free_port


class ServerProcess(LocalSite):
    """The whole app in a process of its own; ``start``, ``kill`` (SIGKILL), ``stop`` (SIGTERM).

    Duck-types ``LiveServer`` for ``tests.live.Client`` (``ws_url``) and the room helpers."""

    def __init__(self, var_dir: Path, **env: Any) -> None:
        self.var_dir = var_dir
        self.port = free_port()
        self.env = {
            **os.environ, "VAR_DIR": str(var_dir), "WS_MESSAGES_PER_SECOND": "100000",
            "PING_INTERVAL_SECONDS": "0.5", "LOG_LEVEL": "warning",
            # As in tests/live.py: these clients answer pings only while they read.
            "PRESENCE_TIMEOUT_SECONDS": "0",
            **{k.upper(): str(v) for k, v in env.items()},
        }
        if "secret_key" not in env:  # the key generated once and kept in var/secret_key
            self.env.pop("SECRET_KEY", None)
        self.process: subprocess.Popen[bytes] | None = None
        self.log = var_dir.parent / "server.log"

    def start(self, timeout: float = 60.0) -> ServerProcess:
        """Start the server and wait until it answers /healthz; ``timeout`` is a deadline for a
        loaded machine (importing the app took over 20 s with the load average at 17), not a
        measure of speed: a healthy start returns as soon as the server answers."""
        self.var_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory",
                 "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning",
                 "--ws-max-size", "65536", "--ws-per-message-deflate", "false"],
                cwd=PROJECT_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the server did not start: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL: nothing is flushed, nothing is closed."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self, timeout: float = 30.0) -> float:
        """SIGTERM, as a deploy does; returns the seconds it took to exit. A graceful exit is
        status 0, or death by the same SIGTERM: uvicorn raises the signal again once it has shut
        down cleanly, so that the parent sees why it stopped; and it is clean whatever the
        machine's speed: no error, and no wait of the stop ran out with the journal unwritten
        (``timeout`` only bounds a broken run)."""
        assert self.process is not None
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout)
        assert status in (0, -signal.SIGTERM), status
        log = self.log.read_text(errors="replace")
        assert "Traceback" not in log
        assert "before the stop" not in log and "journal not flushed" not in log, log[-2000:]
        return time.monotonic() - started

    def ensure_stopped(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

