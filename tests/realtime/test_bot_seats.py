"""Computer players in rooms over real WebSockets (issue 13; docs/bots.md, "In a room"): the
host adds and removes bots, bots play only legal actions through the room's queue, a bot sees
only its seat's frame, a disconnected player's seat is played by a bot after the grace and
taken back at once, and matches of every game and player count with humans and bots end."""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Iterator

import pytest

import app.realtime.room.bots as seat_bots
from app.bots import bot_games
from app.engine import Move, get_game
from app.engine.replay import replay
from app.games import load_all
from tests.live import Client, ClientPool, LiveServer
from tests.realtime.helpers import marks, room_of, shorten_timers, wait_frame, wait_type

load_all()

THINK_SCALE = 0.02
"""Bots think 50 times faster in these tests (``bot_think_scale``)."""


@pytest.fixture
def bot_server(tmp_path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.5, ws_messages_per_second=100_000,
                    bot_think_scale=THINK_SCALE) as live:
        yield live


@pytest.fixture
def open_bot(bot_server: LiveServer):
    with ClientPool() as pool:
        yield lambda code: pool(bot_server, code)


def last_room(client: Client) -> dict:
    return next(f for f in reversed(client.frames) if f["type"] == "room")


def add_bots(host: Client, difficulties: list[str]) -> list[dict]:
    """The host adds bots; returns the bot members as the room frame lists them."""
    for difficulty in difficulties:
        since = len(host.frames)
        host.send({"type": "add_bot", "difficulty": difficulty})
        wait_frame(host, lambda f: f["type"] in ("room", "error"), since)
        assert host.frames[-1]["type"] == "room", host.frames[-1]
    return [m for m in last_room(host)["members"] if "bot" in m]


def finished(client: Client, timeout: float) -> dict:
    return wait_frame(client, lambda f: f["type"] == "room" and f["status"] == "finished",
                      timeout=timeout)


def play_randomly(humans: list[Client], rng: random.Random, timeout: float,
                  skip: set[int] | None = None) -> None:
    """Scripted people: each sends a random action of its latest frame's ``legal`` list once
    per state version, until the room says the match finished."""
    acted: dict[int, int] = {}
    deadline = time.monotonic() + timeout
    while True:
        for c in humans:
            try:
                while True:
                    c.recv(timeout=0.003)
            except TimeoutError:
                pass
        if last_room(humans[0])["status"] == "finished":
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"the match did not end in {timeout} s")
        for c in humans:
            if skip and c.member in skip:
                continue
            state = c.latest_state()
            if state and state.get("legal") and state["version"] > acted.get(c.member, -1):
                acted[c.member] = state["version"]
                c.action(rng.choice(state["legal"]))
        time.sleep(0.005)


def stored_match(server: LiveServer, client: Client, timeout: float = 10.0) -> dict:
    saved = wait_frame(client, lambda f: f["type"] == "room" and f["match_id"] is not None,
                       timeout=timeout)
    with server.http() as http:
        return http.get(f"/api/matches/{saved['match_id']}").json()


def replay_checks(game_id: str, stored: dict) -> None:
    """Every logged move passes ``validate`` on replay, and the replay ends the match."""
    game = get_game(game_id)
    seats = len(stored["players"])
    moves = [Move(a["seat"], a["action"], a["at_ms"], a["rtt_ms"]) for a in stored["actions"]]
    state = replay(game, seats, stored["options"], bytes.fromhex(stored["seed"]), moves).state
    assert game.outcome(state) is not None


# --- the host's commands ---------------------------------------------------------------------

def test_host_adds_and_removes_bots_with_generated_unique_names(bot_server, open_bot):
    code, (host, guest) = room_of(bot_server, open_bot, "panika", 2)
    bots = add_bots(host, ["easy", "hard", "normal"])
    assert [b["bot"] for b in bots] == ["easy", "hard", "normal"]
    assert len({b["nickname"] for b in bots}) == 3
    assert all(b["nickname"].startswith("Bot ") and b["player"] and b["connected"] for b in bots)
    room = last_room(host)
    assert room["bots"] is True and room["host"] == host.member
    assert room["room_options"] == {"bot_takeover_seconds": 20}
    # Only the host; never made host; kick works as remove_bot.
    since = len(guest.frames)
    guest.send({"type": "add_bot", "difficulty": "easy"})
    assert wait_type(guest, "error", since)["code"] == "not_host"
    for bad, code_ in [({"type": "add_bot", "difficulty": "expert"}, "bad_message"),
                       ({"type": "remove_bot", "member": guest.member}, "bad_member"),
                       ({"type": "make_host", "member": bots[0]["id"]}, "bad_member")]:
        since = len(host.frames)
        host.send(bad)
        assert wait_type(host, "error", since)["code"] == code_
    since = len(host.frames)
    host.send({"type": "remove_bot", "member": bots[0]["id"]})
    wait_type(host, "room", since)
    host.send({"type": "kick", "member": bots[1]["id"]})
    room = wait_frame(host, lambda f: f["type"] == "room" and len(f["members"]) == 3, since)
    assert [m["id"] for m in room["members"] if "bot" in m] == [bots[2]["id"]]


