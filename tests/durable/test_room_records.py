"""A room's frames wait for the journal, and a room's rows live as long as the room
(docs/architecture.md, "Durable rooms"), with the real app in this process."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

from app.db.database import Database
from app.db.rooms import load_rooms
from app.realtime.room.effects import CloseRoom
from tests.clock import wait_until
from tests.live import ClientPool, LiveServer
from tests.realtime.helpers import PanikaTable, room_of, start_panika, wait_frame


def _stored(var_dir) -> list:  # type: ignore[no-untyped-def]
    db = Database(f"sqlite:///{var_dir / 'panic-party.sqlite3'}")
    try:
        return load_rooms(db)
    finally:
        db.dispose()


def _age(var_dir, code: str, seconds: float) -> None:  # type: ignore[no-untyped-def]
    """The stored room was last active ``seconds`` earlier than recorded (time passed by
    hand, for the idle rule at start)."""
    from sqlalchemy import update

    from app.db.models import RoomRow

    db = Database(f"sqlite:///{var_dir / 'panic-party.sqlite3'}")
    try:
        with db.engine.begin() as connection:
            (updated,) = connection.execute(
                RoomRow.__table__.select().with_only_columns(RoomRow.updated_at)
                .where(RoomRow.code == code)).one()
            connection.execute(update(RoomRow).where(RoomRow.code == code).values(
                updated_at=updated - timedelta(seconds=seconds),
                created_at=updated - timedelta(seconds=seconds)))
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
        assert room.state.match.version == version + 1  # applied in memory...
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
    with LiveServer(var, ping_interval_seconds=0.2) as server:
        code = server.create_room("panika", "Ann")["code"]
        assert [r.code for r in _stored(var)] == [code]
        room = server.registry.get(code)
        room.task.get_loop().call_soon_threadsafe(room.post, CloseRoom())
        wait_until(lambda: server.registry.get(code) is None, what="the room's close")
        # The journal writes the deletion a moment later.
        wait_until(lambda: _stored(var) == [], what="the room's rows gone")
    with LiveServer(var, ping_interval_seconds=0.5) as server:
        code = server.create_room("panique", "Bob")["code"]
    assert [r.code for r in _stored(var)] == [code]  # a restart keeps the room
    _age(var, code, seconds=3600)  # its last activity an hour ago, with no waiting
    with LiveServer(var, ping_interval_seconds=0.5, room_idle_seconds=600) as server:
        assert server.registry.get(code) is None  # idle past the limit: deleted, not restored
    assert _stored(var) == []


def test_durable_rooms_can_be_switched_off(tmp_path):
    var = tmp_path / "var"
    with LiveServer(var, durable_rooms=False) as server:
        code = server.create_room("panika", "Ann")["code"]
        assert server.registry.get(code).recorder is None
    assert _stored(var) == []


def test_the_counter_carries_on_across_a_graceful_restart(tmp_path):
    """An open table is not ended by a restart (its match would otherwise be closed and
    recorded): it comes back with the same match, version and seats."""
    var = tmp_path / "var"
    with LiveServer(var, ping_interval_seconds=0.5, ws_messages_per_second=100_000) as server, \
            ClientPool() as pool:
        created = server.create_room("panika_counter", "Ann")
        code = created["code"]
        ann = pool(server, code)
        ann.join(token=created["token"])
        ann.wait_for("state")
        for n in range(1, 4):
            ann.action({"type": "tap"})
            wait_frame(ann, lambda f, n=n: f["type"] == "state" and f["version"] == n)
        seed_hash = server.registry.get(code).state.match.seed_hash
    with LiveServer(var, ping_interval_seconds=0.5) as server, ClientPool() as pool:
        room = server.registry.get(code)
        assert room is not None and room.state.status == "playing"
        assert room.state.match.version == 3 and room.state.match.seed_hash == seed_hash
        ann = pool(server, code)
        welcome = ann.join(token=created["token"])
        assert welcome["seat"] == 0
        assert ann.wait_for("state")["version"] == 3
        with server.http() as http:
            assert http.get("/api/matches").json() == []  # nothing was ended and recorded


def test_a_finished_room_comes_back_finished_and_its_match_is_stored_once(tmp_path):
    var = tmp_path / "var"
    with LiveServer(var, ping_interval_seconds=0.5, ws_messages_per_second=100_000) as server, \
            ClientPool() as pool:
        code, clients = room_of(server, lambda c: pool(server, c), "panika", 2)
        start_panika(clients)
        PanikaTable(clients).play_to_end()
        saved = wait_frame(clients[0], lambda f: f["type"] == "room" and f["match_id"],
                           timeout=10)
    with LiveServer(var, ping_interval_seconds=0.5) as server:
        room = server.registry.get(code)
        assert room is not None and room.state.status == "finished"
        wait_until(lambda: room.state.match_id is not None, what="the stored match's id")
        assert room.state.match_id == saved["match_id"]
        assert room.state.result["seed_hash"] == saved["result"]["seed_hash"]
        with server.http() as http:
            assert [m["id"] for m in http.get("/api/matches").json()] == [saved["match_id"]]


def test_bots_and_room_options_come_back_after_a_restart(tmp_path):
    """A restored room keeps its computer players (still bots, never "left") and its own
    options, and its bots take their seats again at once (migration 0005); they decide once a
    person's page is back (the restored match waits paused till then: issue 25, item 4)."""
    var = tmp_path / "var"
    with LiveServer(var, ping_interval_seconds=0.5, ws_messages_per_second=100_000,
                    bot_think_scale=50.0) as server, ClientPool() as pool:
        created = server.create_room("panika", "Ann")
        code = created["code"]
        ann = pool(server, code)
        ann.join(token=created["token"])
        ann.send({"type": "add_bot", "difficulty": "hard"})
        ann.send({"type": "set_options", "room": {"bot_takeover_seconds": 45}})
        wait_frame(ann, lambda f: f["type"] == "room"
                   and f["room_options"]["bot_takeover_seconds"] == 45
                   and any(m.get("bot") == "hard" for m in f["members"]))
        ann.send({"type": "start"})
        ann.wait_for("state")
    with LiveServer(var, ping_interval_seconds=0.5) as server:
        room = server.registry.get(code)
        assert room is not None and room.state.status == "playing"
        bots = [m for m in room.state.members.values() if m.bot is not None]
        assert [(m.bot, m.left) for m in bots] == [("hard", False)]
        assert room.state.room_options["bot_takeover_seconds"] == 45
        wait_until(lambda: bots[0].seat in room.state.bots.seats, what="the bot playing on")


