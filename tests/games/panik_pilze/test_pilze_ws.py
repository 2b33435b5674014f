"""Panik Pilze's secrets over real WebSockets: over a full match, no frame to any seat, spectator
or table view carries a display card's down side (memory aid off), another seat's hand, or any
card of the pile below its top.

Every state frame is checked against the server's state at that version: its view is exactly
``view(state, seat)``, and exactly the view of every twin state whose secrets differ (see
``twins.py``). The only place a down side ever appears is the transient ``lay`` event of the move
that took that card from the pile (the moment everyone sees it on the pile; decision 5), which
never enters the event history.
"""

from __future__ import annotations

import random

import orjson

from app.engine import get_game
from app.engine.replay import replay
from tests.live import Client
from tests.realtime.helpers import room_of, wait_frame, wait_type
from tests.secrets import assert_no_key, assert_seat_private, walk

from .pilze_bots import PilzeTable
from .twins import twins


def _as_sent(value: object) -> object:
    return orjson.loads(orjson.dumps(value))


def test_no_frame_carries_a_down_side_another_hand_or_the_pile_below_its_top(
    fast_server, open_fast
) -> None:
    code, players = room_of(fast_server, open_fast, "panik_pilze", 3, ("Nicole", "Brendon", "Ryan"))
    since = [len(c.frames) for c in players]
    players[0].send({"type": "start"})
    for c, s in zip(players, since, strict=True):
        wait_type(c, "state", s)
    spectator = open_fast(code)
    spectator.join(nickname="Late")
    table = open_fast(code)
    table.join(watch=True)
    spectator.wait_for("state")
    table.wait_for("state")
    everyone: list[Client] = [*players, spectator, table]
    room = fast_server.registry.get(code)
    game = get_game("panik_pilze")
    chooser = random.Random(5)
    checked = {"frames": 0, "twins": 0, "laid": room.state.match.state.laid, "lays": 0}

    def frames_hide_the_secrets() -> None:
        state = room.state.match.state
        for client in everyone:
            frame = client.latest_state()
            assert frame is not None and frame["version"] == room.state.match.version
            seat = frame["seat"]
            assert frame["view"] == _as_sent(game.view(state, seat))
            for twin in twins(state, seat, chooser):
                assert _as_sent(game.view(twin, seat)) == frame["view"]
                checked["twins"] += 1
            # A down side only in a lay event of this very move, naming a card it laid out.
            laid_now = range(checked["laid"] + 1, state.laid + 1)
            for event in frame["events"]:
                if "was" in event.get("data", {}):
                    assert event["kind"] == "lay" and event.get("transient") is True
                    assert event["data"]["id"] in laid_now
                    checked["lays"] += 1
            checked["frames"] += 1
        checked["laid"] = state.laid

    moves = PilzeTable(everyone).play_to_end(on_step=frames_hide_the_secrets)
    assert room.state.match.state.phase == "over"
    assert moves > 30 and checked["frames"] == 5 * moves and checked["twins"] > 5 * moves
    assert checked["lays"] == 5 * 56  # every card after the opening four, seen by all five

    for client in everyone:
        client.drain(0.3)
        frames = [f for f in client.frames if f["type"] != "ping"]
        # Hands: a list only at the top of a seat's own view, never for spectators or the table.
        assert_seat_private(frames, own_seat=client.seat)
        # Display down sides: no "down" key anywhere (the memory aid is off).
        assert_no_key(frames, r"^down$")
        # The history a late joiner gets never carries the transient lay events.
        for f in frames:
            if f["type"] == "history":
                assert all(e["kind"] not in ("lay", "flip") for e in f["events"])
        # Action cards shown outside the recipient's own hand: only the discard pile's top.
        for f in frames:
            if f["type"] != "state":
                continue
            for path, value in walk(f["view"]):
                if isinstance(value, dict) and "id" in value and "kind" in value:
                    assert path[0] in ("hand", "action_discard"), path
    # The result reached everyone.
    result = wait_type(table, "room", 0, timeout=5, status="finished")
    assert result["result"]["players"]


