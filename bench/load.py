"""Load benchmark: bots on 127.0.0.1 fill rooms of N players and play, and one summary line is
printed per run.

    .venv/bin/python bench/load.py --scenario panika --rooms 50 --rate 0 --duration 10
    .venv/bin/python bench/load.py --scenario panika --rooms 1000 --rate 2000 --duration 20

Processes: this one (the orchestrator) starts the server (bench/serve.py, unless ``--server`` is a
URL), creates the rooms over HTTP, starts ``--procs`` generator processes (each owns whole rooms:
all the connections of a room live in one process, so one clock times an action from its send to
the last of the room's connections receiving the state it caused), reads the server's memory,
then runs the pause probe while the generators play.

Measured, over ``--duration`` seconds after ``--warmup`` seconds of play:

- ``applied``: actions per second acknowledged by the resulting ``state`` frame (the acting
  connection received the version its action made);
- ``p50/p99/max``: action-to-last-view latency: from sending an action until the last of the
  room's connections received the ``state`` frame it caused;
- ``mem_per_conn``: server VmRSS after every bot joined (and the matches started) minus VmRSS
  before the rooms were created, divided by the connections;
- ``pause``: the longest event-loop stall seen by a probe: a separate WebSocket connection (never
  joined to a room) sends a protocol-level ping every 10 ms; uvicorn's protocol answers it in
  ``data_received``, so a late pong is a busy or paused server loop. ``probe_p99`` too.
- ``server_cpu``/``gen_cpu``: CPU used over the window, in % of one core (a figure near 100 for
  the server means the server is the bottleneck; for a generator, that it may be). The server's
  is its process's user + system time from /proc/<pid>/stat: every thread of it (the event loop,
  the database thread, the collector), not only the loop's;
- ``server_cpu_per_action``: that CPU divided by the actions applied in the window;
- ``other_cpu``: what every other process used meanwhile (kernel threads and reaped children
  included), in % of one core, process by process from /proc/<pid>/stat (``others_seconds``).
  Anything much above 5% means the figures are the machine's, not the server's. Interrupt time
  (``irq``: mostly the loopback's softirq for the benchmark's own packets) and ``steal`` (what
  the hypervisor kept from this machine while it wanted to run: 1-5% here idle, 0-20% under
  load, most when the server idles and wakes often) are reported apart, from /proc/stat.

Pinning (on with two or more usable cores, ``--no-pin`` to turn it off): the server, all its
threads, runs on the first usable core only, this process and the generators on the others
(os.sched_setaffinity), so the bots never take the server's core. On a shared machine it makes
noise worse (the server cannot move when another process takes its core): see ``other_cpu``.

Offered rate (``--rate``): total actions per second, spread evenly over the rooms (each room acts
every rooms/rate seconds, at a random phase). ``--rate 0`` is saturation: each room's acting bot
sends its next action as soon as it sees the state that follows its last one. A room has at most
one action in flight; a tick that finds the previous action unacknowledged is counted ``late``
and its action goes out when the acknowledgement comes.

Bots: ``panika`` - the seat whose view says so plays the first card(s) of its hand
(``legal.cards`` of them) or taps (``legal.taps``); the host asks for a rematch when a match is
over (rematches are counted apart, not as actions). ``counter`` (the Panika counter, an open
table) - the seats act in turn: ``tap`` while the counter is below 15, else ``reset`` (so it never
bursts). ``pilze`` (Panik Pilze) - the seat whose view says ``legal.play`` plays its first hand
card (a draw card as it is, a turn card on the first display cards, a party for the type the
display shows most, a steal from the first opponent stack, or a swap of that card when nothing
can be stolen); the host asks for a rematch when a match is over. ``--server bare``
(bench/bare_broadcast.py) plays the counter bot.

Bots join as the site's pages do. ``frame`` is the average size of the state frames as they came
over the wire. ``--env KEY=VALUE`` sets the started real server's environment (e.g.
``DURABLE_ROOMS=false``); ``--bare-frame-bytes N`` pads the bare server's state frames to about
N bytes (the real game's frame size: bench/bare_broadcast.py).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import http.client
import json
import multiprocessing as mp
import os
import random
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
PYTHON = sys.executable
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- small helpers ------------------------------------------------------------------------------

def raise_nofile() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = 1 << 20
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def vmrss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def stat_fields(pid: int | str) -> list[str]:
    """The fields of /proc/<pid>/stat after the command's name (which may hold spaces): index
    11 is user time, 12 system time, 13 and 14 the reaped children's, in clock ticks."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int) -> float:
    fields = stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def interrupt_seconds() -> tuple[float, float]:
    """The whole machine's (all cores) interrupt time (irq + softirq) and steal time (what the
    hypervisor gave to others while this machine wanted to run), from /proc/stat."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    irq, softirq, steal = (int(x) for x in fields[5:8])
    return (irq + softirq) / CLK_TCK, steal / CLK_TCK


def others_seconds(ours: set[int]) -> dict[int, float]:
    """The CPU time so far of every process on the machine but ``ours`` (kernel threads
    included): its user and system time and its reaped children's (so a short job that ran and
    was waited for inside the window counts too), from /proc/<pid>/stat.

    Counted process by process, not as the machine's total minus ours: /proc/stat's user and
    system are sampled at the timer's ticks while a process's own time is exact, and the
    loopback's softirq, run in our processes, is in their time and in /proc/stat's softirq
    apart: that difference read 4-18% of a core below zero on busy runs of 2026-12-04 and
    would have hidden as much noise (docs/performance.md, "The method")."""
    seconds: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in ours:
            continue
        try:
            fields = stat_fields(entry.name)
        except OSError:  # it ended meanwhile
            continue
        seconds[int(entry.name)] = sum(int(x) for x in fields[11:15]) / CLK_TCK
    return seconds


def others_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds the other processes used between two ``others_seconds`` readings: a process
    that started meanwhile counts from zero; one that ended meanwhile is lost, unless its
    parent reaped it (then it is in the parent's children's time)."""
    return sum(max(0.0, t - before.get(pid, 0.0)) for pid, t in after.items())