def test_no_bot_beyond_the_seats_and_none_for_the_counter(bot_server, open_bot):
    code, (host,) = room_of(bot_server, open_bot, "panika", 1)
    game = get_game("panika")
    add_bots(host, ["normal"] * (game.max_players - 1))
    since = len(host.frames)
    host.send({"type": "add_bot"})
    assert wait_type(host, "error", since)["code"] == "seats_full"
    counter = bot_server.create_room("panika_counter", "Cy")
    c = open_bot(counter["code"])
    c.join(token=counter["token"])
    room = wait_type(c, "room")
    assert room["bots"] is False
    since = len(c.frames)
    c.send({"type": "add_bot"})
    assert wait_type(c, "error", since)["code"] == "no_bots"


def test_room_option_bot_takeover_seconds_is_validated(bot_server, open_bot):
    code, (host,) = room_of(bot_server, open_bot, "panika", 1)
    since = len(host.frames)
    host.send({"type": "set_options", "room": {"bot_takeover_seconds": 5}})
    assert wait_type(host, "room", since)["room_options"] == {"bot_takeover_seconds": 5}
    for bad in ({"bot_takeover_seconds": -1}, {"bot_takeover_seconds": 601}, {"x": 1}):
        since = len(host.frames)
        host.send({"type": "set_options", "room": bad})
        assert wait_type(host, "error", since)["code"] == "bad_message"
    assert last_room(host)["room_options"] == {"bot_takeover_seconds": 5}


# --- legal actions in state frames -----------------------------------------------------------

def test_state_frames_carry_the_seats_legal_actions_and_the_table_none(bot_server, open_bot):
    code, clients = room_of(bot_server, open_bot, "panika", 2)
    table = open_bot(code)
    table.join(watch=True)
    since = marks(clients)
    clients[0].send({"type": "start"})
    states = [wait_type(c, "state", s) for c, s in zip(clients, since, strict=True)]
    game = get_game("panika")
    state = bot_server.registry.get(code).state.match.state
    for c, frame in zip(clients, states, strict=True):
        assert frame["legal"] == game.legal_actions(state, c.seat)
    turn = next(f for f in states if f["seat"] in f["active"])
    assert turn["legal"] and all(a["type"] in ("play", "last_card") for a in turn["legal"])
    assert "legal" not in wait_type(table, "state")


# --- bots play ---------------------------------------------------------------------------------

def test_host_and_two_bots_play_panika_to_the_end_with_legal_moves_only(bot_server, open_bot):
    code, (host,) = room_of(bot_server, open_bot, "panika", 1)
    add_bots(host, ["normal", "hard"])
    host.send({"type": "start"})
    wait_type(host, "state")
    play_randomly([host], random.Random(1), timeout=120)
    room = finished(host, 5)
    players = room["result"]["players"]
    assert [p.get("bot") for p in players] == [None, "normal", "hard"]
    stored = stored_match(bot_server, host)
    assert [p["bot"] for p in stored["players"]] == [None, "normal", "hard"]
    seats_moved = {a["seat"] for a in stored["actions"]}
    assert {1, 2} <= seats_moved  # both bots played their turns
    replay_checks("panika", stored)
    # No bot move was refused: every decision the room played was legal.
    assert all(m["seat"] in (0, 1, 2, None) for m in stored["actions"])
    with bot_server.http() as http:
        people = http.get("/api/leaderboard", params={"game": "panika"}).json()
        everyone = http.get("/api/leaderboard", params={"game": "panika", "bots": 1}).json()
        board_page = http.get("/leaderboard", params={"game": "panika"}).text
        board_all = http.get("/leaderboard", params={"game": "panika", "bots": 1}).text
        page = http.get(f"/matches/{stored['id']}").text
        listed = http.get("/matches").text
    for html in (page, listed):
        assert html.count('aria-label="computer player"></span>') == 2
    assert [r["nickname"] for r in people] == ["Ann"]
    assert "Bot Ada" not in board_page and "Bot Ada" in board_all
    assert "bots=1" in board_page
    assert {r["nickname"] for r in everyone} == {p["nickname"] for p in players}
    cost = bot_server.registry.get(code).state.bots.cost
    assert cost.calls > 50 and cost.mean_ms < 20
    print(f"\nPanika, 2 bots: {cost.calls} decisions, mean {cost.mean_ms:.3f} ms, "
          f"worst {cost.worst * 1000:.2f} ms")


