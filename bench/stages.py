"""Where one move's time goes, in one process: the real functions of the move path, each timed,
over every player action of seeded Panika matches (no server, no sockets, no database).

    .venv/bin/python bench/stages.py                    # 20 matches x 3 rounds, ~1 minute
    .venv/bin/python bench/stages.py --matches 5 --rounds 1        # quicker
    .venv/bin/python bench/stages.py --volatile         # no journal (DURABLE_ROOMS=false)

A real ``Room`` with four seated connections (no table view, no bot) runs its actor on an event
loop with a real ``Journal`` and ``RoomRecorder`` (a durable room), whose database only answers
at once: the database thread's side of a commit is not counted, the loop's side is. Each
connection writes through the real direct writer (app/realtime/transport/wire.py) into a transport that
only counts the bytes, so the kernel's part (the sends on loopback) is not in the table either.
Each move is what the endpoint does with a client's ``action`` frame (``parse_client_frame``,
then ``Room.post``), then the loop runs until the actor has handled it, the journal has
"written" it and the frame gate has let the four state frames out.

Every function listed in ``STAGES`` is wrapped by a timer that charges its own time (its
callees that are listed elsewhere excluded) to its part. The same moves are then played once more
with nothing wrapped; what the timed moves took beyond that is the wrappers' cost, taken off per
wrapped call from the part that made the call (``apportion``), so the parts add up to the
unwrapped total. What no listed function covers (the event loop, the actor's
and the journal's task steps, this driver's await) is the ``event loop`` line. The collector is
off while moves are timed (its pauses are another question: docs/performance.md).

The matches are reproducible: the seeds come from ``--seed`` (``new_seed`` reads a seeded
generator here) and each move is chosen by a seeded generator (a tap or a "Last card!" call when
one is legal, else a random legal play); moves no seat can make (the rules' timers) are played
untimed. So the table can be taken before and after a change of the move path and compared.

The functions are named by module and attribute below (``STAGES``); a name that no longer exists
(a refactor moved it) is reported and skipped, and its time falls into its caller's part.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import random
import statistics
import sys
import time
import types
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import logs, metrics  # noqa: E402
from app.engine import Move, MoveLog, get_game  # noqa: E402
from app.engine import rng as engine_rng  # noqa: E402
from app.games import load_all  # noqa: E402

# The room layer, by module path (a move of app/realtime/ renames these imports).
from app.realtime import actor as room_mod  # noqa: E402
from app.realtime.durable import journal as journal_mod  # noqa: E402
from app.realtime.room import core as core_mod  # noqa: E402
from app.realtime.room import effects as effects_mod  # noqa: E402
from app.realtime.room import frames as frames_mod  # noqa: E402
from app.realtime.room import life as life_mod  # noqa: E402
from app.realtime.room import match as match_mod  # noqa: E402
from app.realtime.room import protocol as protocol_mod  # noqa: E402
from app.realtime.room import timers as timers_mod  # noqa: E402
from app.realtime.room import tokens as tokens_mod  # noqa: E402
from app.realtime.transport import connection as connection_mod  # noqa: E402
from app.realtime.transport import wire as wire_mod  # noqa: E402

GAMES = {"panika": "panika", "counter": "panika_counter"}
"""``--game``: the scenarios of bench/load.py played here."""

GAME = "game"
"""Stands for the game's engine object in ``STAGES`` (its methods are wrapped on the instance)."""