def pin_plan(pin: bool) -> tuple[set[int], set[int]] | None:
    """(the server's cores, the load's cores): the first usable core for the server, the others
    for the load; None without pinning or with a single usable core."""
    cores = sorted(os.sched_getaffinity(0))
    if not pin or len(cores) < 2:
        return None
    return {cores[0]}, set(cores[1:])


def pin_self(cores: set[int] | None) -> None:
    if cores:
        os.sched_setaffinity(0, cores)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, int(round(q * (len(sorted_values) - 1)))))
    return sorted_values[k]


def try_uvloop() -> None:
    try:
        import uvloop
    except ImportError:
        return
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


# --- the bots (run in the generator processes) --------------------------------------------------

TURN_GAMES = ("panika", "pilze")
"""Scenarios of a waiting room: the host starts; the seat whose view says so acts."""

PILZE_TYPES = ("schlaubi", "chef", "knuddel", "panik", "gifti")


def pilze_action(view: dict) -> dict:
    """The Panik Pilze bot's action (see the module docstring)."""
    card = view["hand"][0]
    display = view["display"]
    if card["kind"] == "collect":
        flip = [] if card["action"] == "draw" else [d["id"] for d in display[: card["count"]]]
        return {"type": "collect", "card": card["id"], "flip": flip}
    if card["kind"] == "party":
        best = max(PILZE_TYPES, key=lambda m: sum(d["up"] == m for d in display))
        return {"type": "party", "card": card["id"], "mushroom": best}
    for p in view["players"]:
        for m, n in p["basket"].items():
            if p["seat"] != view["you"] and n:
                return {"type": "steal", "card": card["id"], "victim": p["seat"], "mushroom": m}
    return {"type": "swap", "cards": [card["id"]]}


@dataclass(eq=False)
class Bot:
    index: int
    ws: Any = None
    seat: int | None = None
    epoch: int = 0
    version: int = -1
    view: dict | None = None
    welcomed: bool = False

    @property
    def key(self) -> tuple[int, int]:
        return (self.epoch, self.version)


@dataclass(eq=False)
class RoomBots:
    code: str
    token: str
    scenario: str
    bots: list[Bot] = field(default_factory=list)
    latest: tuple[int, int] = (0, -1)
    want: bool = False
    pending: tuple[tuple[int, int], Bot] | None = None
    sent: int = 0
    errors: int = 0
    started: bool = False
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    active: bool = True
    ws: list[str] = field(default_factory=list)
    """With ``--nodes``: the WebSocket base URL of each bot (else the server's)."""