def test_refused_bot_actions_cost_one_decision_never_the_room(bot_server, open_bot, monkeypatch,
                                                              caplog):
    """A bot's first decision is an illegal action and its second raises: the room logs both
    and plays on (the turn timer moves a stalled seat: Panika's timers are cut to 0.3 s here),
    and the bot's later moves are played."""
    shorten_timers(monkeypatch, "panika", 0.3)
    code, (host,) = room_of(bot_server, open_bot, "panika", 1)
    calls = {"n": 0}
    real = seat_bots.make_bot

    class Broken:
        def __init__(self, bot):
            self.bot = bot

        def observe(self, frame):
            self.bot.observe(frame)

        def decide(self, frame):
            decision = self.bot.decide(frame)
            if decision is None:
                return None
            calls["n"] += 1
            if calls["n"] == 1:
                return type(decision)({"type": "play", "cards": [999]}, decision.delay_ms)
            if calls["n"] == 2:
                raise RuntimeError("a bot bug")
            return decision

    monkeypatch.setattr(seat_bots, "make_bot", lambda *a: Broken(real(*a)))
    add_bots(host, ["normal"])
    host.send({"type": "start"})
    wait_type(host, "state")
    room = bot_server.registry.get(code)
    acted = -1
    deadline = time.monotonic() + 40
    while not any(m.seat == 1 for m in room.state.match.log):
        assert time.monotonic() < deadline, "the bot's seat never moved again"
        host.drain(0.05)
        state = host.latest_state()
        if state["legal"] and state["version"] > acted:
            acted = state["version"]
            host.action(state["legal"][0])
    assert calls["n"] >= 3
    logged = [r.getMessage() for r in caplog.records]
    assert any("sent a refused action" in m for m in logged), logged
    assert any("failed to decide" in m for m in logged), logged
    assert not room.task.done()
    assert all(m.action.get("cards") != [999] for m in room.state.match.log)


def test_a_bot_is_given_only_its_seats_frame(bot_server, open_bot, monkeypatch):
    """Every frame a bot observes is the seated client's frame: its own seat, its own view
    (which does not change with the burst number or the other hands), its legal actions."""
    seen: list[tuple[int, dict]] = []
    problems: list[str] = []
    real = seat_bots.make_bot
    game = get_game("panika")
    rooms: list[str] = []

    class Spy:
        def __init__(self, game_id, seat, difficulty, seed):
            self.seat = seat
            self.bot = real(game_id, seat, difficulty, seed)

        def observe(self, frame):
            seen.append((self.seat, frame))
            state = bot_server.registry.get(rooms[0]).state.match.state
            if frame["seat"] != self.seat:
                problems.append("another seat's frame")
            # "move" ({"seq", "seat", "at_ms"}, never the action) follows a move; a bot's first
            # frame of a match has none (docs/protocol.md).
            if set(frame) - {"move"} != {"type", "seat", "view", "legal", "match", "version",
                                         "active", "timers", "events"}:
                problems.append(f"unexpected fields {sorted(frame)}")
            if frame["legal"] != game.legal_actions(state, self.seat):
                problems.append("legal is not the seat's")
            if frame["view"] != game.view(state, self.seat):
                problems.append("view is not the seat's")
            twin = copy.deepcopy(state)
            twin.burst_at = 21 if state.burst_at != 21 else 30
            for other in range(state.players):
                if other != self.seat:
                    twin.hands[other] = list(reversed(twin.hands[other]))
            if game.view(twin, self.seat) != frame["view"]:
                problems.append("the view depends on a secret")
            self.bot.observe(frame)

        def decide(self, frame):
            return self.bot.decide(frame)

    monkeypatch.setattr(seat_bots, "make_bot", Spy)
    code, (host,) = room_of(bot_server, open_bot, "panika", 1)
    rooms.append(code)
    add_bots(host, ["normal", "easy"])
    host.send({"type": "start"})
    wait_type(host, "state")
    play_randomly([host], random.Random(2), timeout=120)
    assert not problems, problems[:5]
    assert {seat for seat, _ in seen} == {1, 2} and len(seen) > 100
    assert all(isinstance(f["view"]["players"][0]["hand"], int) for s, f in seen if s != 0)


