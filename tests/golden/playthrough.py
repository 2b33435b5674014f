"""Golden playthroughs: a seeded, scripted room of every game, and every frame each recipient got.

OpenSpiel keeps every observation of a scripted game as a fixture, so that a change that alters
what a player sees fails a test (STYLE.md's anchors; issue 21). Here one room of each registered
game is driven through the room's core with simulated time: Ann (the host), Ben and Cem join, a
table view watches, the host adds a computer player where the game has them, sets short timers
where the game has options for them, and starts; then the people act from the ``legal`` lists of
the frames they were sent (a seeded choice, sometimes a refused action, a chat line, a pause long
enough for a timer to fire), Ben drops out and comes back with his token, and the match is played
to its end (or a cap), followed by a rematch for a game that has one. Every frame any recipient
was sent, pings and closes included, is written as one line: the recipient's label and the frame
exactly as sent.

Determinism: the time is simulated (``Now`` is given with every input); the randomness the room
reads (match seeds, member nonces, ping numbers, bot seeds) comes from the ``secrets`` module,
which ``seeded_secrets`` replaces with a seeded generator for the run. The driver talks to the
room only through its inputs and effects (``CoreDriver``), so a redesign of the room changes at
most that class, never the fixtures: a change of any fixture is a change of what clients see,
and its commit must say so. ``python -m tests.golden.record`` writes them anew.
"""

from __future__ import annotations

import contextlib
import gzip
import heapq
import itertools
import random
import secrets
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from app.engine import Game, get_package
from app.realtime.room import protocol as p
from app.realtime.transport.connection import Connection
from app.realtime.room.core import RoomCore
from app.realtime.room.effects import (
    BotDecision, Cancel, Close, Control, Effect, Later, Message, Now, Save, Send, SendEach,
    TakeoverCheck, WakeAt,
)
from app.realtime.room.tokens import SeatTokens

FIXTURES = Path(__file__).resolve().parent / "fixtures"
T0 = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
MONO0 = 5000.0
STEP_SECONDS = 0.7
"""Simulated time between two rounds of the people's choices."""
TICK_SECONDS = 5.0
MAX_STEPS = 260
"""The people's turns in one playthrough at most (the fixtures stay a few hundred KB)."""
RTT_MS = {"Ann": 40, "Ben": 90, "Cem": 25, "table": 60}

def short_timers(game: Game[Any, Any]) -> dict[str, Any]:
    """Options that keep a playthrough short and let timers fire: the game's package's
    ``quick_options`` (empty: the defaults)."""
    package = get_package(game.id)
    return dict(package.quick_options) if package is not None else {}


@contextlib.contextmanager
def seeded_secrets(seed: str) -> Iterator[None]:
    """``secrets.token_hex``, ``token_bytes`` and ``randbits`` from a seeded generator, in this
    thread only (a live server of another test in this process keeps the real ones)."""
    rng = random.Random(seed)
    saved = secrets.token_hex, secrets.token_bytes, secrets.randbits
    here = threading.get_ident()

    def seeded(ours: Callable[..., Any], theirs: Callable[..., Any]) -> Callable[..., Any]:
        return lambda *args: ours(*args) if threading.get_ident() == here else theirs(*args)

    secrets.token_bytes = seeded(lambda n=32: rng.randbytes(n), saved[1])  # type: ignore[assignment]
    secrets.token_hex = seeded(lambda n=32: rng.randbytes(n).hex(), saved[0])  # type: ignore[assignment]
    secrets.randbits = seeded(rng.getrandbits, saved[2])  # type: ignore[assignment]
    try:
        yield
    finally:
        secrets.token_hex, secrets.token_bytes, secrets.randbits = saved


def now_at(t: float) -> Now:
    """Simulated time ``t`` seconds into the playthrough, on both clocks."""
    return Now(MONO0 + t, T0 + timedelta(seconds=t))


