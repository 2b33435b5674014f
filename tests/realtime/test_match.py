"""A Panika match in one room of real WebSocket clients: start, views per seat, versions,
refusals that change nothing, spectators and the table view."""

from __future__ import annotations

from tests.realtime.helpers import (
    extra_frames, marks, room_of, start_panika, wait_frame, wait_type,
)


def test_start_gives_each_seat_its_own_view(server, open_client):
    code, clients = room_of(server, open_client, "panika", 3)
    states = start_panika(clients)
    room = server.registry.get(code)
    seats = [s["seat"] for s in states]
    assert sorted(seats) == [0, 1, 2]
    # Seats follow the join order; every client learns its seat from the room frame.
    assert seats == [0, 1, 2] and [c.seat for c in clients] == [0, 1, 2]
    versions = {s["version"] for s in states}
    assert versions == {0}
    engine = room.state.match.state
    for c, st in zip(clients, states, strict=True):
        view = st["view"]
        assert view["you"] == c.seat
        assert [card["id"] for card in view["hand"]] == engine.hands[c.seat]
        assert view["players"][c.seat]["hand"] == len(engine.hands[c.seat])
        assert st["active"] == [engine.turn]
        assert any(e["kind"] == "start" for e in st["events"])
    room_frames = [wait_type(c, "room", status="playing") for c in clients]
    assert all(r["seed_hash"] and len(r["seed_hash"]) == 64 for r in room_frames)


