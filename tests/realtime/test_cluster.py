"""Two server processes joined through Redis: one room directory, and players on either node
playing in the same room (the room lives on one node; the other relays its clients' frames)."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sqlite3
from collections.abc import Iterator

import httpx
import pytest
import redis
from websockets.exceptions import ConnectionClosed

from app.db.database import Database
from app.db.rooms import claim_room, load_rooms
from app.realtime.cluster.relay import Cluster
from app.realtime.room.effects import CloseRoom
from app.realtime.transport.connection import Connection
from app.realtime.cluster.lease import Entry
from tests.clock import wait_until
from tests.live import Client, ClientPool, LiveServer, run_async
from tests.realtime.helpers import PanikaTable, flood_chat, silent_socket, start_panika, wait_frame

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
REQUIRE_REDIS = os.environ.get("PANIC_PARTY_REQUIRE_REDIS") == "1"

pytestmark = pytest.mark.redis


def _redis_answers() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


@pytest.fixture(scope="module", autouse=True)
def _need_redis() -> None:
    if not _redis_answers():
        if REQUIRE_REDIS:
            pytest.fail(f"Redis is required but does not answer at {REDIS_URL}")
        pytest.skip(f"Redis does not answer at {REDIS_URL}")


@pytest.fixture
def prefix() -> Iterator[str]:
    """A key prefix of this test's own, removed afterwards."""
    name = f"pptest{secrets.token_hex(4)}"
    yield name
    r = redis.Redis.from_url(REDIS_URL)
    for key in r.scan_iter(match=f"{name}:*"):
        r.delete(key)