class CoreDriver:
    """The room's core behind its inputs; the only place that knows how the room is built."""

    def __init__(self, game: Game[Any, Any], t: float) -> None:
        self.core = RoomCore(code="GOLD", game=game, public=True, tokens=SeatTokens("golden"),
                             now=now_at(t))

    def initial(self) -> list[Effect]:
        return self.core.take()

    def frame(self, conn: Connection, message: Any, t: float) -> list[Effect]:
        return self.core.frame(conn, message, now_at(t))

    def closed(self, conn: Connection, t: float) -> list[Effect]:
        return self.core.closed_connection(conn, now_at(t))

    def timers(self, t: float) -> list[Effect]:
        return self.core.timers_due(now_at(t))

    def tick(self, t: float) -> list[Effect]:
        return self.core.tick(now_at(t))

    def later(self, message: Message, t: float) -> list[Effect]:
        match message:
            case BotDecision(seat, generation, action):
                return self.core.bot_decision(seat, generation, action, now_at(t))
            case TakeoverCheck():
                return self.core.takeover_check(now_at(t))
        raise ValueError(f"unknown message {message!r}")

    def saved(self, match: Any, t: float) -> list[Effect]:
        return self.core.saved(match, "saved", 1, now_at(t))


@dataclass
class Client:
    """A page of the playthrough: its connection and what it was sent."""

    label: str
    conn: Connection = field(default_factory=Connection)
    token: str | None = None
    last_state: dict[str, Any] | None = None