STAGES: list[tuple[str, str, list[tuple[Any, str]]]] = [
    ("parse", "frame + action parsing: one msgspec pass and the game's model built from it "
     "(orjson, the protocol's and the game's pydantic models for what that pass refuses)",
     [(protocol_mod, "parse_client_frame"), (GAME, "parse_action")]),
    ("log", "logging the move: Move.logged, MoveLog.append, the validated action's text kept",
     [(Move, "logged"), (MoveLog, "append"), (MoveLog, "append_text")]),
    ("rules", "rules: validate, apply, outcome, active seats, legal actions per seat",
     [(GAME, "validate"), (GAME, "apply"), (GAME, "outcome"), (GAME, "active_seats"),
      (GAME, "legal_actions")]),
    ("views", "views: the game's views of every seat (or its public part and each seat's own)",
     [(GAME, "views"), (GAME, "view"), (GAME, "view_parts")]),
    ("frames", "frame dicts, events, JSON encodes (the shared part once, each seat's part)",
     [(frames_mod.Frames, "broadcast_state"), (frames_mod.Frames, "_state_common"),
      (frames_mod.Frames, "_state_head"), (frames_mod.Frames, "record"),
      (frames_mod, "event_frame"), (frames_mod, "common_tail"), (frames_mod, "spliced"),
      (frames_mod, "joined_view"),
      (protocol_mod, "encode")]),
    ("timers", "timers: the rules' timers, the board synced, shown, the loop timer armed",
     [(life_mod.MatchLife, "_sync_timers"), (GAME, "timers"),
      (timers_mod.TimerBoard, "sync"), (timers_mod.TimerBoard, "visible"),
      (timers_mod.TimerBoard, "soonest"), (room_mod.Room, "_arm")]),
    ("journal", "journal, loop side: the recorder's comparison and operations, the frame gate, "
     "the commit's answer",
     [(journal_mod.RoomRecorder, "record"), (journal_mod.RoomRecorder, "begin"),
      (journal_mod.RoomRecorder, "end"), (journal_mod.Journal, "write"),
      (journal_mod.Journal, "_written"), (journal_mod.FrameGate, "begin"),
      (journal_mod.FrameGate, "end"), (journal_mod.FrameGate, "send"),
      (journal_mod.FrameGate, "release")]),
    ("dispatch", "actor dispatch: post, handle, the core's input, effects, clock, log context, "
     "metrics",
     [(room_mod.Room, "post"), (room_mod.Room, "_handle"), (room_mod.Room, "_perform"),
      (core_mod.RoomCore, "frame"), (core_mod.RoomCore, "take"), (core_mod.RoomCore, "_on_frame"),
      (life_mod.MatchLife, "on_action"), (life_mod.MatchLife, "_after_move"),
      (match_mod.MatchRun, "play"), (effects_mod.Now, "read"), (logs, "handling"),
      (metrics, "player_move")]),
    ("send", "send path: Connection.send_text and its write, the direct writer (header)",
     [(connection_mod.Connection, "send_text"), (connection_mod.Connection, "write_now"),
      (connection_mod.Connection, "_write"), ("direct", "writer")]),
]
LOOP = "event loop"
PARTS = [part for part, _, _ in STAGES]


# --- the timers -------------------------------------------------------------------------------

