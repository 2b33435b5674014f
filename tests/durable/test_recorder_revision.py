"""The recorder writes the room only when an input moved its ``revision``
(app/realtime/durable/journal.py): after any sequence of inputs, the room it last wrote is the
room as ``save_room`` reads it now. A part of the room's core that changed what is stored without
``touch`` would leave a restored room wrong; random inputs of every kind look for one."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import orjson
import pytest

from app.db.rooms import RoomOp, SaveRoom
from app.realtime.durable.journal import FrameGate, RoomRecorder
from app.realtime.durable.stored import save_room
from app.realtime.room.core import RoomCore
from app.realtime.room.effects import Close, Effect
from app.realtime.room.protocol import parse_client_frame
from app.realtime.transport.connection import Connection
from tests.realtime.core_helpers import at, room

NAMES = ["Ada", "Bob", "ada", "Cy", "Dee", "Eve"]


class ListJournal:
    """The journal as the recorder uses it, keeping what it is given."""

    accepting = True
    open = False

    def __init__(self) -> None:
        self.ops: list[RoomOp] = []

    def attach(self, recorder: RoomRecorder) -> None:
        pass

    def write(self, op: RoomOp, gate: FrameGate | None = None) -> int:
        self.ops.append(op)
        return len(self.ops)


def _stored(op: SaveRoom) -> dict[str, Any]:
    """A ``SaveRoom`` without the time it was made."""
    return {f.name: getattr(op, f.name) for f in dataclasses.fields(op) if f.name != "at"}


class Driver:
    """A room's core fed random inputs at a rising time, as the actor would feed it."""

    def __init__(self, game: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.core: RoomCore = room(game)
        self.t = 0.0
        self.conns: list[Connection] = []
        self.tokens: dict[int, str] = {}

    def frame(self, conn: Connection, data: dict[str, Any]) -> list[Effect]:
        effects = self.core.frame(conn, parse_client_frame(orjson.dumps(data)), at(self.t))
        for effect in effects:
            if isinstance(effect, Close) and effect.conn in self.conns:
                self.conns.remove(effect.conn)
        if conn.member is not None:
            self.tokens[conn.member.id] = self.core.token_for(conn.member)
        return effects

    def host_conn(self) -> Connection | None:
        host = self.core.state.host
        return next((c for c in self.conns if c.member is not None and c.member.id == host),
                    None)

    def member_id(self) -> int:
        ids = list(self.core.state.members) or [0]
        return self.rng.choice(ids + [999])

    def step(self) -> str:
        rng, core = self.rng, self.core
        self.t += rng.choice([0.01, 0.5, 3.0, 9.0, 25.0])
        kind = rng.choice(["join", "join", "rejoin", "close", "host", "host", "host", "action",
                           "action", "action", "action", "timers", "tick", "bots", "chat"])
        if kind == "join":
            conn = Connection()
            self.conns.append(conn)
            self.frame(conn, {"type": "join", "nickname": rng.choice(NAMES)})
        elif kind == "rejoin" and self.tokens:
            conn = Connection()
            self.conns.append(conn)
            self.frame(conn, {"type": "join", "token": rng.choice(list(self.tokens.values()))})
        elif kind == "close" and self.conns:
            conn = rng.choice(self.conns)
            self.conns.remove(conn)
            core.closed_connection(conn, at(self.t))
        elif kind == "host" and (host := self.host_conn()) is not None:
            command = rng.choice([
                {"type": "start"}, {"type": "start"}, {"type": "rematch"},
                {"type": "set_options", "options": {}},
                {"type": "set_options", "room": {"bot_takeover_seconds": rng.choice([0, 5, 20])}},
                {"type": "add_bot", "difficulty": "easy"},
                {"type": "remove_bot", "member": self.member_id()},
                {"type": "kick", "member": self.member_id()},
                {"type": "make_host", "member": self.member_id()},
            ])
            self.frame(host, command)
        elif kind == "action":
            self._act()
        elif kind == "timers":
            core.timers_due(at(self.t))
        elif kind == "tick":
            core.tick(at(self.t))
        elif kind == "bots":
            core.takeover_check(at(self.t))
        elif kind == "chat" and self.conns:
            self.frame(rng.choice(self.conns), {"type": "chat", "text": "hi"})
        return kind

    def _act(self) -> None:
        """A legal action of a seated, connected member (or, now and then, a refused one)."""
        match = self.core.state.match
        seated = [c for c in self.conns if c.member is not None and c.member.seat is not None]
        if match is None or not seated:
            return
        conn = self.rng.choice(seated)
        assert conn.member is not None
        legal = self.core.state.game.legal_actions(match.state, conn.member.seat)
        action = self.rng.choice(legal) if legal and self.rng.random() < 0.9 \
            else {"type": "nonsense"}
        self.frame(conn, {"type": "action", "action": action})


@pytest.mark.parametrize("game", ["panika", "panika_counter", "panique"])
@pytest.mark.parametrize("seed", range(6))
def test_the_room_last_written_is_the_room_as_it_is_after_random_inputs(game, seed):
    driver = Driver(game, seed)
    journal = ListJournal()
    recorder = RoomRecorder(journal, driver.core.state.code)  # type: ignore[arg-type]
    kinds: list[str] = []
    for step in range(400):
        kinds.append(driver.step())
        recorder.record(driver.core.state)
        saved = [op for op in journal.ops if isinstance(op, SaveRoom)]
        assert saved, "the first record writes the room"
        assert _stored(saved[-1]) == _stored(save_room(driver.core.state)), (
            f"step {step} ({kinds[-1]}): the room changed without moving its revision; "
            f"inputs so far: {kinds}")
    # The inputs did what the test is for: members came and went, matches ran.
    assert driver.core.state.match_number >= 1 or game == "panique"
    writes = sum(isinstance(op, SaveRoom) for op in journal.ops)
    assert writes < len(kinds)  # most inputs wrote no room


def test_a_move_of_the_match_writes_no_room_and_computes_no_fingerprint(monkeypatch):
    """The common input, a move, is queued as itself: the recorder neither writes the room nor
    compares it (issue 22: no fingerprint of the room per input)."""
    from app.realtime.durable import journal as journal_mod

    driver = Driver("panika", 1)
    core = driver.core
    conns = []
    for name in ("Ada", "Bob"):
        conn = Connection()
        conns.append(conn)
        driver.frame(conn, {"type": "join", "nickname": name})
    driver.frame(conns[0], {"type": "start"})
    journal = ListJournal()
    recorder = RoomRecorder(journal, core.state.code)  # type: ignore[arg-type]
    recorder.record(core.state)
    compared: list[int] = []
    real = journal_mod.fingerprint
    monkeypatch.setattr(journal_mod, "fingerprint",
                        lambda state: compared.append(1) or real(state))
    before = len(journal.ops)
    assert core.state.match is not None
    seat_conn = {c.member.seat: c for c in conns if c.member is not None}
    for seat in core.state.game.active_seats(core.state.match.state):
        action = core.state.game.legal_actions(core.state.match.state, seat)[0]
        driver.frame(seat_conn[seat], {"type": "action", "action": action})
        break
    recorder.record(core.state)
    assert [type(op).__name__ for op in journal.ops[before:]] == ["AddMove"]
    assert compared == []