class Generator:
    """All the rooms of one generator process and their statistics."""

    def __init__(self, cfg: dict, rooms: list[dict]) -> None:
        self.cfg = cfg
        self.scenario = cfg["scenario"]
        self.saturate = cfg["rate"] <= 0
        self.rooms = [RoomBots(r["code"], r["token"], self.scenario, ws=r.get("ws", []))
                      for r in rooms]
        self.recording = False
        self.stopping = False
        self.track: dict[tuple[int, tuple[int, int]], list] = {}
        self.latencies: list[float] = []
        self.acked = 0
        self.acked_all = 0
        self.late = 0
        self.matches = 0
        self.error_codes: dict[str, int] = {}
        self.state_frames = 0
        self.state_bytes = 0
        self.frames_in = 0

    # decisions -----------------------------------------------------------------------------
    def decide(self, room: RoomBots, bot: Bot) -> tuple[str, bool] | None:
        """The frame ``bot`` sends now, and whether it is a game action (else a rematch)."""
        view = bot.view
        if view is None:
            return None
        if self.scenario == "panika":
            if view.get("phase") == "over":
                if bot.index == 0:
                    return '{"type":"rematch"}', False
                return None
            legal = view.get("legal")
            if not legal:
                return None
            if legal["play"]:
                cards = [c["id"] for c in view["hand"][: legal["cards"]]]
                return orjson.dumps({"type": "action",
                                     "action": {"type": "play", "cards": cards}}).decode(), True
            if legal["taps"] > 0:
                return '{"type":"action","action":{"type":"tap"}}', True
            return None
        if self.scenario == "pilze":
            if view.get("phase") == "over":
                return ('{"type":"rematch"}', False) if bot.index == 0 else None
            legal = view.get("legal")
            if not legal or not legal["play"]:
                return None
            return orjson.dumps({"type": "action", "action": pilze_action(view)}).decode(), True
        # counter (and the bare server)
        if view.get("phase") == "burst":
            return '{"type":"action","action":{"type":"new_round"}}', True
        if view.get("counter", 0) >= 15:
            return '{"type":"action","action":{"type":"reset"}}', True
        return '{"type":"action","action":{"type":"tap"}}', True

    def candidates(self, room: RoomBots) -> list[Bot]:
        if self.scenario in TURN_GAMES:
            return room.bots
        n = len(room.bots)
        return [room.bots[room.sent % n]]  # the seats take turns

    async def try_act(self, room: RoomBots) -> None:
        if not room.want or room.pending is not None or not room.active or self.stopping:
            return
        for bot in self.candidates(room):
            if bot.key != room.latest:
                continue
            decision = self.decide(room, bot)
            if decision is None:
                continue
            text, is_action = decision
            expected = (bot.epoch, bot.version + 1) if is_action else (bot.epoch + 1, 0)
            room.pending = (expected, bot)
            room.want = False
            room.sent += 1
            if is_action and self.recording:
                self.track[(id(room), expected)] = [time.perf_counter(), len(room.bots)]
            try:
                await bot.ws.send(text)
            except Exception:  # noqa: BLE001 - a closed socket ends this room's part
                room.active = False
            return

    # frames ----------------------------------------------------------------------------------
    async def on_state(self, room: RoomBots, bot: Bot, frame: dict, size: int, now: float) -> None:
        version = frame["version"]
        if version < bot.version:
            bot.epoch += 1
        bot.version = version
        bot.view = frame["view"]
        bot.seat = frame["seat"]
        key = bot.key
        if key > room.latest:
            room.latest = key
        if self.recording:
            self.state_frames += 1
            self.state_bytes += size
        entry = self.track.get((id(room), key))
        if entry is not None:
            entry[1] -= 1
            if entry[1] == 0:
                del self.track[(id(room), key)]
                self.latencies.append(now - entry[0])
                self.acked_all += 1
        if not room.ready.is_set():
            if all(b.version >= 0 for b in room.bots):
                room.ready.set()
            return
        pending = room.pending
        if pending is not None and pending[1] is bot and key >= pending[0]:
            room.pending = None
            if key[1] == 0 and key[0] == pending[0][0]:
                self.matches += self.recording
            elif self.recording:
                self.acked += 1
            if self.saturate:
                room.want = True
        if room.want:
            await self.try_act(room)

    def on_error(self, room: RoomBots, bot: Bot, frame: dict) -> None:
        code = frame.get("code", "?")
        self.error_codes[code] = self.error_codes.get(code, 0) + 1
        pending = room.pending
        if pending is not None and pending[1] is bot:
            room.pending = None
            self.track.pop((id(room), pending[0]), None)
            room.errors += 1
            if room.errors > 50:
                room.active = False
            room.want = True  # retried when the next state (or this one, if current) allows

    async def reader(self, room: RoomBots, bot: Bot) -> None:
        ws = bot.ws
        try:
            async for message in ws:
                now = time.perf_counter()
                self.frames_in += 1
                frame = orjson.loads(message)
                kind = frame.get("type")
                if kind == "state":
                    await self.on_state(room, bot, frame, len(message), now)
                elif kind == "ping":
                    await ws.send(orjson.dumps({"type": "pong", "t": frame["t"]}).decode())
                elif kind == "welcome":
                    bot.welcomed = True
                    bot.seat = frame.get("seat")
                    if (self.scenario in TURN_GAMES and not room.started
                            and all(b.welcomed for b in room.bots)):
                        room.started = True
                        await room.bots[0].ws.send('{"type":"start"}')
                elif kind == "error":
                    self.on_error(room, bot, frame)
                    if room.want:
                        await self.try_act(room)
        except Exception:  # noqa: BLE001 - connection closed at the end or by the server
            pass

    # the run ---------------------------------------------------------------------------------
    async def connect_all(self) -> list[asyncio.Task]:
        from wsclient import connect  # bench/wsclient.py: the bots' lean client

        base = self.cfg["ws_url"]
        players = self.cfg["players"]
        sem = asyncio.Semaphore(100)
        tasks: list[asyncio.Task] = []

        async def connect_room(room: RoomBots) -> None:
            for i in range(players):
                bot = Bot(i)
                async with sem:
                    at = room.ws[i % len(room.ws)] if room.ws else base
                    bot.ws = await connect(f"{at}/ws/{room.code}", max_size=1 << 20,
                                           open_timeout=60)
                room.bots.append(bot)
            for bot in room.bots:
                tasks.append(asyncio.create_task(self.reader(room, bot)))
            for i, bot in enumerate(room.bots):
                join = {"type": "join", "token": room.token} if i == 0 else \
                    {"type": "join", "nickname": f"bot{i}"}
                await bot.ws.send(orjson.dumps(join).decode())

        await asyncio.gather(*(connect_room(r) for r in self.rooms))
        await asyncio.wait_for(asyncio.gather(*(r.ready.wait() for r in self.rooms)), 120)
        return tasks

    async def ticker(self, room: RoomBots, interval: float, end: float) -> None:
        loop = asyncio.get_running_loop()
        nxt = loop.time() + random.random() * interval
        while not self.stopping:
            nxt += interval
            await asyncio.sleep(max(0.0, nxt - loop.time()))
            if self.stopping or loop.time() > end:
                return
            if room.pending is not None and self.recording:
                self.late += 1
            room.want = True
            await self.try_act(room)

    async def run(self, ready_q: Any, go: Any) -> dict:
        loop = asyncio.get_running_loop()
        t0 = time.perf_counter()
        readers = await self.connect_all()
        connect_s = time.perf_counter() - t0
        # The generator's own collector must not pause the bots (4,000 client connections make a
        # full collection of several hundred ms): freeze what exists and collect no more until
        # the run ends (bounded: one run, at most --duration + --warmup seconds).
        gc.collect()
        gc.freeze()
        gc.disable()
        ready_q.put(("ready", os.getpid(), connect_s))
        await loop.run_in_executor(None, go.wait, 300)
        warmup, duration = self.cfg["warmup"], self.cfg["duration"]
        end = loop.time() + warmup + duration + 1
        tickers = []
        if self.saturate:
            for room in self.rooms:
                room.want = True
                await self.try_act(room)
        else:
            interval = len(self.rooms) / (self.cfg["rate"] / self.cfg["procs"])
            tickers = [asyncio.create_task(self.ticker(r, interval, end)) for r in self.rooms]
        await asyncio.sleep(warmup)
        self.recording = True
        cpu0, w0 = time.process_time(), time.perf_counter()
        await asyncio.sleep(duration)
        self.recording = False
        cpu1, w1 = time.process_time(), time.perf_counter()
        self.stopping = True
        for t in tickers:
            t.cancel()
        await asyncio.sleep(0.5)  # late frames of the last actions (not counted)
        for t in readers:
            t.cancel()
        return {
            "latencies": self.latencies, "acked": self.acked, "acked_all": self.acked_all,
            "late": self.late, "matches": self.matches, "errors": self.error_codes,
            "window": w1 - w0, "cpu": cpu1 - cpu0, "connect_s": connect_s,
            "state_frames": self.state_frames, "state_bytes": self.state_bytes,
            "unfinished": sum(1 for k in self.track), "rooms": len(self.rooms),
            "dead_rooms": sum(1 for r in self.rooms if not r.active),
        }


