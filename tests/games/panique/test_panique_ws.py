"""Panique over real WebSockets: the roller and the chooser are different seats, a roll nobody
makes is made by the server when its timer runs out (10 s: test_panique_turns.py), and a choice
nobody makes takes its default when its timer runs out (docs/games/panique.md, decisions 10 and
11). The first roll's timer is cut to a second here (the server runs in the test's process), the
choice's is the shortest option (5 s): each is checked not to fire before its time, which holds
whatever the machine's speed (a bound the other way would not)."""

from __future__ import annotations

from typing import Any

from app.api.finished.story import summary_text
from app.engine import Move, get_game
from app.engine.replay import replay
from tests.live import Client
from tests.realtime.helpers import marks, room_of, shorten_timers, wait_frame

Frame = dict[str, Any]
CHOICE_SECONDS = 5
TIMER_SECONDS = 1.0
"""The first roll's timer in the first test (the rules' 10 s otherwise)."""


def latest(client: Client) -> Frame:
    frame = client.latest_state()
    assert frame is not None
    return frame


def send_and_wait(clients: list[Client], actor: Client, action: Frame) -> None:
    """``actor`` sends ``action``; every client then gets the next state."""
    version = latest(clients[0])["version"]
    since = marks(clients)
    actor.action(action)
    for c, s in zip(clients, since, strict=True):
        frame = wait_frame(c, lambda f: (f["type"] == "state" and f["version"] > version)
                           or (c is actor and f["type"] == "error"), s, 5)
        assert frame["type"] == "state", f"{action} refused: {frame}"


def wait_for_system(clients: list[Client], seconds: float) -> list[Frame]:
    """Nobody acts; the next state frame comes from the room's timer."""
    version = latest(clients[0])["version"]
    since = marks(clients)
    return [wait_frame(c, lambda f: f["type"] == "state" and f["version"] > version, s,
                       seconds + 5) for c, s in zip(clients, since, strict=True)]


def test_rolls_by_the_roller_choices_by_the_chooser_and_their_timers(fast_server, open_fast,
                                                                      monkeypatch) -> None:
    # The bots act as fast as frames arrive: a server without the per-connection frame limit.
    first_roll = {"short": True}
    shorten_timers(monkeypatch, "panique", TIMER_SECONDS,
                   only=lambda t: first_roll["short"] and t.key.startswith("roll:"))
    code, clients = room_of(fast_server, open_fast, "panique", 2,
                            options={"choice_seconds": CHOICE_SECONDS})
    by_seat: dict[int, Client] = {}
    since = marks(clients)
    clients[0].send({"type": "start"})
    for c, s in zip(clients, since, strict=True):
        wait_frame(c, lambda f: f["type"] == "state", s)
        by_seat[c.seat] = c
    first = latest(clients[0])
    assert first["view"]["phase"] == "order" and sorted(first["active"]) == [0, 1]
    assert {t["label"] for t in first["timers"]} == {"Roll"}

    # Seat 0 rolls for the first turn; seat 1 does nothing and the server rolls for it when the
    # round's timer (started with the match, at 0 ms) runs out.
    send_and_wait(clients, by_seat[0], {"type": "roll"})
    frames = wait_for_system(clients, 30)
    assert frames[0]["move"]["at_ms"] >= TIMER_SECONDS * 1000  # the match's clock, in ms
    first_roll["short"] = False  # the rolls from here on have the rules' time
    auto = [e for e in frames[0]["events"] if e["kind"] == "roll"]
    assert len(auto) == 1 and "automatically" in auto[0]["text"] and auto[0]["seat"] == 1
    kinds = [e["kind"] for e in frames[0]["events"]]
    assert kinds[-1] == "order"  # seat 1's roll decided the first player, or a tie to roll again

    checked = {"encounter": 0, "choice_timeout": 0}
    for _match in range(6):
        while True:
            frame = latest(clients[0])
            view = frame["view"]
            if view["phase"] == "over":
                break
            pending = view["pending"]
            seat = pending["seats"][0]
            assert frame["active"] == pending["seats"]
            if pending["purpose"] in ("encounter", "table"):
                heir = pending["heir"]
                assert seat != heir and seat == (heir + 1) % 2 or view["first_out"] == seat
                if seat != heir:
                    # The active heir's own player may not make the encounter roll.
                    mark = len(by_seat[heir].frames)
                    by_seat[heir].action({"type": "roll"})
                    err = wait_frame(by_seat[heir], lambda f: f["type"] == "error", mark)
                    assert err["code"] == "not_your_turn"
                    checked["encounter"] += 1
            if pending["purpose"] in ("butler", "ally", "rest"):
                assert seat == pending["heir"]
                if pending["purpose"] != "rest":
                    assert seat == view["turn"]  # the active player chooses
                if not checked["choice_timeout"]:
                    timer = next(t for t in frame["timers"] if t["label"] == "Choose")
                    assert timer["seats"] == [seat]
                    assert timer["remaining_ms"] <= CHOICE_SECONDS * 1000
                    frames = wait_for_system(clients, 30)
                    # It fired, and not before its time (the match's own clock, in ms).
                    assert frames[0]["move"]["at_ms"] - frame["move"]["at_ms"] \
                        >= timer["remaining_ms"]
                    texts = [e["text"] for e in frames[0]["events"]]
                    assert any("time ran out" in t for t in texts), texts
                    checked["choice_timeout"] += 1
                    continue
                legal = latest(by_seat[seat])["view"]["legal"]
                send_and_wait(clients, by_seat[seat], legal[0])
                continue
            assert latest(by_seat[seat])["view"]["legal"] == [{"type": "roll"}]
            send_and_wait(clients, by_seat[seat], {"type": "roll"})
        if checked["encounter"] and checked["choice_timeout"]:
            break
        since = marks(clients)
        clients[0].send({"type": "rematch"})
        for c, s in zip(clients, since, strict=True):
            wait_frame(c, lambda f: f["type"] == "state" and f["view"]["phase"] == "order", s)
        send_and_wait(clients, by_seat[0], {"type": "roll"})
        send_and_wait(clients, by_seat[1], {"type": "roll"})
        while latest(clients[0])["view"]["phase"] == "order":
            send_and_wait(clients, by_seat[latest(clients[0])["active"][0]], {"type": "roll"})
    assert checked["encounter"] > 0 and checked["choice_timeout"] == 1