def test_a_player_away_past_the_grace_is_played_by_a_bot_and_takes_the_seat_back(
        bot_server, open_bot):
    code, (ann, bob) = room_of(bot_server, open_bot, "panika", 2)
    ann.send({"type": "set_options", "room": {"bot_takeover_seconds": 1}})
    ann.send({"type": "start"})
    wait_type(ann, "state")
    bob_seat, token = wait_type(bob, "state")["seat"], bob.token
    # Play a few moves with Bob there, then Bob's phone dies.
    rng = random.Random(3)
    acted = -1
    while acted < 4:
        for c in (ann, bob):
            c.drain(0.02)
            state = c.latest_state()
            if state["legal"] and state["version"] > acted and state["seat"] in state["active"]:
                acted = state["version"]
                c.action(rng.choice(state["legal"]))
    gone_at = time.monotonic()  # before the close: the server sees Bob go after this
    bob.close()
    room = wait_frame(ann, lambda f: f["type"] == "room" and any(
        m.get("played_by_bot") for m in f["members"]), timeout=15)
    assert time.monotonic() - gone_at >= 1.0  # not before the grace (the same clock)
    assert [m["nickname"] for m in room["members"] if m.get("played_by_bot")] == ["Bob"]
    # The bot plays Bob's turns: a move of Bob's seat is logged while Bob is away.
    match = bot_server.registry.get(code).state.match
    logged = len(match.log)
    deadline = time.monotonic() + 30
    while not any(m.seat == bob_seat for m in match.log[logged:]):
        assert time.monotonic() < deadline, "the bot never played Bob's seat"
        ann.drain(0.02)
        state = ann.latest_state()
        if state["legal"] and state["version"] > acted and state["seat"] in state["active"]:
            acted = state["version"]
            ann.action(rng.choice(state["legal"]))
        if last_room(ann)["status"] != "playing":
            pytest.fail(f"ended: {last_room(ann)['result']} "
                        f"{[(m.seat, m.action) for m in match.log[-6:]]} {bob_seat} {logged}")
    # Bob comes back with his token: the seat is his at once, no bot plays it any more.
    back = open_bot(code)
    since = len(ann.frames)
    welcome = back.join(token=token)
    assert welcome["seat"] == bob_seat
    room = wait_frame(ann, lambda f: f["type"] == "room" and not any(
        m.get("played_by_bot") for m in f["members"]), since)
    assert not bot_server.registry.get(code).state.bots.seats
    # From now on Bob's seat moves only when Bob sends: his legal turn is his.
    mark = len(match.log)
    deadline = time.monotonic() + 20
    while True:
        back.drain(0.02)
        ann.drain(0.02)
        state = back.latest_state()
        if state["legal"] and state["seat"] in state["active"]:
            back.action(state["legal"][0])
            wait_frame(back, lambda f: f["type"] in ("state", "error"), len(back.frames))
            break
        state = ann.latest_state()
        if state["legal"] and state["version"] > acted and state["seat"] in state["active"]:
            acted = state["version"]
            ann.action(state["legal"][0])
        assert time.monotonic() < deadline
    assert any(m.seat == bob_seat for m in match.log[mark:])


QUICK_OPTIONS = {"panic_lab": {"target_tokens": 1, "countdown_seconds": 2}}
"""Panic Lab's rounds last seconds of the rules' own timers: one token wins in these tests."""
GAME_COUNTS = [(g, n) for g in sorted(bot_games()) for n in get_game(g).player_counts()]


@pytest.mark.parametrize(("game_id", "players"), GAME_COUNTS,
                         ids=[f"{g}-{n}" for g, n in GAME_COUNTS])
def test_every_game_and_player_count_ends_with_humans_and_bots(
        bot_server, open_bot, game_id, players):
    humans = (players + 1) // 2
    code, clients = room_of(bot_server, open_bot, game_id, humans)
    if game_id in QUICK_OPTIONS:
        since = len(clients[0].frames)
        clients[0].send({"type": "set_options", "options": QUICK_OPTIONS[game_id]})
        wait_type(clients[0], "room", since)
    difficulties = ["easy", "normal", "hard"]
    add_bots(clients[0], [difficulties[i % 3] for i in range(players - humans)])
    clients[0].send({"type": "start"})
    for c in clients:
        wait_type(c, "state")
    play_randomly(clients, random.Random(players), timeout=240)
    room = finished(clients[0], 5)
    assert len(room["result"]["players"]) == players
    assert sum(1 for p in room["result"]["players"] if p.get("bot")) == players - humans
    stored = stored_match(bot_server, clients[0])
    replay_checks(game_id, stored)
    cost = bot_server.registry.get(code).state.bots.cost
    assert players == humans or cost.calls > 0
    assert cost.mean_ms < 20  # the room's cost per bot frame (docs/bots.md, "In a room")
    print(f"\n{game_id} {players} seats, {players - humans} bots: {len(stored['actions'])} "
          f"moves, {cost.calls} bot frames, mean {cost.mean_ms:.3f} ms, "
          f"worst {cost.worst * 1000:.2f} ms")
