"""A room's frames wait for the journal, and a room's rows live as long as the room
(docs/architecture.md, "Durable rooms"), with the real app in this process."""

from __future__ import annotations

import sqlite3
import time

from app.db.database import Database
from app.db.rooms import load_rooms
from tests.live import ClientPool, LiveServer
from tests.realtime.helpers import PanikaTable, room_of, start_panika, wait_frame


def _stored(var_dir) -> list:  # type: ignore[no-untyped-def]
    db = Database(f"sqlite:///{var_dir / 'panic-party.sqlite3'}")
    try:
        return load_rooms(db)
    finally:
        db.dispose()


def test_a_move_reaches_no_client_before_the_database_has_it(tmp_path):
    var = tmp_path / "var"
    with LiveServer(var, ping_interval_seconds=0.5, ws_messages_per_second=100_000,
                    database_timeout_seconds=0.3, journal_hold_seconds=60) as server, \
            ClientPool() as pool:
        code, clients = room_of(server, lambda c: pool(server, c), "panika", 2)
        start_panika(clients)
        table = PanikaTable(clients)
        for _ in range(3):
            assert table.step()
        version = table.version
        holder = sqlite3.connect(var / "panic-party.sqlite3", isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")  # another writer holds the file: writes wait
        seat, action = table.next_move()  # type: ignore[misc]
        table.by_seat[seat].action(action)
        for c in clients:
            wait_frame(c, lambda f: f["type"] == "saving" and f["waiting"], timeout=10)
        room = server.registry.get(code)
        assert room.match.version == version + 1  # applied in memory...
        for c in clients:  # ...but shown to no one
            assert not any(f["type"] == "state" and f["version"] > version for f in c.frames)
        holder.execute("ROLLBACK")
        holder.close()
        for c in clients:
            wait_frame(c, lambda f: f["type"] == "state" and f["version"] == version + 1,
                       timeout=10)
            wait_frame(c, lambda f: f["type"] == "saving" and not f["waiting"], timeout=10)
        (stored,) = _stored(var)
        assert stored.match is not None and len(stored.match.moves) == version + 1


def test_a_closed_room_leaves_no_rows_and_idle_rooms_are_deleted_at_start(tmp_path):
    var = tmp_path / "var"
    with LiveServer(var, ping_interval_seconds=0.2, room_idle_seconds=0.5) as server:
        code = server.create_room("panika", "Ann")["code"]
        assert [r.code for r in _stored(var)] == [code]
        deadline = time.monotonic() + 10
        while server.registry.get(code) is not None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.registry.get(code) is None
        time.sleep(0.3)
        assert _stored(var) == []
    with LiveServer(var, ping_interval_seconds=0.5) as server:
        code = server.create_room("panique", "Bob")["code"]
    assert [r.code for r in _stored(var)] == [code]  # a restart keeps the room
    time.sleep(0.6)
    with LiveServer(var, ping_interval_seconds=0.5, room_idle_seconds=0.5) as server:
        assert server.registry.get(code) is None  # idle past the limit: deleted, not restored
    assert _stored(var) == []


def test_durable_rooms_can_be_switched_off(tmp_path):
    var = tmp_path / "var"
    with LiveServer(var, durable_rooms=False) as server:
        code = server.create_room("panika", "Ann")["code"]
        assert server.registry.get(code).recorder is None
    assert _stored(var) == []