class Clock:
    """Exclusive time per part: each wrapped call's time minus its wrapped callees'."""

    def __init__(self) -> None:
        self.on = False
        self.own: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.children: dict[str, int] = defaultdict(int)
        """Wrapped calls made from inside each part (each costs its caller some wrapper time)."""
        self.stack: list[list[Any]] = []

    def wrap(self, part: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        clock = self
        stack = self.stack
        own, calls, children = self.own, self.calls, self.children
        now = time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            if not clock.on:
                return fn(*args, **kwargs)
            frame: list[Any] = [0.0, part]  # the wrapped callees' time, this part
            stack.append(frame)
            t0 = now()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = now() - t0
                stack.pop()
                own[part] += spent - frame[0]
                calls[part] += 1
                if stack:
                    stack[-1][0] += spent
                    children[stack[-1][1]] += 1
                else:
                    children[LOOP] += 1

        timed.__wrapped__ = fn  # type: ignore[attr-defined]
        return timed

    def reset(self) -> None:
        self.own.clear()
        self.calls.clear()
        self.children.clear()


# --- the room without sockets -----------------------------------------------------------------

class CountingTransport:
    """Stands in for a socket's transport: counts what the direct writer hands it."""

    def __init__(self) -> None:
        self.bytes = 0
        self.frames = 0

    def write(self, data: bytes) -> None:
        self.bytes += len(data)
        self.frames += 1

    def is_closing(self) -> bool:
        return False


def direct_writer(transport: CountingTransport) -> Callable[[bytes], bool]:
    """The real direct writer (wire.py) over a stand-in of uvicorn's protocol object."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from websockets.protocol import State

    protocol = object.__new__(WebSocketsSansIOProtocol)
    writable = asyncio.Event()
    writable.set()
    attrs = {"conn": types.SimpleNamespace(state=State.OPEN, extensions=[]),
             "writable": writable, "close_sent": False, "disconnected": False,
             "transport": transport, "queue": None, "read_paused": False}
    for name, value in attrs.items():
        setattr(protocol, name, value)
    ws = types.SimpleNamespace(_send=types.MethodType(lambda self, message: None, protocol))
    writer = wire_mod.direct_text_writer(ws)
    if writer is None:
        raise SystemExit("wire.direct_text_writer refused the stand-in protocol")
    return writer


class FastDb:
    """The journal's database: every batch is "written" at once (the thread's side not counted)."""

    async def write(self, fn: Callable[..., Any], *args: Any) -> set[str]:
        return set()


async def _no_save(record: Any, on_state: Any) -> int:
    return 1


COUNTER_TAPS = 300
"""Player actions in a counter "match" (it ends only with ``new_counter``: sent untimed)."""


def choose_counter(state: Any, taken: int, players: int
                   ) -> tuple[int | None, dict[str, Any]] | None:
    """bench/load.py's counter bot: the seats in turn, ``tap`` while the counter is under 15,
    else ``reset`` (``new_round`` after a burst); None after ``COUNTER_TAPS`` (``play`` then
    sends ``new_counter``, untimed)."""
    if taken >= COUNTER_TAPS:
        return None
    seat = taken % players  # the seated connections (an open table has seats to spare)
    if state.phase == "burst":
        return seat, {"type": "new_round"}
    return seat, {"type": "reset" if state.counter >= 15 else "tap"}


def choose(game: Any, state: Any, players: int, rng: random.Random
           ) -> tuple[int | None, dict[str, Any]] | None:
    """A seat's legal action (a tap or a call first, else a random legal play), else a timer's
    action; None when nothing can be played."""
    plays = []
    for seat in range(players):
        for action in game.legal_actions(state, seat):
            if action["type"] != "play":
                return seat, action
            plays.append((seat, action))
    if plays:
        return rng.choice(plays)
    system = game.legal_actions(state, None)
    return (None, system[0]) if system else None


class Table:
    """One room of ``players`` connections, its actor running, its journal attached."""

    def __init__(self, game: Any, players: int, durable: bool, ping_seconds: float) -> None:
        self.game = game
        self.room = room_mod.Room(code="BNCH", game=game, public=False,
                                  tokens=tokens_mod.SeatTokens("bench"), save_match=_no_save,
                                  ping_seconds=ping_seconds)
        self.journal = None
        if durable:
            self.journal = journal_mod.Journal(FastDb())  # type: ignore[arg-type]
            self.room.recorder = journal_mod.RoomRecorder(self.journal, "BNCH")
            self.room.recorder.gate.on_saving = self.room.on_saving
        self.transports = [CountingTransport() for _ in range(players)]
        self.conns = []
        for transport in self.transports:
            conn = connection_mod.Connection(_ignored_send, direct_writer(transport))
            self.conns.append(conn)

    async def start(self) -> None:
        if self.journal is not None:
            self.journal.start()
        self.room.start(on_close=lambda room: None)
        for i, conn in enumerate(self.conns):
            await self.send(conn, orjson.dumps({"type": "join", "nickname": f"bot{i}"}))
        self.host = next(c for c in self.conns if c.member is not None
                         and c.member.id == self.room.state.host)

    async def send(self, conn: Any, text: bytes | str) -> None:
        """What the endpoint does with a client's frame, then the loop until it is handled, its
        changes written and its frames out."""
        self.room.post(effects_mod.Frame(
            conn, protocol_mod.parse_client_frame(text, self.room.state.game)))
        await self.settle()

    async def settle(self) -> None:
        room, journal = self.room, self.journal
        gate = room.recorder.gate if room.recorder is not None else None
        for _ in range(50):
            await asyncio.sleep(0)
            if room.queued() == 0 and (journal is None or gate is None
                                       or (journal.pending == 0 and gate.held == 0)):
                return
        raise SystemExit("the room did not settle")

    async def system_move(self, action: dict[str, Any]) -> None:
        """A move of the rules' timers, as the actor plays one (untimed)."""
        room = self.room
        recorder = room.recorder
        if recorder is not None:
            recorder.begin()
        core = room.core
        now = core.state.now = effects_mod.Now.read()  # as the actor reads it for a timer
        assert core.state.match is not None
        events = core.state.match.play(None, action, now=now.mono)
        core.life._after_move(events)  # noqa: SLF001 - what MatchLife.on_timer does
        room.perform(core.take())
        if recorder is not None:
            recorder.end(room.state)
        await self.settle()

    async def close(self) -> None:
        self.room.post(effects_mod.CloseRoom())
        await asyncio.sleep(0)
        if self.room.task is not None:
            await self.room.task
        if self.journal is not None:
            await self.journal.stop()


async def _ignored_send(message: dict[str, Any]) -> None:
    """The usual (ASGI) path: closes only, here."""


def kept(wall: float, cpu: float) -> bool:
    """A move the machine did not interrupt: its wall time is its thread's CPU time, give or
    take (a move that waited for another process's time slice is left out of the table)."""
    return wall <= cpu + max(20e-6, 0.25 * cpu)