def generator_main(cfg: dict, rooms: list[dict], ready_q: Any, go: Any, result_q: Any) -> None:
    pin_self(cfg.get("cores"))
    raise_nofile()
    try_uvloop()
    random.seed(os.getpid())
    gen = Generator(cfg, rooms)
    try:
        result = asyncio.run(gen.run(ready_q, go))
    except Exception as exc:  # noqa: BLE001 - reported to the orchestrator
        ready_q.put(("failed", os.getpid(), repr(exc)))
        result_q.put({"error": repr(exc)})
        result_q.close()
        result_q.join_thread()
        os._exit(1)
    result_q.put(result)
    result_q.close()
    result_q.join_thread()  # flush before leaving without closing the sockets
    os._exit(0)  # skip closing thousands of sockets politely: the server sees them drop


# --- the pause probe (runs in the orchestrator) -------------------------------------------------

async def probe(ws_url: str, code: str, seconds: float, period: float = 0.010) -> dict:
    from websockets.asyncio.client import connect

    rtts: list[float] = []
    # It joins as a table view (a socket that never joins is closed after the join deadline);
    # the frames it is sent are kept unread, unbounded, so its pongs are never held up.
    async with connect(f"{ws_url}/ws/{code}", compression=None, ping_interval=None,
                       open_timeout=60, close_timeout=1, max_queue=None) as ws:
        await ws.send('{"type": "join", "watch": true}')
        loop = asyncio.get_running_loop()
        start = loop.time()
        end = start + seconds
        nxt = loop.time()
        when: list[tuple[float, float]] = []  # (round trip, seconds into the probe's run)
        while loop.time() < end:
            t = time.perf_counter()
            waiter = await ws.ping()
            try:
                await asyncio.wait_for(waiter, 10)
            except asyncio.TimeoutError:
                rtts.append(10.0)
                break
            rtts.append(time.perf_counter() - t)
            when.append((rtts[-1], loop.time() - start))
            nxt += period
            await asyncio.sleep(max(0.0, nxt - loop.time()))
            nxt = max(nxt, loop.time() - period)
    rtts.sort()
    return {"probe_n": len(rtts), "probe_p50_ms": pct(rtts, 0.5) * 1000,
            "probe_p99_ms": pct(rtts, 0.99) * 1000, "pause_ms": rtts[-1] * 1000 if rtts else 0,
            "pauses_top": [[round(at, 1), round(rtt * 1000, 1)]
                           for rtt, at in sorted(when, reverse=True)[:8]]}


