"""Panika's secret over real WebSockets: the burst number is in no frame before the burst.

A field-by-field search cannot prove this alone (the counter, a pile size or a card value may
equal the secret by chance), so the test proves something stronger: every state frame a client
received before a burst is exactly the frame the server would have sent had the burst number been
any other value still above the counter. The frames carry no information about the number.
"""

from __future__ import annotations

import copy

import orjson

from app.engine import get_game
from tests.live import Client
from tests.realtime.helpers import PanikaTable, room_of, start_panika, wait_frame


def _as_sent(value: object) -> object:
    return orjson.loads(orjson.dumps(value))


def test_burst_number_is_in_no_frame_before_the_burst_for_any_seat_or_spectator(
    fast_server, open_fast
) -> None:
    created = fast_server.create_room("panika", "Nicole")
    code = created["code"]
    players: list[Client] = [open_fast(code) for _ in range(3)]
    players[0].join(token=created["token"])
    players[1].join(nickname="Brendon")
    players[2].join(nickname="Ryan")
    start_panika(players)
    spectator = open_fast(code)
    spectator.join(nickname="Late")  # joins during play: a spectator
    table = open_fast(code)
    table.join(watch=True)
    spectator.wait_for("state")
    table.wait_for("state")
    room = fast_server.registry.get(code)
    game = get_game("panika")
    everyone = [*players, spectator, table]
    checked = {"frames": 0, "rounds": set()}

    def frames_hide_the_secret() -> None:
        state = room.state.match.state
        if state.phase == "over":
            return
        latest = {id(c): c.latest_state() for c in everyone}
        for client in everyone:
            frame = latest[id(client)]
            if frame is None or frame["version"] != room.state.match.version:
                continue
            seat = frame["seat"]
            assert frame["view"] == _as_sent(game.view(state, seat))
            for other in range(state.counter + 1, 31):
                if other == state.burst_at:
                    continue
                twin = copy.copy(state)
                twin.burst_at = other
                assert _as_sent(game.view(twin, seat)) == frame["view"], (
                    f"seat {seat}'s view changes with the burst number"
                )
            for event in frame["events"]:
                if event["kind"] != "burst":
                    assert str(state.burst_at) not in event["text"] or event["kind"] == "round"
            checked["frames"] += 1
            checked["rounds"].add(state.round)

    # The table waits after every move until every client has the new version, so the room's
    # state is the one that produced the frames being checked.
    PanikaTable(everyone[:3] + [spectator, table]).play_to_end(on_step=frames_hide_the_secret)
    assert checked["frames"] > 100 and len(checked["rounds"]) >= 2

    # And the numbers do come out at each burst: the burst events name them.
    bursts = [e for f in table.frames if f["type"] == "state" for e in f["events"]
              if e["kind"] == "burst"]
    assert bursts and all(21 <= e["data"]["number"] <= 30 for e in bursts)


def test_a_false_last_card_call_is_refused_and_not_logged(server, open_client):
    """docs/games/panika.md, decision 10: a false call changes nothing and is not a move."""
    code, clients = room_of(server, open_client, "panika", 2)
    states = start_panika(clients)
    other = clients[1 - states[0]["view"]["turn"]]
    room = server.registry.get(code)
    other.action({"type": "last_card"}, ref=3)
    err = wait_frame(other, lambda f: f["type"] == "error" and f.get("ref") == 3)
    assert err["code"] == "illegal_action"
    assert room.state.match.version == 0 and room.state.match.log == []