async def play(args: argparse.Namespace, clock: Clock | None, match_seed: int,
               meter: Any = None) -> dict[str, Any]:
    """``args.matches`` matches: for each player action not interrupted, its driver time and
    (with ``clock``) its time by part; the moves left out; the frames' bytes. ``meter``: its
    ``on()`` and ``off()`` are called around each player action (bench/instructions.py)."""
    game = get_game(GAMES[getattr(args, "game", "panika")])
    assert game is not None
    counter = game.id == "panika_counter"
    seeds = random.Random(match_seed)
    engine_rng.secrets = types.SimpleNamespace(  # type: ignore[attr-defined,assignment]
        token_bytes=seeds.randbytes)  # a seeded new_seed
    rng = random.Random(match_seed)
    table = Table(game, args.players, not args.volatile, ping_seconds=3600)
    await table.start()
    times: list[float] = []
    parts: list[dict[str, tuple[float, int, int]]] = []
    dropped = system = 0
    for number in range(args.matches):
        if number == 0:
            await table.send(table.host, b'{"type":"start"}')
        elif not counter:
            await table.send(table.host, b'{"type":"rematch"}')
        by_seat = {c.seat: c for c in table.conns}
        gc.collect()
        gc.disable()
        for taken in range(5000):
            match = table.room.state.match
            if match is None or match.outcome() is not None:
                break
            move = (choose_counter(match.state, taken, args.players) if counter
                    else choose(game, match.state, args.players, rng))
            if move is None:
                if counter:  # a fresh counter: this one recorded, the next started (untimed)
                    await table.send(by_seat[0], b'{"type":"action","action":{"type":"new_counter"}}')
                break
            seat, action = move
            if seat is None:
                system += 1
                await table.system_move(action)
                continue
            text = orjson.dumps({"type": "action", "action": action})
            conn = by_seat[seat]
            if clock is not None:
                clock.reset()
                clock.on = True
            if meter is not None:
                meter.on()
            c0 = time.thread_time()
            t0 = time.perf_counter()
            await table.send(conn, text)
            wall = time.perf_counter() - t0
            cpu = time.thread_time() - c0
            if meter is not None:
                meter.off()
            if clock is not None:
                clock.on = False
            if not kept(wall, cpu):
                dropped += 1
                continue
            times.append(wall)
            if clock is not None:
                parts.append({k: (clock.own.get(k, 0.0), clock.calls.get(k, 0),
                                  clock.children.get(k, 0)) for k in [*PARTS, LOOP]})
        gc.enable()
    await table.close()
    sent = sum(t.bytes for t in table.transports)
    frames = sum(t.frames for t in table.transports)
    return {"times": times, "parts": parts, "dropped": dropped, "system": system,
            "bytes": sent, "frames": frames}


def install(clock: Clock, game: Any) -> tuple[list[Callable[[], None]], list[str]]:
    """Wrap every function of ``STAGES``; the undo steps, and the names not found."""
    undo: list[Callable[[], None]] = []
    missing: list[str] = []
    for part, _, targets in STAGES:
        for owner, name in targets:
            if owner == "direct":
                original = wire_mod.direct_text_writer

                def writer(ws: Any, _orig: Any = original, _part: str = part) -> Any:
                    made = _orig(ws)
                    return clock.wrap(_part, made) if made is not None else None

                wire_mod.direct_text_writer = writer
                undo.append(functools.partial(setattr, wire_mod, "direct_text_writer", original))
                continue
            target = game if owner == GAME else owner
            label = f"{getattr(target, '__name__', type(target).__name__)}.{name}"
            if not hasattr(target, name):
                missing.append(label)
                continue
            if isinstance(target, type):
                raw = target.__dict__.get(name)
                if raw is None:  # inherited: wrap where it is defined
                    missing.append(label + " (not defined there)")
                    continue
                if isinstance(raw, classmethod):
                    wrapped: Any = classmethod(clock.wrap(part, raw.__func__))
                elif isinstance(raw, staticmethod):
                    wrapped = staticmethod(clock.wrap(part, raw.__func__))
                else:
                    wrapped = clock.wrap(part, raw)
                setattr(target, name, wrapped)
                undo.append(functools.partial(setattr, target, name, raw))
            elif target is game:
                setattr(game, name, clock.wrap(part, getattr(game, name)))
                undo.append(functools.partial(delattr, game, name))
            else:  # a module's function
                original = getattr(target, name)
                setattr(target, name, clock.wrap(part, original))
                undo.append(functools.partial(setattr, target, name, original))
    return undo, missing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--matches", type=int, default=20, help="matches per round")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds, alternating timed and untimed: the median round is shown")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--volatile", action="store_true", help="no journal (DURABLE_ROOMS=false)")
    ap.add_argument("--game", choices=sorted(GAMES), default="panika",
                    help="counter: bench/load.py's counter bot, %d actions a counter" % COUNTER_TAPS)
    args = ap.parse_args(argv)
    load_all()
    logging_quiet()
    game = get_game(GAMES[args.game])
    clock = Clock()
    rounds: list[dict[str, float]] = []
    info: dict[str, Any] = {}
    for _ in range(args.rounds):
        undo, missing = install(clock, game)
        try:
            r = asyncio.run(play(args, clock, args.seed))
        finally:
            for step in reversed(undo):
                step()
        plain_run = asyncio.run(play(args, None, args.seed))
        rounds.append(apportion(r, statistics.mean(plain_run["times"])))
        info = {"moves": len(r["times"]), "system": r["system"], "missing": missing,
                "dropped": r["dropped"], "plain_dropped": plain_run["dropped"],
                "frame_bytes": plain_run["bytes"] / max(1, plain_run["frames"])}
    print_table(args, rounds, info)
    return 0