@pytest.fixture
def nodes(tmp_path, prefix) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two nodes sharing one database and one Redis, as two processes behind a balancer."""
    db = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    # No test here waits for a lease to run out: a long one, so that a loop starved for seconds
    # on a loaded machine (a lease renewal answered late) does not stop the room mid-test.
    common = {"redis_url": REDIS_URL, "redis_prefix": prefix, "ping_interval_seconds": 0.5,
              "ws_messages_per_second": 100_000, "lease_seconds": 60}
    with LiveServer(tmp_path / "a", database_url=db, **common) as a, \
            LiveServer(tmp_path / "b", database_url=db, **common) as b:
        yield a, b


@pytest.fixture
def connect() -> Iterator[ClientPool]:
    with ClientPool() as pool:
        yield pool


def test_a_room_made_on_one_node_is_listed_and_served_by_the_other(nodes, connect) -> None:
    a, b = nodes
    created = a.create_room("panika", "Ann", public=True)
    code = created["code"]
    with b.http() as http:
        assert http.get("/api/rooms").json() == [], "no page in it yet (docs/decisions/0044)"
        ann = connect(a, code)
        ann.join(token=created["token"])
        # Listed once a person is in it: written to the directory at once, not at the next
        # renewal (a minute's lease here renews every 20 s).
        wait_until(lambda: code in [r["code"] for r in http.get("/api/rooms").json()],
                   what="the room in the other node's lobby")
        ann.close()
        wait_until(lambda: http.get("/api/rooms").json() == [],
                   what="the room gone from the other node's lobby with its host")
        summary = http.get(f"/api/rooms/{code}").json()
        assert summary["game"] == "panika" and summary["node"] == a.registry.cluster.node
        assert http.get(f"/r/{code}").status_code == 200
        assert http.get(f"/api/rooms/{code}/qr.svg").status_code == 200
        assert http.get("/healthz").json()["redis"] is True
    assert b.registry.get(code) is None, "the room itself lives on one node only"


def _hosted_on(node: LiveServer, connect: ClientPool) -> tuple[str, Client]:
    """A Panika room made on ``node`` and its host Ann, connected there."""
    created = node.create_room("panika", "Ann")
    ann = connect(node, created["code"])
    ann.join(token=created["token"])
    return created["code"], ann


def test_players_on_two_nodes_play_a_whole_match_in_one_room(nodes, connect) -> None:
    a, b = nodes
    code, ann = _hosted_on(a, connect)
    bob = connect(b, code)
    welcome = bob.join(nickname="Bob")
    assert welcome["member"] == 2 and welcome["token"]
    carl = connect(b, code)
    carl.join(nickname="Carl")
    start_panika([ann, bob, carl])
    # Each seat sees its own hand, relayed or not.
    room = a.registry.get(code)
    for client in (ann, bob, carl):
        state = client.latest_state()
        assert state is not None
        hand = sorted(c["id"] for c in state["view"]["hand"])
        assert hand == sorted(room.state.match.state.hands[client.seat])

    bob.send({"type": "chat", "text": "hello from node B"})
    line = ann.wait_for("chat")
    assert line["nickname"] == "Bob" and line["text"] == "hello from node B"

    table = PanikaTable([ann, bob, carl])
    moves = table.play_to_end()
    assert moves > 10
    over = ann.wait_for("room", lambda f: f["status"] == "finished" and f["match_id"])
    with b.http() as http:  # the match was stored once, and either node reads it
        stored = http.get(f"/api/matches/{over['match_id']}").json()
    assert [p["nickname"] for p in stored["players"]] == ["Ann", "Bob", "Carl"]


def test_a_relayed_player_reconnects_through_the_other_node_into_the_same_seat(
    nodes, connect
) -> None:
    a, b = nodes
    code, ann = _hosted_on(a, connect)
    bob = connect(b, code)
    bob.join(nickname="Bob")
    start_panika([ann, bob])
    seat, token = bob.seat, bob.token
    hand = sorted(c["id"] for c in bob.latest_state()["view"]["hand"])
    bob.close()
    ann.wait_for("room", lambda f: any(
        m["nickname"] == "Bob" and not m["connected"] for m in f["members"]))

    again = connect(a, code)
    welcome = again.join(token=token)
    assert welcome["seat"] == seat
    state = again.wait_for("state")
    assert sorted(c["id"] for c in state["view"]["hand"]) == hand


def test_bad_frames_from_a_relayed_client_get_errors_on_its_own_node(nodes, connect) -> None:
    a, b = nodes
    created = a.create_room("panika", "Ann")
    bob = connect(b, created["code"])
    bob.send("not json")
    assert bob.wait_for("error")["code"] == "bad_json"
    bob.join(nickname="Bob")
    bob.send({"type": "start"})
    assert bob.wait_for("error")["code"] == "not_host"


def test_a_code_held_by_one_node_cannot_be_claimed_by_another(prefix) -> None:

    async def scenario() -> tuple[int, int, dict | None]:
        one, two = Cluster(REDIS_URL, prefix), Cluster(REDIS_URL, prefix)
        try:
            first = await one.leases.claim(Entry("ABCD", {"game": "panika"}, True))
            second = await two.leases.claim(Entry("ABCD", {"game": "panika"}, True))
            await one.leases.release(["ABCD"], forget=True)
            return first, second, await two.leases.summary("ABCD")
        finally:
            await one.redis.aclose()
            await two.redis.aclose()

    first, second, after = run_async(scenario())
    assert first >= 1 and second == 0 and after is None


def test_an_unknown_code_is_refused_by_every_node(nodes, connect) -> None:
    a, b = nodes
    lost = connect(b, "ZZZZ")
    assert lost.wait_for("error")["code"] == "no_such_room"
    assert httpx.get(f"{a.base_url}/r/ZZZZ").status_code == 404


def test_a_relayed_client_that_joined_outlives_the_join_deadline(tmp_path, prefix) -> None:
    # A deadline no join on a loaded machine comes near; the idle socket shows it has passed.
    common = {"redis_url": REDIS_URL, "redis_prefix": prefix, "ping_interval_seconds": 0.3,
              "join_deadline_seconds": 2.0}
    db = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    with LiveServer(tmp_path / "a", database_url=db, **common) as a, \
            LiveServer(tmp_path / "b", database_url=db, **common) as b, ClientPool() as pool:
        created = a.create_room("panika", "Ann")
        bob = pool(b, created["code"])
        idle = pool(b, created["code"])
        bob.join(nickname="Bob")
        # The idle socket, opened after Bob's, is closed at its join deadline...
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(20):
                idle.recv(timeout=5)
        assert closed.value.rcvd.code == 4002
        # ...which Bob's connection, older, has outlived: he still plays.
        mark = len(bob.frames)
        bob.send({"type": "chat", "text": "still here"})
        assert bob.wait_for("chat", lambda f: f["text"] == "still here")
        assert len(bob.frames) > mark


def test_a_broadcast_reaches_the_other_node_as_one_message(nodes, connect) -> None:
    """One hop: the owner sends the frames for all of a node's clients in one message, each
    text once with the clients it is for (docs/architecture.md, "Several processes")."""
    a, b = nodes
    code, ann = _hosted_on(a, connect)
    guests = [connect(b, code) for _ in range(3)]
    for name, guest in zip(("Bob", "Cy", "Dee"), guests, strict=True):
        guest.join(nickname=name)
    for guest in guests:
        guest.wait_for("room", lambda f: len(f["members"]) == 4)
    cluster = a.registry.cluster
    sent: list[tuple[str, dict]] = []
    publish = cluster.publish

    def spy(node: str, message: dict) -> None:
        sent.append((node, message))
        publish(node, message)

    cluster.publish = spy
    try:
        ann.send({"type": "chat", "text": "one hop"})
        for guest in guests:
            guest.wait_for("chat", lambda f: f["text"] == "one hop")
    finally:
        cluster.publish = publish
    carrying = [(node, m) for node, m in sent if "one hop" in json.dumps(m)]
    assert len(carrying) == 1, carrying
    node, message = carrying[0]
    assert node == b.registry.cluster.node and message["op"] == "out"
    (item,) = [i for i in message["items"] if "one hop" in i[1]]
    assert len(item[2]) == 3  # the text once, for the three clients on B


def test_a_relayed_client_sees_no_move_before_the_database_has_it(tmp_path, prefix) -> None:
    """Relayed frames pass the room's frame gate like local ones (durable rooms)."""
    db_file = tmp_path / "shared.sqlite3"
    common = {"redis_url": REDIS_URL, "redis_prefix": prefix, "ping_interval_seconds": 0.5,
              "ws_messages_per_second": 100_000, "database_timeout_seconds": 0.3,
              "journal_hold_seconds": 60}
    db = f"sqlite:///{db_file}"
    with LiveServer(tmp_path / "a", database_url=db, **common) as a, \
            LiveServer(tmp_path / "b", database_url=db, **common) as b, ClientPool() as pool:
        code, ann = _hosted_on(a, pool)
        bob = pool(b, code)
        bob.join(nickname="Bob")
        start_panika([ann, bob])
        table = PanikaTable([ann, bob])
        for _ in range(3):
            assert table.step()
        version = table.version
        holder = sqlite3.connect(db_file, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")  # another writer holds the file: writes wait
        seat, action = table.next_move()  # type: ignore[misc]
        table.by_seat[seat].action(action)
        bob.wait_for("saving", lambda f: f["waiting"], timeout=10)
        assert a.registry.get(code).state.match.version == version + 1  # applied on the owner...
        assert not any(f["type"] == "state" and f["version"] > version for f in bob.frames)
        holder.execute("ROLLBACK")
        holder.close()
        bob.wait_for("state", lambda f: f["version"] == version + 1, timeout=10)


def test_a_node_that_lost_a_lease_stops_the_room_and_writes_nothing_more(tmp_path, prefix):
    """Another node holds the lease now (here: written by hand): the room stops at the next
    renewal, its pages are closed with 1012, and its rows stay for the new owner. The lease is
    9 s (a renewal every 3 s): with 3 s, once in a whole run on 2 busy cores, the renewals came
    too late and the room was stopped as lost before the test took its lease away."""
    common = {"redis_url": REDIS_URL, "redis_prefix": prefix, "ping_interval_seconds": 0.5,
              "ws_messages_per_second": 100_000, "lease_seconds": 9.0}
    db = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    with LiveServer(tmp_path / "a", database_url=db, **common) as a, ClientPool() as pool:
        code, ann = _hosted_on(a, pool)
        bob = pool(a, code)
        bob.join(nickname="Bob")
        start_panika([ann, bob])
        table = PanikaTable([ann, bob])
        for _ in range(3):
            assert table.step()
        room = a.registry.get(code)
        redis.Redis.from_url(REDIS_URL).set(f"{prefix}:lease:{code}", "another-node", px=60_000)
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(50):
                ann.recv(timeout=2)
        assert closed.value.rcvd.code == 1012
        assert room.state.closed and room.recorder.gate.fenced
        assert a.registry.get(code) is None
        stored = {r.code: r for r in load_rooms(Database(db))}
        assert len(stored[code].match.moves) == table.version  # kept, not deleted
        assert redis.Redis.from_url(REDIS_URL).get(f"{prefix}:lease:{code}") == b"another-node"


def test_a_room_the_database_fenced_off_shows_no_refused_move(tmp_path, prefix):
    """Another node took the room over (it raised the room's fencing token in the database)
    before this node's lease renewal noticed: the journal's next batch is refused for that
    room, so its move is never shown, and the room stops (1012) at once."""
    db = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    common = {"redis_url": REDIS_URL, "redis_prefix": prefix, "ping_interval_seconds": 0.5,
              "ws_messages_per_second": 100_000, "lease_seconds": 60}
    with LiveServer(tmp_path / "a", database_url=db, **common) as a, ClientPool() as pool:
        code, ann = _hosted_on(a, pool)
        bob = pool(a, code)
        bob.join(nickname="Bob")
        start_panika([ann, bob])
        table = PanikaTable([ann, bob])
        for _ in range(3):
            assert table.step()
        version = table.version
        database = Database(db)
        try:
            assert claim_room(database, code, 10**6) == 10**6  # the other node's takeover
        finally:
            database.dispose()
        seat, action = table.next_move()  # type: ignore[misc]
        table.by_seat[seat].action(action)
        for c in (ann, bob):
            with pytest.raises(ConnectionClosed) as closed:
                for _ in range(50):
                    c.recv(timeout=2)
            assert closed.value.rcvd.code == 1012
            assert not any(f["type"] == "state" and f["version"] > version for f in c.frames)
        stored = {r.code: r for r in load_rooms(Database(db))}
        assert len(stored[code].match.moves) == version


def test_the_relay_check_closes_relays_whose_room_moved_and_no_others(prefix) -> None:
    """A relay to a room whose lease moved is closed; one opened while the check looked the
    owners up (it is not in the look-up) is left alone."""

    async def scenario() -> tuple[bool, bool, bool]:
        cluster = Cluster(REDIS_URL, prefix)
        steady, moved, late = Connection(), Connection(), Connection()
        cluster.open_remote("node-a", "AAAA", steady)
        cluster.open_remote("node-a", "BBBB", moved)

        async def owners(codes: list[str]) -> dict[str, str | None]:
            cluster.open_remote("node-a", "CCCC", late)  # a page connecting meanwhile
            return {"AAAA": "node-a", "BBBB": "node-b"}

        cluster.leases.owners = owners  # type: ignore[method-assign]
        try:
            await cluster._check_remote()
        finally:
            await cluster.redis.aclose()
        return steady.closed, moved.closed, late.closed

    assert run_async(scenario()) == (False, True, False)


def test_a_redis_outage_is_one_warning_and_pages_are_told_to_come_back(tmp_path, prefix,
                                                                        caplog) -> None:
    """Issue 25, item 6: while Redis does not answer, a WebSocket for a room this node does not
    hold gets ``error`` ``unavailable`` and the close 1013 (try again later), the room's HTTP
    summary answers 503, and the log says so once: one warning when the outage begins and one
    when Redis answers again, no traceback (there was one per page and per failed publish)."""
    import logging

    from websockets.sync.client import connect as ws_connect

    from tests.db.proxy import DatabaseProxy

    caplog.set_level(logging.WARNING)
    caplog.set_level(logging.DEBUG, logger="app.realtime.cluster.relay")  # the failures in between
    with DatabaseProxy(REDIS_URL) as proxy, LiveServer(
            tmp_path / "a", redis_url=proxy.url, redis_prefix=prefix,
            ping_interval_seconds=0.5) as node:
        code = node.create_room("panika", "Ann")["code"]
        caplog.clear()
        proxy.set_mode("refuse")
        for _ in range(3):
            with ws_connect(node.ws_url("ZZZZ"), open_timeout=10) as ws:
                error = json.loads(ws.recv(timeout=10))  # told before any join
                with pytest.raises(ConnectionClosed) as closed:
                    ws.recv(timeout=10)
            assert error["type"] == "error" and error["code"] == "unavailable"
            assert closed.value.rcvd.code == 1013
        with node.http() as http:
            answer = http.get("/api/rooms/ZZZZ")
            assert answer.status_code == 503 and answer.headers["retry-after"] == "5"
        # Messages to other nodes meanwhile are lost without a traceback each.
        cluster = node.registry.cluster
        loop = node.registry.get(code).task.get_loop()
        for n in range(3):
            loop.call_soon_threadsafe(cluster.publish, "elsewhere", {"op": "out", "items": [n]})
        wait_until(lambda: any("publishing" in r.getMessage() for r in caplog.records),
                   what="the publish failing")
        proxy.set_mode("forward")
        wait_until(lambda: any("answers again" in r.getMessage() for r in caplog.records), 15,
                   "Redis's return noticed")
        with node.http() as http:
            assert http.get(f"/api/rooms/{code}").status_code == 200
    # The outage is one warning, up to the one that says Redis answers again (a call that began
    # during the outage and failed late, on a loaded machine, may open a new one after it).
    back = next(i for i, r in enumerate(caplog.records) if "answers again" in r.getMessage())
    began = [r for r in caplog.records[:back] if "Redis does not answer" in r.getMessage()]
    assert len(began) == 1 and began[0].levelno == logging.WARNING
    assert [r for r in caplog.records if r.exc_info] == []
    assert not any("Exception in ASGI application" in r.getMessage() for r in caplog.records)


def test_a_relayed_member_who_stops_reading_is_shown_disconnected_at_once(
        tmp_path, prefix, monkeypatch) -> None:
    """A member relayed through node B that stops reading falls behind on B (its socket is
    there); B tells the room's node at once, so the others see it disconnected then, not once
    B drops its socket after the grace (an hour here, so that only the telling can show it)."""
    import app.realtime.transport.connection as connection

    monkeypatch.setattr(connection, "CLOSE_GRACE_SECONDS", 3600.0)
    common = {"redis_url": REDIS_URL, "redis_prefix": prefix, "lease_seconds": 60,
              "ws_messages_per_second": 100_000, "room_frames_per_second": 100_000}
    db = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    with LiveServer(tmp_path / "a", database_url=db, **common) as a, \
            LiveServer(tmp_path / "b", database_url=db, **common) as b, ClientPool() as pool:
        code, ann = _hosted_on(a, pool)
        slow = silent_socket(b, code)
        with slow:
            joined = wait_frame(ann, lambda f: f["type"] == "room" and len(f["members"]) == 2)
            slow_id = next(m["id"] for m in joined["members"] if m["nickname"] == "Slow")
            member = a.registry.get(code).state.members[slow_id]
            flood_chat(ann, lambda: not member.connected)
            wait_until(lambda: not member.connected, 10, "the owner told that it is gone")
            wait_frame(ann, lambda f: f["type"] == "room" and any(
                m["id"] == slow_id and m["connected"] is False for m in f["members"]))


def test_the_room_creation_limit_is_one_count_for_every_node(nodes, prefix) -> None:
    """30 rooms a minute per address for the whole site, however many processes serve it: the
    count lives in Redis under the site's prefix (docs/decisions/0044), not in each process."""
    a, b = nodes
    body = {"game": "panika", "nickname": "Ann"}
    with a.http() as on_a, b.http() as on_b:
        made = [on_a.post("/api/rooms", json=body).status_code for _ in range(20)]
        made += [on_b.post("/api/rooms", json=body).status_code for _ in range(10)]
        assert made == [201] * 30
        assert on_b.post("/api/rooms", json=body).status_code == 429
        assert on_a.post("/api/rooms", json=body).status_code == 429
    assert redis.Redis.from_url(REDIS_URL).keys(f"{prefix}:limits:*"), "under REDIS_PREFIX"


def test_one_idempotency_key_makes_one_room_on_every_node(nodes, prefix) -> None:
    """The same create sent to two processes at once (a double click behind a balancer) makes
    one room: the key's answer is kept in Redis under the site's prefix (docs/decisions/0057)."""
    a, b = nodes
    body = {"game": "panika", "nickname": "Ann"}
    key = {"Idempotency-Key": secrets.token_urlsafe(16)}

    async def both() -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=10) as client:
            return await asyncio.gather(*(
                client.post(f"{node.base_url}/api/rooms", json=body, headers=key)
                for node in (a, b)))

    answers = run_async(both())
    assert [r.status_code for r in answers] == [201, 201]
    assert answers[0].json() == answers[1].json()
    assert len(a.registry.rooms) + len(b.registry.rooms) == 1
    with b.http() as on_b:
        assert on_b.post("/api/rooms", json=body, headers=key).json() == answers[0].json()
    assert redis.Redis.from_url(REDIS_URL).keys(f"{prefix}:create:*"), "under REDIS_PREFIX"