# --- the server ------------------------------------------------------------------------------

class Server:
    def __init__(self, kind: str, args: argparse.Namespace) -> None:
        self.kind = kind
        self.port = free_port()
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-"))
        self.gc_log = self.tmp / "gc.json"
        env = dict(os.environ)
        if args.app_root:
            env["BENCH_APP_ROOT"] = args.app_root
        env.update({
            "DATABASE_URL": f"sqlite:///{self.tmp / 'bench.sqlite3'}",
            "SECRET_KEY": "bench",
            "VAR_DIR": str(self.tmp),
            "WS_MESSAGES_PER_SECOND": str(args.ws_rate if args.ws_rate is not None
                                          else 1000 if args.rate <= 0 else 40),
            "MAX_ROOMS": str(max(5000, args.rooms + 100)),
            # Every bot comes from 127.0.0.1: the per-address socket cap is lifted here.
            "MAX_SOCKETS_PER_ADDRESS": "1000000",
            "LOG_LEVEL": "warning",
            # The pause probe never sends `join`, and 4,000 bots joining at once can take longer
            # than the 5 s default: the benchmark's own server waits 60 s unless told otherwise.
            "JOIN_DEADLINE_SECONDS": os.environ.get("JOIN_DEADLINE_SECONDS", "60"),
            "BENCH_BARE_FRAME_BYTES": str(args.bare_frame_bytes),
        })
        if args.ping_interval > 0:
            env["PING_INTERVAL_SECONDS"] = str(args.ping_interval)
        env.update(args.env)
        cmd = [PYTHON, os.environ.get("BENCH_SERVE_SCRIPT", str(BENCH / "serve.py")), "--app", kind, "--port", str(self.port),
               "--gc-log", str(self.gc_log)]
        if args.gc_threshold:
            cmd += ["--gc-threshold", args.gc_threshold]
        if args.tracemalloc:
            cmd += ["--tracemalloc", args.tracemalloc]
        if args.census:
            Path(args.census).unlink(missing_ok=True)
            cmd += ["--census", args.census]
        self.log = open(self.tmp / "server.log", "w")  # noqa: SIM115
        cores = self.cores = args.plan[0] if args.plan else None
        self.proc = subprocess.Popen(
            cmd, cwd=args.app_root or ROOT, env=env, stdout=self.log, stderr=self.log,
            preexec_fn=(lambda: os.sched_setaffinity(0, cores)) if cores else None)
        self.pid = self.proc.pid
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"server exited: {(self.tmp / 'server.log').read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            raise SystemExit("server did not start in 60 s")
        time.sleep(0.3)  # the lifespan (migrations, gc.freeze) runs before the first accept

    def stop(self) -> tuple[dict, list]:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.log.close()
        gc_stats: dict = {}
        timeline: list = []
        self.collector_lines: list = []
        if self.gc_log.exists():
            data = json.loads(self.gc_log.read_text())
            gc_stats, timeline = data["gc"], data["timeline"]
            self.collector_lines = data.get("collector_lines", [])
        shutil.rmtree(self.tmp, ignore_errors=True)
        return gc_stats, timeline


