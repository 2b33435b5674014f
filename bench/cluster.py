"""Several processes under load (docs/architecture.md, "Several processes"): the same load
(bench/load.py's bots) against one server process and against two processes of one site sharing
PostgreSQL and Redis, and one process with durable rooms on and off.

    .venv/bin/python bench/cluster.py                       # the four runs, ~2 minutes
    .venv/bin/python bench/cluster.py --rooms 50 --duration 10 --scenario panika

Runs, each with fresh servers (bench/serve.py, the real server's uvicorn settings), a fresh
PostgreSQL database (``--postgres``, created and dropped here) and a fresh Redis key prefix:

1. ``one``: one process, durable rooms on (the default);
2. ``one-volatile``: one process, ``DURABLE_ROOMS=false``: the cost of durable moves is 1 vs 2;
3. ``two-relay``: two processes; rooms made on the first, each room's bots spread over both
   (``load.py --spread relay``), so frames cross the one-hop relay through Redis;
4. ``two-by-room``: two processes; each room made on one of them and all its bots connected there
   (``--spread room``: what a proxy routing ``/ws/{code}`` by room gives).

Every node runs with the per-connection and per-room frame limits lifted (the bots of a room
share one address and play as fast as the frames go) and a 60 s join deadline (load.py's pause
probe never joins a room). Each run prints load.py's ``RESULT`` line (actions/s, p50/p99, server CPU summed over the
processes, memory per connection). Everything runs on 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(BENCH))

import load  # noqa: E402 - bench/load.py, beside this file


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Database:
    """A fresh PostgreSQL database, migrated, dropped at the end."""

    def __init__(self, admin_url: str) -> None:
        import psycopg
        from sqlalchemy.engine import make_url

        self.name = f"panic_party_bench_{uuid.uuid4().hex[:10]}"
        self.admin = make_url(admin_url).set(drivername="postgresql").render_as_string(
            hide_password=False)
        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.name}"')
        self.url = make_url(admin_url).set(database=self.name).render_as_string(
            hide_password=False)
        from app.db.database import migrate

        migrate(self.url)

    def drop(self) -> None:
        import psycopg

        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


class Node:
    """One server process (bench/serve.py) of the site."""

    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-node-"))
        self.log = open(self.tmp / "server.log", "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, str(BENCH / "serve.py"), "--app", "real", "--port", str(self.port)],
            cwd=ROOT, env={**os.environ, "VAR_DIR": str(self.tmp), **env},
            stdout=self.log, stderr=self.log)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise SystemExit((self.tmp / "server.log").read_text()[-2000:])
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("a node did not start in 60 s") from None
                time.sleep(0.1)
        time.sleep(0.5)  # the lifespan runs before the first request is served

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def run_one(label: str, nodes: int, spread: str, env: dict[str, str],
            args: argparse.Namespace) -> dict:
    db = Database(args.postgres)
    prefix = f"ppbench{secrets.token_hex(3)}"
    common = {
        "DATABASE_URL": db.url, "SECRET_KEY": "bench", "MIGRATE_ON_START": "false",
        "WS_MESSAGES_PER_SECOND": "100000", "PING_INTERVAL_SECONDS": "2",
        "MAX_ROOMS": "5000", "MAX_SOCKETS_PER_ADDRESS": "1000000", "LOG_LEVEL": os.environ.get("BENCH_LOG_LEVEL", "warning"),
        "ROOM_FRAMES_PER_SECOND": "100000", "JOIN_DEADLINE_SECONDS": "60",
        **({"REDIS_URL": args.redis, "REDIS_PREFIX": prefix} if nodes > 1 else {}), **env,
    }
    started: list[Node] = []
    try:
        for _ in range(nodes):
            started.append(Node(common))
        argv = ["--server", started[0].url, "--server-pid", str(started[0].proc.pid),
                "--scenario", args.scenario, "--rooms", str(args.rooms), "--rate", str(args.rate),
                "--duration", str(args.duration), "--warmup", str(args.warmup),
                "--label", label]
        if nodes > 1:
            argv += ["--nodes", ",".join(n.url for n in started[1:]),
                     "--node-pids", ",".join(str(n.proc.pid) for n in started[1:]),
                     "--spread", spread]
        result = load.run(load.parse_args(argv))
        print(load.summary_line(result), flush=True)
        return result
    finally:
        for node in started:
            node.stop()
        db.drop()
        if nodes > 1:
            import redis

            r = redis.Redis.from_url(args.redis)
            for key in r.scan_iter(match=f"{prefix}:*"):
                r.delete(key)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--postgres", default=os.environ.get(
        "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"))
    ap.add_argument("--redis", default=os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0"))
    ap.add_argument("--scenario", choices=("panika", "counter", "pilze"), default="panika")
    ap.add_argument("--rooms", type=int, default=50)
    ap.add_argument("--rate", type=float, default=0.0, help="total actions/s; 0 = saturation")
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--only", default="", help="comma-separated labels of the runs to do")
    args = ap.parse_args(argv)
    if args.duration > 120:
        ap.error("duration is capped at 120 s")
    runs = [("one", 1, "relay", {}), ("one-volatile", 1, "relay", {"DURABLE_ROOMS": "false"}),
            ("two-relay", 2, "relay", {}), ("two-by-room", 2, "room", {})]
    wanted = set(args.only.split(",")) if args.only else {r[0] for r in runs}
    results = {label: run_one(label, nodes, spread, env, args)
               for label, nodes, spread, env in runs if label in wanted}
    base = results.get("one")
    for label, r in results.items():
        ratio = f" ({r['applied_per_s'] / base['applied_per_s']:.2f}x one process)" if base else ""
        print(f"{label}: {r['applied_per_s']:.0f} actions/s{ratio}, p50 {r['p50_ms']:.1f} ms, "
              f"p99 {r['p99_ms']:.1f} ms, server CPU {r['server_cpu_pct']:.0f}%, "
              f"errors {r['errors'] or 0}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
