"""The stand-alone counter reveals its seed when its room closes or on a "new counter", so its
burst numbers can be audited (issue 7, item 16; docs/games/panika-counter.md, "Seed reveal")."""

from __future__ import annotations

import hashlib
import re
import time

import pytest
from websockets.exceptions import ConnectionClosed

from app.engine import IllegalAction, Move, SeededRng
from app.engine.replay import replay
from app.games.panika_counter import GAME
from app.realtime.room.effects import CloseRoom
from tests.clock import wait_until
from tests.endings import said
from tests.realtime.helpers import wait_frame, wait_type


def _step(state, seat, action, rng):
    return GAME.step(state, Move(seat, GAME.parse_action(action)), rng)


def test_new_counter_ends_the_match_and_the_seed_rederives_every_burst():
    seed = b"counter seed"
    rng = SeededRng(seed)
    state = GAME.setup(3, GAME.parse_options({}), rng)
    for _ in range(3):
        while state.phase == "counting":
            _step(state, 0, {"type": "tap"}, rng)
        _step(state, None, {"type": "new_round"}, rng)
    assert GAME.outcome(state) is None
    events = _step(state, 1, {"type": "new_counter"}, rng)
    assert [e.kind for e in events] == ["new_counter"]
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == []
    assert outcome.scores == [sum(state.bursts), 0, 0]
    listed = [int(n) for n in re.findall(r"\d+", outcome.details["bursts"])]
    assert listed == state.bursts and len(listed) == 3
    # An auditor draws the same numbers from the seed: one draw from 21..30 per round.
    audit = SeededRng(seed)
    assert [audit.randint(21, 30) for _ in range(3)] == state.bursts
    assert GAME.timers(state) == [] and GAME.active_seats(state) == []
    with pytest.raises(IllegalAction):
        _step(state, 0, {"type": "tap"}, rng)


def _counter(server, open_client, phones=2):
    created = server.create_room("panika_counter", "Ann")
    code = created["code"]
    clients = [open_client(code)]
    clients[0].join(token=created["token"])
    for i in range(1, phones):
        clients.append(open_client(code))
        clients[-1].join(nickname=f"Phone{i}")
    return code, clients


def _saved_matches(server, game="panika_counter", count=1, timeout=10.0):
    deadline = time.monotonic() + timeout
    with server.http() as http:
        while True:
            listed = http.get("/api/matches", params={"game": game}).json()
            if len(listed) >= count or time.monotonic() > deadline:
                return [http.get(f"/api/matches/{m['id']}").json() for m in listed]
            time.sleep(0.1)