def test_a_finished_match_is_stored_and_replays_from_its_record(fast_server, open_fast) -> None:
    """Match records: the stored seed, options and action log rebuild the same final scores."""
    from app.engine import Move

    code, players = room_of(fast_server, open_fast, "panik_pilze", 2, ("Ann", "Bob"),
                            options={"memory_aid": True})
    since = [len(c.frames) for c in players]
    players[0].send({"type": "start"})
    for c, s in zip(players, since, strict=True):
        wait_type(c, "state", s)
    PilzeTable(players).play_to_end()
    saved = wait_type(players[0], "room", 0, timeout=10, status="finished")
    while saved.get("match_id") is None:
        saved = players[0].wait_for("room", timeout=10)
    with fast_server.http() as http:
        record = http.get(f"/api/matches/{saved['match_id']}").json()
        page = http.get(f"/matches/{saved['match_id']}")
    assert record["game"] == "panik_pilze" and record["options"]["memory_aid"] is True
    game = get_game("panik_pilze")
    log = [Move(a["seat"], a["action"], a["at_ms"], a.get("rtt_ms", 0)) for a in record["actions"]]
    state = replay(game, 2, record["options"], bytes.fromhex(record["seed"]), log).state
    outcome = game.outcome(state)
    by_seat = {p["seat"]: p for p in record["players"]}
    assert [by_seat[s]["score"] for s in range(2)] == outcome.scores
    assert {s for s in range(2) if by_seat[s]["winner"]} == set(outcome.winners)
    assert page.status_code == 200 and "Panik Pilze" in page.text
    # After the end the room refuses every action as not_playing (before the engine sees it).
    mark = len(players[0].frames)
    players[0].action({"type": "swap", "cards": [0]})
    assert wait_type(players[0], "error", mark)["code"] == "not_playing"


def test_bad_actions_get_a_clear_error_and_change_nothing(fast_server, open_fast) -> None:
    code, players = room_of(fast_server, open_fast, "panik_pilze", 2, ("Ann", "Bob"))
    since = [len(c.frames) for c in players]
    players[0].send({"type": "start"})
    first = [wait_type(c, "state", s) for c, s in zip(players, since, strict=True)]
    room = fast_server.registry.get(code)
    turn = first[0]["view"]["turn"]
    mover = next(c for c in players if c.seat == turn)
    other = next(c for c in players if c.seat != turn)
    hand = [c["id"] for c in next(f for f in first if f["seat"] == turn)["view"]["hand"]]
    not_mine = next(c for c in range(26) if c not in hand)
    cases = [
        (other, {"type": "swap", "cards": [0]}, "not_your_turn"),
        (mover, {"type": "swap", "cards": [not_mine]}, "illegal_action"),
        (mover, {"type": "swap", "cards": []}, "malformed_action"),
        (mover, {"type": "party", "card": hand[0], "mushroom": "truffle"}, "malformed_action"),
        (mover, {"type": "collect", "card": 99}, "malformed_action"),
        (mover, {"type": "swap", "cards": [str(hand[0])]}, "malformed_action"),
        (other, {"type": "swap", "cards": [True]}, "malformed_action"),
        (mover, {"type": "steal", "card": hand[0], "victim": 5, "mushroom": "chef"},
         "malformed_action"),
        (mover, {"type": "steal", "card": hand[0], "victim": 4, "mushroom": "chef"},
         "illegal_action"),
        (mover, {"type": "timeout"}, "illegal_action"),
        (mover, {"type": "steal", "card": hand[0], "victim": 1 - turn, "mushroom": "chef"},
         "illegal_action"),
    ]
    for client, action, code_expected in cases:
        version = room.state.match.version
        mark = len(client.frames)
        client.action(action)
        error = wait_type(client, "error", mark)
        assert error["code"] == code_expected, (action, error)
        assert error["message"]
        assert room.state.match.version == version
    # The room still plays: a legal swap is accepted.
    mark = len(mover.frames)
    mover.action({"type": "swap", "cards": hand[:1]})
    assert wait_type(mover, "state", mark)["version"] == 1


def test_the_turn_timer_plays_for_an_absent_player(fast_server, open_fast, monkeypatch) -> None:
    """With the room's turn timer on, the system's timeout plays the simplest turn (shortened
    here to 0.3 s in-process)."""
    import dataclasses

    from app.games.panik_pilze.game import PanikPilzeGame

    original = PanikPilzeGame.timers
    monkeypatch.setattr(PanikPilzeGame, "timers", lambda self, state: [
        dataclasses.replace(t, seconds=0.3) for t in original(self, state)])
    code, players = room_of(fast_server, open_fast, "panik_pilze", 2, ("Ann", "Bob"),
                            options={"turn_timer": True, "turn_seconds": 20})
    since = [len(c.frames) for c in players]
    players[0].send({"type": "start"})
    first = wait_type(players[0], "state", since[0])
    assert first["view"]["turn_seconds"] == 20
    assert [t["label"] for t in first["timers"]] == ["Turn"]
    turn = first["view"]["turn"]
    timed_out = wait_frame(players[0], lambda f: f["type"] == "state" and f["version"] == 1,
                           since[0], timeout=5)
    kinds = [e["kind"] for e in timed_out["events"]]
    assert kinds[0] == "timeout" and timed_out["view"]["turn"] == 1 - turn
    room = fast_server.registry.get(code)
    assert room.state.match.log[0].seat is None and room.state.match.log[0].action == {"type": "timeout"}