def test_a_whole_match_is_saved_and_replays_from_its_record(fast_server, open_fast) -> None:
    """Three bots play to the end through their own frames' ``legal``; the stored match (seed,
    options, log) replays to the same outcome, and every seat sees the same public view."""
    code, clients = room_of(fast_server, open_fast, "panique", 3,
                            options={"choice_seconds": 30})
    watcher = open_fast(code)
    since = marks(clients)
    clients[0].send({"type": "start"})
    by_seat: dict[int, Client] = {}
    for c, s in zip(clients, since, strict=True):
        wait_frame(c, lambda f: f["type"] == "state", s)
        by_seat[c.seat] = c
    watcher.join(watch=True)
    everyone = [*clients, watcher]
    moves = 0
    while latest(clients[0])["view"]["phase"] != "over":
        seat = latest(clients[0])["active"][0]
        legal = latest(by_seat[seat])["view"]["legal"]
        assert legal, "the seat the game waits on has nothing to do"
        send_and_wait(everyone, by_seat[seat], legal[moves % len(legal)])
        moves += 1
        assert moves < 2000
        views = [dict(latest(c)["view"]) for c in everyone]
        for view in views:
            view.pop("you")
            view.pop("legal", None)
        assert all(v == views[0] for v in views)
    room = wait_frame(clients[0], lambda f: f["type"] == "room" and f["match_id"] is not None,
                      0, 10)
    assert room["result"]["ending"] in list(get_game("panique").Ending)
    with fast_server.http() as http:
        stored = http.get(f"/api/matches/{room['match_id']}").json()
        page = http.get(f"/matches/{room['match_id']}")
        listed = http.get("/api/matches", params={"game": "panique"}).json()
    assert page.status_code == 200 and "Panique" in page.text
    match = {"game": "panique", "ending": room["result"]["ending"],
             "details": room["result"]["details"], "players": room["result"]["players"]}
    assert summary_text(match, "en") in page.text.replace("&#39;", "'")
    assert [m["id"] for m in listed] == [room["match_id"]]
    assert stored["game"] == "panique" and stored["options"] == {"choice_seconds": 30}
    game = get_game("panique")
    log = [Move(a["seat"], a["action"], a["at_ms"], a["rtt_ms"]) for a in stored["actions"]]
    state = replay(game, 3, stored["options"], bytes.fromhex(stored["seed"]), log).state
    outcome = game.outcome(state)
    assert outcome is not None
    assert [p["rank"] for p in stored["players"]] == outcome.ranks
    assert [p["score"] for p in stored["players"]] == outcome.scores
    assert [p["seat"] for p in stored["players"] if p["winner"]] == outcome.winners
    assert game.view(state, None) == latest(watcher)["view"]