def test_a_new_counter_reveals_the_seed_and_starts_a_fresh_counter(server, open_client):
    code, (ann, bob) = _counter(server, open_client)
    first = wait_type(ann, "room")
    assert first["status"] == "playing" and first["match_number"] == 1
    seed_hash = first["seed_hash"]
    for _ in range(5):
        bob.action({"type": "tap"})
    wait_frame(ann, lambda f: f["type"] == "state" and f["view"]["counter"] == 5)
    mark = len(ann.frames)
    bob.action({"type": "new_counter"})
    done = wait_frame(ann, lambda f: f["type"] == "room" and f["status"] == "finished", mark)
    seed = done["result"]["seed"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == seed_hash
    fresh = wait_frame(ann, lambda f: f["type"] == "room" and f["status"] == "playing", mark)
    assert fresh["match_number"] == 2 and fresh["seed_hash"] != seed_hash
    state = wait_frame(ann, lambda f: f["type"] == "state" and f["match"] == 2, mark)
    assert state["version"] == 0 and state["view"]["counter"] == 0
    # The next counter works, and the ended one is stored with its seed and replays.
    bob.action({"type": "tap"})
    wait_frame(ann, lambda f: f["type"] == "state" and f["match"] == 2 and f["version"] == 1)
    (stored,) = _saved_matches(server)
    assert stored["seed"] == seed and stored["seed_hash"] == seed_hash
    log = [Move(a["seat"], a["action"], a["at_ms"], a.get("rtt_ms", 0))
           for a in stored["actions"]]
    replayed = replay(GAME, GAME.max_players, {}, bytes.fromhex(seed), log).state
    assert replayed.ended and replayed.taps_total[1] == 5


def test_closing_the_room_reveals_the_seed_of_a_used_counter(server, open_client):
    code, (ann,) = _counter(server, open_client, phones=1)
    seed_hash = wait_type(ann, "room")["seed_hash"]
    ann.action({"type": "tap"})
    wait_frame(ann, lambda f: f["type"] == "state" and f["view"]["counter"] == 1)
    room = server.registry.get(code)
    mark = len(ann.frames)
    room.task.get_loop().call_soon_threadsafe(room.post, CloseRoom())
    done = wait_frame(ann, lambda f: f["type"] == "room" and f["status"] == "finished", mark)
    assert hashlib.sha256(bytes.fromhex(done["result"]["seed"])).hexdigest() == seed_hash
    with pytest.raises(ConnectionClosed) as closed:
        for _ in range(20):
            ann.recv(timeout=5)
    assert closed.value.rcvd.code == 4003
    (stored,) = _saved_matches(server)
    assert stored["seed"] == done["result"]["seed"]
    assert stored["actions"][-1]["seat"] is None
    assert stored["actions"][-1]["action"] == {"type": "new_counter"}


def test_an_unused_counter_closes_without_a_record(server, open_client):
    code, (ann,) = _counter(server, open_client, phones=1)
    room = server.registry.get(code)
    room.task.get_loop().call_soon_threadsafe(room.post, CloseRoom())
    with pytest.raises(ConnectionClosed):
        for _ in range(20):
            ann.recv(timeout=5)
    # The room is gone and no save of it runs: a record would be in the database by now.
    wait_until(lambda: room.task.done() and not room._saving, what="the room's end")
    assert _saved_matches(server, timeout=0) == []


def test_a_stored_counter_lists_only_the_seats_someone_sat_in_and_still_replays(server,
                                                                               open_client):
    """Issue 25 (the counter's record): the room sets a counter up for 10 seats, but its stored
    match lists only the seats that had a member while it ran (here Ann's, Phone1's, and Cleo's,
    who joined mid-counter), no "Seat 5" ... "Seat 10"; the record still replays (the replay sets
    it up for 10 seats, docs/games/panika-counter.md) and every draw checks."""
    code, (ann, bob) = _counter(server, open_client)
    for _ in range(3):
        bob.action({"type": "tap"})
    cleo = open_client(code)
    cleo.join(nickname="Cleo")
    cleo.action({"type": "tap"})
    wait_frame(ann, lambda f: f["type"] == "state" and f["view"]["counter"] == 4)
    mark = len(ann.frames)
    ann.action({"type": "new_counter"})
    done = wait_frame(ann, lambda f: f["type"] == "room" and f["status"] == "finished", mark)
    shown = [(p["seat"], p["nickname"], p["score"]) for p in done["result"]["players"]]
    assert shown == [(0, "Ann", 0), (1, "Phone1", 3), (2, "Cleo", 1)]
    (stored,) = _saved_matches(server)
    assert [(p["seat"], p["nickname"], p["score"]) for p in stored["players"]] == shown
    assert stored["draws"] is not None and stored["draws"][0]["op"] == "randint"


# --- the limit: a counter ends by itself (docs/games/panika-counter.md, "The limit") -----------

def test_taps_taken_back_end_the_counter_with_its_limit_th_move():
    """Tap, then back, for ever: the counter never bursts, and nothing but the limit ends it.
    The 10,000th move ends it with an event that says so; its seed then audits it as any other
    counter's, and it takes no move more."""
    from app.games.panika_counter.game import MAX_MOVES

    assert GAME.max_moves == MAX_MOVES == 10_000
    rng = SeededRng(b"endless")
    state = GAME.setup(10, GAME.parse_options({}), rng)
    log = []
    events = []
    for n in range(1, MAX_MOVES + 1):
        assert GAME.outcome(state) is None, n
        move = Move(n % 3, GAME.parse_action({"type": "tap" if n % 2 else "back"}), n * 200)
        events = GAME.step(state, move, rng)
        log.append(move)
    assert [(e.kind, e.seat, e.data) for e in events] == [("limit", None, {"n": 10_000})]
    assert events[0].text == ("This counter has reached its limit of 10000 moves: its seed is "
                              "revealed and a new counter starts")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == []
    assert outcome.ending == "move_limit"
    assert outcome.details == {"n": 1, "bursts": "–", "limit": 10_000}
    assert said("panika_counter", outcome) == (
        "Counter of 1 round; bursts at: –; ended at its limit of 10000 moves")
    assert state.ended_by == "limit" and GAME.timers(state) == []
    assert GAME.legal_actions(state, 0) == [] and GAME.active_seats(state) == []
    with pytest.raises(IllegalAction):
        _step(state, 0, {"type": "new_counter"}, rng)
    replayed = replay(GAME, GAME.max_players, {}, b"endless", log).state
    assert replayed.ended_by == "limit" and replayed.moves == MAX_MOVES


def test_the_limit_and_a_burst_on_the_same_tap_are_both_told(monkeypatch):
    from app.games.panika_counter import game as counter

    monkeypatch.setattr(counter, "MAX_MOVES", 5)
    rng = SeededRng(b"x")
    state = GAME.setup(2, GAME.parse_options({}), rng)
    state.burst_at = 21
    state.counter = 16
    for _ in range(4):
        _step(state, 0, {"type": "tap"}, rng)
    events = _step(state, 1, {"type": "tap"}, rng)
    assert [e.kind for e in events] == ["burst", "limit"]
    assert state.bursts == [21] and said("panika_counter", GAME.outcome(state)).endswith(
        "bursts at: 21; ended at its limit of 5 moves")


def test_the_limits_event_speaks_every_language():
    from app.i18n.events import event_text

    data = {"n": 10_000}
    assert event_text("de", "panika_counter", "limit", None, data, "") == (
        "Dieser Zähler hat sein Limit von 10000 Zügen erreicht: sein Seed wird aufgedeckt und "
        "ein neuer Zähler beginnt")
    assert event_text("en", "panika_counter", "limit", None, data, "").startswith(
        "This counter has reached its limit of 10000 moves")


def test_at_its_limit_the_room_saves_the_counter_and_starts_a_new_one(server, open_client,
                                                                      monkeypatch):
    """Over real sockets, with the limit at 12 moves: the twelfth move (a back) ends the counter
    with the limit's event; the room reveals the seed, saves the match and starts a new counter,
    exactly as after a player's "new counter"; the stored match replays to that end."""
    from app.games.panika_counter import game as counter

    monkeypatch.setattr(counter, "MAX_MOVES", 12)
    monkeypatch.setattr(counter.PanikaCounterGame, "max_moves", 12)
    code, (ann, bob) = _counter(server, open_client)
    seed_hash = wait_type(ann, "room")["seed_hash"]
    mark = len(ann.frames)
    for n in range(12):  # each move awaited: two sockets' frames may arrive in either order
        (ann if n % 2 else bob).action({"type": "back" if n % 2 else "tap"})
        last = wait_frame(ann, lambda f, v=n + 1: f["type"] == "state" and f["version"] == v, mark)
    assert [e["kind"] for e in last["events"]] == ["limit"]
    done = wait_frame(ann, lambda f: f["type"] == "room" and f["status"] == "finished", mark)
    seed = done["result"]["seed"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == seed_hash
    assert done["result"]["ending"] == "move_limit"
    assert done["result"]["details"] == {"n": 1, "bursts": "–", "limit": 12}
    fresh = wait_frame(ann, lambda f: f["type"] == "room" and f["match_number"] == 2, mark)
    assert fresh["status"] == "playing" and fresh["seed_hash"] != seed_hash
    bob.action({"type": "tap"})
    wait_frame(ann, lambda f: f["type"] == "state" and f["match"] == 2 and f["version"] == 1)
    (stored,) = _saved_matches(server)
    assert stored["seed"] == seed and len(stored["actions"]) == 12
    assert stored["actions"][-1]["action"] == {"type": "back"}
    log = [Move(a["seat"], a["action"], a["at_ms"], a.get("rtt_ms", 0))
           for a in stored["actions"]]
    assert replay(GAME, GAME.max_players, {}, bytes.fromhex(seed), log).state.ended_by == "limit"
