"""Two real server processes sharing Redis and PostgreSQL (issue 12, "What it must show"):
players of one room on both processes play a full Panika match; the owning process is killed
with SIGKILL mid-match and the match finishes on the other one with the same seats and nothing
a client was told lost; a SIGTERM hands the room over at once, not only once its lease expires.

The room lives on the node that holds its lease; the clients on the other node are relayed. The
moves the clients were told of are the ``move`` of every state frame they received
(docs/protocol.md, "state"), compared with the stored action log as tests/durable does.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
import redis
from websockets.exceptions import ConnectionClosed

from tests.clock import wait_until
from tests.cluster.conftest import CRASH_LEASE_SECONDS
from tests.durable.process import ServerProcess
from tests.durable.test_restart import RecordingTable, _check_log, _stored_match, _told
from tests.live import Client
from tests.realtime.helpers import start_panika, wait_frame

Frame = dict[str, Any]

pytestmark = [pytest.mark.redis, pytest.mark.postgres]



def _node_id(server: ServerProcess) -> str:
    with server.http() as http:
        return http.get("/healthz").json()["node"]


def _owner(redis_url: str, prefix: str, code: str) -> str | None:
    value = redis.Redis.from_url(redis_url).get(f"{prefix}:lease:{code}")
    return value.decode() if value else None


def _table(a: ServerProcess, b: ServerProcess, opened: list[Client]) -> tuple[str, list[Client]]:
    """A Panika room made on ``a``: Ann there, Bob and Cy on ``b`` (relayed)."""
    created = a.create_room("panika", "Ann")
    code = created["code"]
    ann = Client(a, code)
    opened.append(ann)
    ann.join(token=created["token"])
    clients = [ann]
    for name in ("Bob", "Cy"):
        c = Client(b, code)
        opened.append(c)
        c.join(nickname=name)
        clients.append(c)
    for c in clients:
        wait_frame(c, lambda f: f["type"] == "room" and len(f["members"]) == 3)
    return code, clients


def _rejoin(server: ServerProcess, code: str, old: Client, opened: list[Client],
            timeout: float = 15.0) -> Client:
    """The page of ``old`` back on ``server`` with its token, retrying as the page does while
    the room moves (a relay to the dead owner closed with 1012, a join unanswered)."""
    deadline = time.monotonic() + timeout
    while True:
        c = None
        try:
            c = Client(server, code)
            opened.append(c)
            c.send({"type": "join", "token": old.token})
            welcome = c.wait_for("welcome", timeout=2.0)
            assert (welcome["member"], welcome["seat"]) == (old.member, old.seat)
            c.wait_for("state", timeout=5.0)
            return c
        except (ConnectionClosed, TimeoutError, OSError):
            if c is not None:
                try:
                    c.close()
                except Exception:  # noqa: BLE001, S110 - closed already
                    pass
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _wait_closed(client: Client, timeout: float = 30.0) -> int | None:
    """Read until the server closes ``client``; the close code."""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            client.recv(timeout=max(0.05, deadline - time.monotonic()))
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else None
    raise AssertionError("the connection was not closed")


def test_players_on_two_processes_play_a_whole_match(start_node, opened):
    a = start_node("a")
    b = start_node("b")
    code, clients = _table(a, b, opened)
    start_panika(clients)
    table = RecordingTable(clients, {})
    table.play_to_end()
    assert table.moves > 10
    stored = _stored_match(b, clients[2])  # read through the other process
    assert [p["nickname"] for p in stored["players"]] == ["Ann", "Bob", "Cy"]
    told = _told(clients, 1)
    assert len(told) == len(stored["actions"]) == max(told)
    _check_log(stored, told, max(told), max(told))


def test_owner_killed_mid_match_finishes_on_the_other_process(start_node, opened, prefix,
                                                              redis_url):
    a = start_node("a", lease_seconds=CRASH_LEASE_SECONDS)  # its crash noticed in seconds
    # B at the production lease: it looks at its relays every third of it (2 s), so it sees A's
    # lease gone in time, and stops its own rooms only after 4 s without a renewal.
    b = start_node("b", lease_seconds=6.0)
    code, clients = _table(a, b, opened)
    assert _owner(redis_url, prefix, code) == _node_id(a)
    start_panika(clients)
    sent: dict[int, tuple[int, Frame]] = {}
    table = RecordingTable(clients, sent)
    for _ in range(20):
        assert table.step()
    seat, action = table.next_move()  # type: ignore[misc]
    table.by_seat[seat].action(action)  # in flight when the owner dies
    a.kill()
    # The relayed clients on B are closed with 1012 once A's lease is gone, not left hanging
    # (the waits bound a broken run only: how soon depends on the lease, as it should).
    for c in clients[1:]:
        assert _wait_closed(c, timeout=30) == 1012
    told_before = max(_told(clients, 1))

    again = [_rejoin(b, code, c, opened, timeout=30) for c in clients]
    assert _owner(redis_url, prefix, code) == _node_id(b)
    state = again[0].latest_state()
    assert state is not None and state["match"] == 1 and state["version"] >= told_before
    restored = state["version"]
    RecordingTable(again, sent).play_to_end()
    stored = _stored_match(b, again[0])
    _check_log(stored, _told(clients + again, 1), told_before, restored)
    if restored > told_before and stored["actions"][told_before]["seat"] == seat:
        sent[told_before + 1] = (seat, action)  # the move in flight was durable: it counts
    for seq, (who, what) in sent.items():
        entry = stored["actions"][seq - 1]
        assert entry["seat"] == who
        assert {k: entry["action"].get(k) for k in what} == what
    assert {p["seat"]: p["nickname"] for p in stored["players"]} == {0: "Ann", 1: "Bob", 2: "Cy"}
    b.stop()


def test_sigterm_of_the_owner_hands_the_room_over_at_once(start_node, opened, prefix, redis_url):
    # Long leases (renewed every 20 s): A's lease cannot run out for 40 s after the stop
    # begins, longer than a stop may take (ServerProcess.stop), so a room without A's lease
    # right after the stop was let go by A, whatever the machine's speed.
    a = start_node("a", lease_seconds=60)
    b = start_node("b", lease_seconds=60)
    code, clients = _table(a, b, opened)
    start_panika(clients)
    sent: dict[int, tuple[int, Frame]] = {}
    table = RecordingTable(clients, sent)
    for _ in range(15):
        assert table.step()
    a_node = _node_id(a)
    a.stop()
    assert _owner(redis_url, prefix, code) != a_node  # handed over, not left to run out
    for c in clients:  # every page, local or relayed, is told to come back in a moment
        assert _wait_closed(c) == 1012
    # B's sweeper takes the room over before any page comes back (its timers run on there).
    wait_until(lambda: _owner(redis_url, prefix, code) == _node_id(b), 30, "B's takeover")
    told_before = max(_told(clients, 1))
    again = [_rejoin(b, code, c, opened, timeout=30) for c in clients]
    assert _owner(redis_url, prefix, code) == _node_id(b)
    restored = again[0].latest_state()["version"]  # type: ignore[index]
    assert restored >= told_before  # more only by timers that ran out on B before the pages
    RecordingTable(again, sent).play_to_end()
    stored = _stored_match(b, again[0])
    told = _told(clients + again, 1)
    _check_log(stored, told, told_before, restored)  # a graceful stop loses nothing told
    assert all(stored["actions"][seq - 1]["seat"] is None
               for seq in range(told_before + 1, restored + 1))
    b.stop()