def test_versions_increase_by_one_per_move(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    start_panika(clients)
    seen = []
    for _ in range(6):
        st = clients[0].latest_state()
        view = st["view"]
        if view["phase"] == "tapping":
            actor, action = view["tapping"]["seat"], {"type": "tap"}
        else:
            actor = view["turn"]
            mine = clients[actor].latest_state()["view"]
            n = mine["legal"]["cards"]  # 2 under Play Two
            action = {"type": "play", "cards": [c["id"] for c in mine["hand"][:n]]}
        since = marks(clients)
        clients[actor].action(action)
        got = [wait_type(c, "state", s) for c, s in zip(clients, since, strict=True)]
        assert {g["version"] for g in got} == {st["version"] + 1}
        seen.append(got[0]["version"])
    assert seen == list(range(1, 7))
    assert server.registry.get(code).state.match.version == 6


def test_only_the_host_starts_with_the_right_player_count(server, open_client):
    code, (host,) = room_of(server, open_client, "panika", 1)
    since = len(host.frames)
    host.send({"type": "start"})
    err = wait_type(host, "error", since)
    assert err["code"] == "player_count"
    bob = open_client(code)
    bob.join(nickname="Bob")
    bob.send({"type": "start"})
    assert bob.wait_for("error")["code"] == "not_host"
    for kind in ("rematch", "set_options", "kick", "make_host"):
        frame = {"type": kind}
        if kind == "set_options":
            frame["options"] = {}
        if kind in ("kick", "make_host"):
            frame["member"] = host.member
        bob.send(frame)
        assert bob.wait_for("error")["code"] == "not_host"
    assert server.registry.get(code).state.status == "waiting"
    # Seven players are too many for Panika.
    for name in ("C", "D", "E", "F", "G"):
        c = open_client(code)
        c.join(nickname=name)
    assert server.registry.get(code).state.game.max_players == 6
    late = open_client(code)
    late.join(nickname="H")
    room = late.wait_for("room", lambda f: len(f["members"]) == 8)
    # Members beyond the seats are spectators even before the start.
    assert sum(m["player"] for m in room["members"]) == 6
    since = len(host.frames)
    host.send({"type": "start"})
    st = wait_type(host, "state", since)
    assert len(st["view"]["players"]) == 6
    assert late.wait_for("state")["seat"] is None
    since = len(host.frames)
    host.send({"type": "start"})
    assert wait_type(host, "error", since)["code"] == "playing"


def test_action_from_the_wrong_seat_changes_nothing(server, open_client):
    code, clients = room_of(server, open_client, "panika", 3)
    states = start_panika(clients)
    turn = states[0]["view"]["turn"]
    wrong = clients[(turn + 1) % 3]
    card = wrong.latest_state()["view"]["hand"][0]["id"]
    engine = server.registry.get(code).state.match
    before = (engine.version, [list(h) for h in engine.state.hands], len(engine.log))
    since = marks(clients)
    wrong.action({"type": "play", "cards": [card]}, ref=7)
    err = wait_type(wrong, "error", since[clients.index(wrong)])
    assert err["code"] == "not_your_turn" and err["ref"] == 7
    wrong.action({"type": "tap"}, ref=8)
    err = wait_frame(wrong, lambda f: f["type"] == "error" and f.get("ref") == 8,
                     since[clients.index(wrong)])
    assert err["code"] == "illegal_action"
    wrong.action({"type": "dance"}, ref=9)
    err = wait_frame(wrong, lambda f: f["type"] == "error" and f.get("ref") == 9,
                     since[clients.index(wrong)])
    assert err["code"] == "malformed_action"
    # The player whose turn it is plays a card it does not hold.
    mover = clients[turn]
    mover.action({"type": "play", "cards": [card]}, ref=10)
    err = wait_frame(mover, lambda f: f["type"] == "error" and f.get("ref") == 10, since[turn])
    assert err["code"] == "illegal_action"
    for c, s in zip(clients, since, strict=True):
        new = extra_frames(c, s)
        assert all(f["type"] == "error" for f in new), new
        assert all(f["type"] != "state" for f in new)
    assert (engine.version, [list(h) for h in engine.state.hands], len(engine.log)) == before


def test_a_late_joiner_is_a_spectator_with_the_public_view(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    start_panika(clients)
    late = open_client(code)
    welcome = late.join(nickname="Late")
    assert welcome["seat"] is None and welcome["member"] is not None
    st = wait_type(late, "state")
    assert st["seat"] is None and "hand" not in st["view"] and "legal" not in st["view"]
    assert st["view"]["you"] is None
    room = wait_frame(late, lambda f: f["type"] == "room"
                      and any(m["id"] == late.member for m in f["members"]))
    me = next(m for m in room["members"] if m["id"] == late.member)
    assert me["player"] is False and me["seat"] is None
    late.action({"type": "tap"})
    assert wait_type(late, "error")["code"] == "spectator"
    # A spectator may chat.
    late.send({"type": "chat", "text": "good luck"})
    assert clients[0].wait_for("chat")["nickname"] == "Late"


def test_watch_join_gets_the_table_view_and_cannot_act(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    start_panika(clients)
    table = open_client(code)
    welcome = table.join(watch=True)
    assert welcome["watching"] is True and welcome["member"] is None and welcome["token"] is None
    st = wait_type(table, "state")
    assert st["seat"] is None and "hand" not in st["view"]
    room = wait_type(table, "room")
    assert room["watchers"] == 1
    assert all(m["nickname"] for m in room["members"]) and len(room["members"]) == 2
    for c in clients:
        wait_type(c, "room", watchers=1)
    since = marks(clients)
    for frame in ({"type": "action", "action": {"type": "tap"}},
                  {"type": "chat", "text": "hello"}, {"type": "start"}):
        mark = len(table.frames)
        table.send(frame)
        assert wait_type(table, "error", mark)["code"] == "watching"
    for c, s in zip(clients, since, strict=True):
        assert extra_frames(c, s) == []
    # The table follows the match: a move reaches it as a public state.
    view = clients[0].latest_state()["view"]
    mover = clients[view["turn"]]
    mark = len(table.frames)
    mover.action({"type": "play", "cards": [mover.latest_state()["view"]["hand"][0]["id"]]})
    st = wait_type(table, "state", mark, version=1)
    assert "hand" not in st["view"]
    mark = len(table.frames)
    table.send({"type": "resync"})
    assert wait_type(table, "room", mark)["code"] == code
    assert wait_type(table, "state", mark)["version"] == 1


def test_the_watcher_count_follows_table_views_leaving(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    table = open_client(code)
    table.join(watch=True)
    since = len(clients[0].frames)
    wait_type(clients[0], "room", watchers=1)
    table.close()
    assert wait_type(clients[0], "room", since, watchers=0)["watchers"] == 0
    with server.http() as http:
        assert http.get(f"/api/rooms/{code}").json()["watchers"] == 0