def place_rooms(urls: list[str], spread: str, game: str, n: int) -> list[dict]:
    """``--nodes``: several server processes of one site (docs/operations.md). ``relay``: the
    rooms are made on the first; bot i of room j connects to node (i + j) mod N, so most rooms
    have pages on every node and their frames cross the relay. ``room``: room j is made on
    node j mod N and all its bots connect there (a proxy routing by room; no relay)."""
    ws = [u.replace("http://", "ws://", 1) for u in urls]
    if spread == "relay":
        rooms = create_rooms(urls[0], game, n)
        for j, room in enumerate(rooms):
            room["ws"] = [ws[(i + j) % len(ws)] for i in range(len(ws))]
        return rooms
    shares = [create_rooms(u, game, len(range(k, n, len(urls)))) for k, u in enumerate(urls)]
    rooms = []
    for j in range(n):
        room = shares[j % len(urls)][j // len(urls)]
        room["ws"] = [ws[j % len(urls)]]
        rooms.append(room)
    return rooms


def create_rooms(url: str, game: str, n: int) -> list[dict]:
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    rooms = []
    body = json.dumps({"game": game, "nickname": "host", "public": False})
    for _ in range(n):
        conn.request("POST", "/api/rooms", body, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        if resp.status != 201:
            raise SystemExit(f"room creation failed: {resp.status} {data[:300]!r} (an external "
                             "server limits creations to 30/min per IP: see bench/README.md)")
        d = json.loads(data)
        rooms.append({"code": d["code"], "token": d["token"]})
    conn.close()
    return rooms


# --- the orchestrator -----------------------------------------------------------------------

def note(msg: str) -> None:
    print(f"[load {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> dict:
    raise_nofile()
    args.plan = pin_plan(args.pin) if args.server in ("real", "bare") else None
    pin_self(args.plan[1] if args.plan else None)
    kind = args.server if args.server in ("real", "bare") else "external"
    scenario = "counter" if kind == "bare" else args.scenario
    server = Server(kind, args) if kind != "external" else None
    url = server.url if server else args.server.rstrip("/")
    pid = server.pid if server else args.server_pid
    pids = [p for p in (pid, *args.node_pids) if p]  # every process: memory and CPU summed
    nodes = [url, *args.nodes]
    ws_url = url.replace("http://", "ws://", 1)
    game = {"panika": "panika", "counter": "panika_counter", "pilze": "panik_pilze"}[scenario]
    result: dict[str, Any] = {}
    try:
        rss0 = sum(vmrss_kb(p) for p in pids)
        rooms = place_rooms(nodes, args.spread, game, args.rooms) if args.nodes \
            else create_rooms(url, game, args.rooms)
        rss_rooms = sum(vmrss_kb(p) for p in pids)
        note(f"{kind} server at {url}: {len(rooms)} {game} rooms created")
        ctx = mp.get_context("spawn")
        ready_q, result_q, go = ctx.Queue(), ctx.Queue(), ctx.Event()
        cfg = {"scenario": scenario, "rate": args.rate, "procs": args.procs,
               "players": args.players, "ws_url": ws_url, "warmup": args.warmup,
               "duration": args.duration, "cores": args.plan[1] if args.plan else None}
        shares = [rooms[i::args.procs] for i in range(args.procs)]
        procs = [ctx.Process(target=generator_main, args=(cfg, share, ready_q, go, result_q),
                             daemon=True) for share in shares]
        for p in procs:
            p.start()
        connect_s = 0.0
        for _ in procs:
            msg = ready_q.get(timeout=240)
            if msg[0] != "ready":
                raise SystemExit(f"generator failed: {msg}")
            connect_s = max(connect_s, msg[2])
        note(f"{args.rooms * args.players} bots joined in {connect_s:.1f} s; playing")
        time.sleep(1.0)
        rss1 = sum(vmrss_kb(p) for p in pids)
        if args.tracemalloc and server is not None:
            rss0_note = f"tracemalloc: RSS before {rss0} kB, after {rss1} kB"
            os.kill(pid, signal.SIGUSR1)
            note(rss0_note)
        conns = args.rooms * args.players
        go.set()
        time.sleep(args.warmup)
        spy = None
        if args.py_spy and pid:
            spy = subprocess.Popen(
                [str(Path(PYTHON).parent / "py-spy"), "record", "-p", str(pid), "-r", "200",
                 "-d", str(int(args.duration)), "--format", "raw", "-o", args.py_spy, "--nonblocking",
                 *(["--native"] if args.py_spy_native else [])],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cpu0 = sum(cpu_seconds(p) for p in pids)
        wall0 = time.time()
        ours = {os.getpid(), *pids, *(p.pid for p in procs if p.pid)}
        (irq0, steal0), others0 = interrupt_seconds(), others_seconds(ours)
        w0 = time.perf_counter()
        try_uvloop()
        pr = asyncio.run(probe(ws_url, rooms[0]["code"], args.duration))
        cpu1 = sum(cpu_seconds(p) for p in pids)
        rss_end = sum(vmrss_kb(p) for p in pids)
        wall1 = time.time()
        (irq1, steal1), others1 = interrupt_seconds(), others_seconds(ours)
        w1 = time.perf_counter()
        if args.census and server is not None:  # after the window: its full collection is not in it
            os.kill(pid, signal.SIGUSR1)
            census_by = time.monotonic() + 60
            while not Path(args.census).exists() and time.monotonic() < census_by:
                time.sleep(0.2)
            note(f"census of the server's heap: {args.census}")
        parts = [result_q.get(timeout=args.duration + 120) for _ in procs]
        if spy is not None:
            spy.wait(30)
        for p in procs:
            p.join(10)
        bad = [p for p in parts if "error" in p]
        if bad:
            raise SystemExit(f"generator failed: {bad}")
        lat = sorted(x for p in parts for x in p["latencies"])
        window = statistics.mean(p["window"] for p in parts)
        errors: dict[str, int] = {}
        for p in parts:
            for k, v in p["errors"].items():
                errors[k] = errors.get(k, 0) + v
        frames = sum(p["state_frames"] for p in parts)
        result = {
            "label": args.label or f"{kind}-{scenario}",
            "server": kind, "scenario": scenario, "rooms": args.rooms, "players": args.players,
            "conns": conns, "offered": args.rate, "procs": args.procs,
            "env": args.env, "bare_frame_bytes": args.bare_frame_bytes if kind == "bare" else 0,
            "pinned": (f"server {sorted(args.plan[0])}, load {sorted(args.plan[1])}"
                       if args.plan else "no"),
            "applied_per_s": sum(p["acked"] for p in parts) / window,
            "p50_ms": pct(lat, 0.50) * 1000, "p99_ms": pct(lat, 0.99) * 1000,
            "max_ms": (lat[-1] * 1000) if lat else float("nan"),
            "pause_ms": pr["pause_ms"], "probe_p99_ms": pr["probe_p99_ms"],
            "pauses_top": pr.get("pauses_top", []),
            "mem_per_conn_kb": (rss1 - rss0) / conns if pid else float("nan"),
            "rss_before_mb": rss0 / 1024, "rss_rooms_mb": rss_rooms / 1024,
            "rss_after_mb": rss1 / 1024, "rss_end_mb": rss_end / 1024,
            "server_cpu_pct": 100 * (cpu1 - cpu0) / (w1 - w0) if pid else float("nan"),
            "server_us_per_action": (1e6 * (cpu1 - cpu0) * window / (w1 - w0)
                                     / max(1, sum(p["acked"] for p in parts))) if pid else float("nan"),
            "gen_cpu_pct": 100 * sum(p["cpu"] for p in parts) / window,
            "other_cpu_pct": 100 * others_used(others0, others1) / (w1 - w0),
            "irq_pct": 100 * (irq1 - irq0) / (w1 - w0),
            "steal_pct": 100 * (steal1 - steal0) / (w1 - w0),
            "loadavg": os.getloadavg()[0],
            "late": sum(p["late"] for p in parts), "matches": sum(p["matches"] for p in parts),
            "errors": errors, "dead_rooms": sum(p["dead_rooms"] for p in parts),
            "latency_samples": len(lat), "connect_s": connect_s,
            "state_frame_bytes": (sum(p["state_bytes"] for p in parts) / frames) if frames else 0,
            "window_s": window,
        }
    finally:
        if server is not None:
            gc_stats, timeline = server.stop()
            if result and gc_stats:
                # Collections inside the measured window only.
                inside = [(g, ms) for t, g, ms, *_ in timeline if wall0 <= t <= wall1]
                inside_cpu = [(g, c) for t, g, _, c, *_ in timeline if wall0 <= t <= wall1]
                result["gc_cpu_max_ms"] = {str(g): round(max([c for gg, c in inside_cpu if gg == g],
                                                             default=0.0), 1) for g in (0, 1, 2)}
                result["gc_cpu_pct"] = 100 * sum(c for _, c in inside_cpu) / 1000 / (wall1 - wall0)
                result["gc_max_ms"] = {str(g): round(max([ms for gg, ms in inside if gg == g],
                                                         default=0.0), 1) for g in (0, 1, 2)}
                result["gc_count"] = {str(g): sum(1 for gg, _ in inside if gg == g)
                                      for g in (0, 1, 2)}
                result["gc_pct"] = 100 * sum(ms for _, ms in inside) / 1000 / (wall1 - wall0)
                # (seconds into the window, ms, objects freed, objects walked)
                result["gc2_passes"] = [[round(t - wall0, 1), round(ms, 1), *rest[1:]]
                                        for t, g, ms, *rest in timeline
                                        if g == 2 and wall0 <= t <= wall1]
                result["gc_stats_whole_run"] = gc_stats
                # (seconds into the window, the line): thaw probes' answers, thaw passes
                result["collector_lines"] = [[round(t - wall0, 1), line]
                                             for t, line in server.collector_lines]
    return result


def summary_line(r: dict) -> str:
    offered = "sat" if r["offered"] <= 0 else f"{r['offered']:g}/s"
    err = sum(r["errors"].values())
    gc2 = r.get("gc_max_ms", {}).get("2", float("nan"))
    return (
        f"RESULT label={r['label']} server={r['server']} scenario={r['scenario']} "
        f"rooms={r['rooms']} players={r['players']} conns={r['conns']} offered={offered} "
        f"applied={r['applied_per_s']:.0f}/s p50={r['p50_ms']:.2f}ms p99={r['p99_ms']:.2f}ms "
        f"max={r['max_ms']:.1f}ms pause={r['pause_ms']:.1f}ms probe_p99={r['probe_p99_ms']:.2f}ms "
        f"mem_per_conn={r['mem_per_conn_kb']:.1f}KB server_cpu={r['server_cpu_pct']:.0f}% "
        f"server_cpu_per_action={r['server_us_per_action']:.0f}us "
        f"gen_cpu={r['gen_cpu_pct']:.0f}% other_cpu={r['other_cpu_pct']:.0f}% "
        f"irq={r.get('irq_pct', float('nan')):.0f}% steal={r.get('steal_pct', float('nan')):.0f}% "
        f"gc2_max={gc2:.1f}ms "
        f"gc2_cpu={r.get('gc_cpu_max_ms', {}).get('2', float('nan')):.1f}ms "
        f"gc2_n={r.get('gc_count', {}).get('2', 0)} gc_time={r.get('gc_pct', float('nan')):.0f}% "
        f"gc_cpu={r.get('gc_cpu_pct', float('nan')):.0f}% late={r['late']} errors={err} "
        f"frame={r['state_frame_bytes']:.0f}B gc_max_by_gen="
        + "/".join(f"{r.get('gc_max_ms', {}).get(g, float('nan')):.1f}" for g in "012") + "ms"
        + " gc_cpu_max_by_gen="
        + "/".join(f"{r.get('gc_cpu_max_ms', {}).get(g, float('nan')):.1f}" for g in "012") + "ms"
    )


def parse_args(argv: list[str] | None = None, max_duration: float = 600) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--server", default="real",
                    help="real | bare (started here) | http://127.0.0.1:PORT (running)")
    ap.add_argument("--server-pid", type=int, default=0,
                    help="with a URL: the server's pid, for memory and CPU")
    ap.add_argument("--scenario", choices=("panika", "counter", "pilze"), default="panika")
    ap.add_argument("--rooms", type=int, default=50)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rate", type=float, default=0.0, help="total actions/s offered; 0 = saturate")
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--procs", type=int, default=1, help="generator processes")
    ap.add_argument("--ws-rate", type=int, default=None,
                    help="WS_MESSAGES_PER_SECOND for a started real server (default: the app's, "
                         "40; 1000 with --rate 0, where a bot that taps for its own play outruns "
                         "40 a second, and a refused action stalled its room for good)")
    ap.add_argument("--ping-interval", type=float, default=0.0,
                    help="PING_INTERVAL_SECONDS for a started server, real or bare (default: "
                         "the app's own, 1 s; the figures of docs/performance.md before "
                         "2026-12-02 afternoon used 2 s)")
    ap.add_argument("--gc-threshold", default="", help="passed to bench/serve.py")
    ap.add_argument("--py-spy", default="",
                    help="profile the server over the window: collapsed stacks to this file")
    ap.add_argument("--py-spy-native", action="store_true", help="with --py-spy: C frames too")
    ap.add_argument("--app-root", default="",
                    help="serve the app package of this tree instead (a scratch copy)")
    ap.add_argument("--tracemalloc", default="",
                    help="diagnostics: the server traces allocations; top sites after connect here")
    ap.add_argument("--census", default="",
                    help="diagnostics: at the end of the window the server writes here the objects "
                    "its collector tracks, by type, and times one full collection")
    ap.add_argument("--nodes", type=lambda v: [u.rstrip("/") for u in v.split(",") if u],
                    default=[], help="with a URL --server: the other running processes of the "
                    "same site (http://127.0.0.1:PORT,...); see --spread and bench/cluster.py")
    ap.add_argument("--node-pids", type=lambda v: [int(p) for p in v.split(",") if p],
                    default=[], help="their pids: memory and CPU count all processes")
    ap.add_argument("--spread", choices=("relay", "room"), default="relay",
                    help="with --nodes: each room's bots over every node (relayed), or all on "
                    "the room's own node (as a proxy routing by room)")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="the started real server's environment (repeatable), e.g. "
                    "DURABLE_ROOMS=false")
    ap.add_argument("--bare-frame-bytes", type=int, default=0,
                    help="--server bare: pad its state frames to about this many bytes")
    ap.add_argument("--no-pin", dest="pin", action="store_false",
                    help="do not pin the server and the load to separate cores")
    ap.add_argument("--label", default="")
    ap.add_argument("--json", default="", help="append the result as one JSON line to this file")
    args = ap.parse_args(argv)
    try:
        args.env = dict(item.split("=", 1) for item in args.env)
    except ValueError:
        ap.error("--env takes KEY=VALUE")
    if not 1 <= args.players <= 10 or args.rooms < 1 or args.duration <= 0:
        ap.error("players 1..10, rooms >= 1, duration > 0")
    if args.duration > max_duration:
        ap.error(f"duration is capped at {max_duration:g} s")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    r = run(args)
    line = summary_line(r)
    print(line, flush=True)
    if args.json:
        with open(args.json, "a") as f:
            f.write(json.dumps({**r, "line": line, "argv": argv or sys.argv[1:]}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