def test_redis_away_as_rooms_close_and_the_node_stops_is_logged_in_lines_not_tracebacks(
        tmp_path, prefix, caplog) -> None:
    """While Redis does not answer, a room made is refused with 503 (its creation count cannot
    be kept), a room that closes cannot let go of its lease and a stopping node cannot hand its
    rooms over: each an expected outage, logged as one line with its cause and no traceback
    (docs/decisions/0045): the outage's one warning, and the handover's own."""
    import logging

    from tests.db.proxy import DatabaseProxy

    caplog.set_level(logging.WARNING)
    caplog.set_level(logging.DEBUG, logger="app.realtime.cluster.relay")  # the failures in between
    with DatabaseProxy(REDIS_URL) as proxy:
        # A long lease: the rooms stay until the test closes them (none stops for want of it).
        with LiveServer(tmp_path / "a", redis_url=proxy.url, redis_prefix=prefix,
                        ping_interval_seconds=0.5, lease_seconds=60) as node:
            closing = node.create_room("panika", "Ann")["code"]
            node.create_room("panika", "Bob")
            caplog.clear()
            proxy.set_mode("refuse")
            with node.http() as http:
                made = http.post("/api/rooms", json={"game": "panika", "nickname": "Cem"})
                assert made.status_code == 503 and made.headers["retry-after"] == "5"
            room = node.registry.get(closing)
            room.task.get_loop().call_soon_threadsafe(room.post, CloseRoom())
            wait_until(lambda: any(f"go of room {closing}" in r.getMessage()
                                   for r in caplog.records), what="the lease's release failing")
        # Leaving the block stopped the node: it could not hand its other room over.
    began = [r for r in caplog.records if "Redis does not answer" in r.getMessage()]
    assert len(began) == 1 and began[0].levelno == logging.WARNING
    (handover,) = [r for r in caplog.records if "could not hand the rooms over" in r.getMessage()]
    assert handover.levelno == logging.WARNING and "ConnectionError: " in handover.getMessage()
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []
    assert all("\n" not in r.getMessage() for r in caplog.records)