def test_a_match_the_new_rules_refuse_goes_on_from_its_last_accepted_move(tmp_path):
    """Issue 25, item 11: a release whose rules refuse a recorded move (here the second move's
    action, changed in the database as an older rule would have let it be) no longer deletes
    the room: the match replays to its last accepted move, the refused move and every move after
    it leave the database, the pages are told (a ``rules_changed`` event in the history), and
    the match goes on from there."""
    import json

    var = tmp_path / "var"
    with LiveServer(var, ping_interval_seconds=0.5, ws_messages_per_second=100_000) as server, \
            ClientPool() as pool:
        code, clients = room_of(server, lambda c: pool(server, c), "panika", 2)
        tokens = [c.token for c in clients]
        start_panika(clients)
        table = PanikaTable(clients)
        for _ in range(3):
            assert table.step()
    with sqlite3.connect(var / "panic-party.sqlite3") as db:
        db.execute("UPDATE room_moves SET action = ? WHERE room_code = ? AND seq = 2",
                   (json.dumps({"type": "play", "cards": [999]}), code))
    with LiveServer(var, ping_interval_seconds=0.5, ws_messages_per_second=100_000) as server, \
            ClientPool() as pool:
        room = server.registry.get(code)
        assert room is not None and room.state.status == "playing" and room.state.match.version == 1
        wait_until(lambda: len(_stored(var)[0].match.moves) == 1,
                   what="the dropped moves gone from the database")
        again = [pool(server, code) for _ in tokens]
        for client, token in zip(again, tokens, strict=True):
            client.join(token=token)
            wait_frame(client, lambda f: f["type"] == "state")
        history = wait_frame(again[0], lambda f: f["type"] == "history")
        (told,) = [e for e in history["events"] if e["kind"] == "rules_changed"]
        assert told["data"] == {"n": 2, "kept": 1} and told["seat"] is None
        state = again[0].latest_state()
        assert state is not None and state["version"] == 1
        table = PanikaTable(sorted(again, key=lambda c: c.seat))
        assert table.step()
        wait_until(lambda: len(_stored(var)[0].match.moves) == 2, what="the next move stored")