class Playthrough:
    """One scripted room; ``lines`` is every frame sent, in order, as ``label<TAB>text``."""

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game
        self.chooser = random.Random(f"golden-{game.id}")
        self.t = 0.0
        self.lines: list[str] = []
        self.clients: dict[Connection, Client] = {}
        self.queue: list[tuple[float, int, str, Any]] = []
        self.order = itertools.count()
        self.keyed: dict[Any, int] = {}
        self.cancelled: set[int] = set()
        self.wake: float | None = None
        self.next_tick = TICK_SECONDS
        self.driver = CoreDriver(game, 0.0)
        self.perform(self.driver.initial())

    # --- effects -------------------------------------------------------------------------------
    def perform(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, SendEach):
                for conn, text in effect.frames:
                    self.deliver(conn, text)
            elif isinstance(effect, (Send, Control)):
                for conn in effect.conns:
                    self.deliver(conn, effect.text)
            elif isinstance(effect, Close):
                label = self.clients[effect.conn].label if effect.conn in self.clients else "?"
                why = list(effect.why) if effect.why else None
                self.lines.append(f"{label}\tCLOSE {effect.code} {orjson.dumps(why).decode()}")
            elif isinstance(effect, Later):
                seq = next(self.order)
                if effect.key is not None:
                    old = self.keyed.pop(effect.key, None)
                    if old is not None:
                        self.cancelled.add(old)
                    self.keyed[effect.key] = seq
                heapq.heappush(self.queue, (self.t + effect.delay, seq, "later", effect.message))
            elif isinstance(effect, Cancel):
                old = self.keyed.pop(effect.key, None)
                if old is not None:
                    self.cancelled.add(old)
            elif isinstance(effect, WakeAt):
                at = effect.at - MONO0
                if self.wake is None or at < self.wake:
                    self.wake = at
                    heapq.heappush(self.queue, (max(at, self.t), next(self.order), "wake", at))
            elif isinstance(effect, Save):
                heapq.heappush(self.queue, (self.t, next(self.order), "saved", effect.match))

    def deliver(self, conn: Connection, data: bytes | str) -> None:
        """A frame as the room hands it out (bytes; a control frame as text), kept as text."""
        text = data.decode() if isinstance(data, bytes) else data
        client = self.clients.get(conn)
        label = client.label if client is not None else "?"
        self.lines.append(f"{label}\t{text}")
        if client is None:
            return
        frame = orjson.loads(text)
        kind = frame.get("type")
        if kind == "welcome" and frame.get("token"):
            client.token = frame["token"]
        elif kind == "state":
            client.last_state = frame
        elif kind == "ping":  # answered after the client's round trip
            heapq.heappush(self.queue, (self.t + RTT_MS[client.label] / 1000, next(self.order),
                                        "pong", (conn, frame["t"])))

    def run_until(self, t: float) -> None:
        """Everything scheduled up to simulated time ``t``, in order (ticks included)."""
        while True:
            due = self.queue[0][0] if self.queue else None
            if self.next_tick <= t and (due is None or self.next_tick <= due):
                self.t = self.next_tick
                self.next_tick += TICK_SECONDS
                self.perform(self.driver.tick(self.t))
                continue
            if due is None or due > t:
                break
            at, seq, kind, payload = heapq.heappop(self.queue)
            self.t = max(self.t, at)
            if seq in self.cancelled:
                continue
            if kind == "later":
                self.keyed = {k: v for k, v in self.keyed.items() if v != seq}
                self.perform(self.driver.later(payload, self.t))
            elif kind == "wake":
                if self.wake == payload:
                    self.wake = None
                self.perform(self.driver.timers(self.t))
            elif kind == "saved":
                self.perform(self.driver.saved(payload, self.t))
            elif kind == "pong":
                conn, ping_t = payload
                if conn in self.clients and not conn.closed:
                    self.perform(self.driver.frame(conn, p.Pong(type="pong", t=ping_t), self.t))
        self.t = max(self.t, t)

    # --- the people ----------------------------------------------------------------------------
    def send(self, client: Client, message: Any) -> None:
        self.perform(self.driver.frame(client.conn, message, self.t))

    def join(self, label: str, *, watch: bool = False) -> Client:
        client = Client(label)
        self.clients[client.conn] = client
        message = p.Join(type="join", watch=True) if watch else p.Join(type="join", nickname=label)
        self.send(client, message)
        return client

    def rejoin(self, client: Client) -> Client:
        again = Client(client.label, token=client.token)
        self.clients[again.conn] = again
        self.send(again, p.Join(type="join", token=client.token))
        return again

    def act(self, people: list[Client]) -> None:
        """One round of choices: a seeded person with something to do does it (or errs)."""
        roll = self.chooser.random()
        if roll < 0.15:
            return  # everyone hesitates: the timers get their chance
        able = [c for c in people if c.last_state and c.last_state.get("legal")]
        if roll < 0.18 and people:
            who = self.chooser.choice(people)
            self.send(who, p.Chat(type="chat", text=f"{who.label} says hi at {self.t:.1f}"))
            return
        if not able:
            return
        who = self.chooser.choice(able)
        assert who.last_state is not None
        if roll < 0.23:  # a refused action: the error goes to the sender alone
            bogus = self.chooser.choice([{"type": "no_such_action"},
                                         {"type": "timeout"}, *who.last_state["legal"]])
            self.send(who, p.Action(type="action", action=bogus, ref=7))
            self.send(who, p.Action(type="action", action=bogus, ref=8))
            return
        action = self.chooser.choice(who.last_state["legal"])
        self.send(who, p.Action(type="action", action=action, ref=1))

    def play(self) -> list[str]:
        game = self.game
        ann = self.join("Ann")
        ben = self.join("Ben")
        cem = self.join("Cem")
        self.join("table", watch=True)
        people = [ann, ben, cem]
        if not game.open_table:
            if short_timers(game):
                self.send(ann, p.SetOptions(type="set_options", options=short_timers(game)))
            if game.max_players > 3:
                self.send(ann, p.AddBot(type="add_bot", difficulty="normal"))
            self.send(ann, p.Start(type="start"))
        rematched = False
        for step in range(MAX_STEPS):
            self.run_until(self.t + STEP_SECONDS)
            if step == 12:  # Ben's phone drops, then comes back with his token
                self.perform(self.driver.closed(ben.conn, self.t))
                del self.clients[ben.conn]
                people.remove(ben)
                self.run_until(self.t + 3.0)
                ben = self.rejoin(ben)
                people.insert(1, ben)
            status = self.driver.core.state.status
            if status == "finished" and not rematched:
                self.run_until(self.t + 2.0)
                self.send(ann, p.Rematch(type="rematch"))
                rematched = True
                continue
            if status == "finished":
                break
            self.act(people)
        self.run_until(self.t + 1.0)
        return self.lines


def play(game: Game[Any, Any]) -> list[str]:
    """The golden lines of ``game``'s playthrough."""
    with seeded_secrets(f"golden-{game.id}"):
        return Playthrough(game).play()


def fixture(game_id: str) -> Path:
    """The stored playthrough of ``game_id``: its lines, gzipped (a few MB of JSON as text)."""
    return FIXTURES / f"{game_id}.txt.gz"


def read_fixture(game_id: str) -> list[str]:
    return gzip.decompress(fixture(game_id).read_bytes()).decode("utf-8").splitlines()


def write_fixture(game_id: str, lines: list[str]) -> None:
    data = ("\n".join(lines) + "\n").encode("utf-8")
    fixture(game_id).write_bytes(gzip.compress(data, mtime=0))