def apportion(timed: dict[str, Any], plain: float) -> dict[str, float]:
    """Seconds per move by part, the wrappers' cost taken off: what the timed moves took more
    than the same moves unwrapped (``plain``), shared per wrapped call, is charged to the part
    that made each call (the wrapper's work falls outside the callee's own clock readings)."""
    moves = len(timed["times"])
    own = {k: sum(m[k][0] for m in timed["parts"]) / moves for k in [*PARTS, LOOP]}
    calls = {k: sum(m[k][1] for m in timed["parts"]) / moves for k in [*PARTS, LOOP]}
    children = {k: sum(m[k][2] for m in timed["parts"]) / moves for k in [*PARTS, LOOP]}
    total = sum(timed["times"]) / moves
    own[LOOP] = total - sum(own[k] for k in PARTS)
    per_call = max(0.0, (total - plain) / max(1e-9, sum(children.values())))
    per = {k: own[k] - children[k] * per_call for k in [*PARTS, LOOP]}
    per.update({f"calls:{k}": calls[k] for k in PARTS})
    per.update(calls=sum(calls[k] for k in PARTS), per_call=per_call, timed=total, plain=plain)
    return per


def logging_quiet() -> None:
    import logging

    logging.getLogger("app").setLevel(logging.WARNING)


def print_table(args: argparse.Namespace, rounds: list[dict[str, float]],
                info: dict[str, Any]) -> None:
    def med(key: str) -> float:
        return statistics.median(r[key] for r in rounds)

    room = "volatile room" if args.volatile else "durable room"
    print(f"{args.game.capitalize()}, {args.players} seats, {room}: {info['moves']} player actions per round in "
          f"{args.matches} matches (seed {args.seed}; {info['system']} timer moves untimed; "
          f"{info['dropped']} + {info['plain_dropped']} actions interrupted by the machine, "
          "left out), "
          f"median of {args.rounds} rounds; Python {sys.version.split()[0]}; "
          f"{time.strftime('%Y-%m-%d %H:%M %Z')}")
    print(f"{med('calls'):.1f} wrapped calls per move, {1e9 * med('per_call'):.0f} ns each "
          f"taken off (timed {1e6 * med('timed'):.1f} us a move, unwrapped "
          f"{1e6 * med('plain'):.1f} us); state frames {info['frame_bytes']:.0f} B on average "
          "(as written)")
    if info["missing"]:
        print("not found (their time is in their callers' parts): " + ", ".join(info["missing"]))
    print()
    print("| part | us per move | wrapped calls per move | what it covers |")
    print("| --- | ---: | ---: | --- |")
    total = 0.0
    for part, what, _ in STAGES:
        us = 1e6 * med(part)
        total += us
        print(f"| {part} | {us:.1f} | {med(f'calls:{part}'):.1f} | {what} |")
    loop = 1e6 * med(LOOP)
    total += loop
    print(f"| {LOOP} | {loop:.1f} | | the actor's and the journal's task steps, the queue, "
          "this driver's awaits |")
    print(f"| total | {total:.1f} | | the parts' sum: the same moves unwrapped took "
          f"{1e6 * med('plain'):.1f} us |")


if __name__ == "__main__":
    sys.exit(main())
