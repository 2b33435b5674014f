"""The evening's standings (docs/decisions/0061): wins and points per member over the room's
matches, in the room frame after every match, kept across "Play again" and a restart of the
room's server (the server process killed and started again on the same var folder). Each match
counts once: a restored room that finishes its match again counts nothing twice, and a player is
the member in the seat, whatever nickname they had."""

from __future__ import annotations

from typing import Any

import pytest

from tests.durable.process import ServerProcess
from tests.durable.test_restart import _reconnect, _room
from tests.live import Client
from tests.realtime.helpers import PanikaTable, marks, start_panika, wait_frame, wait_type

Frame = dict[str, Any]




def _finished(client: Client, since: int = 0) -> Frame:
    return wait_frame(client, lambda f: f["type"] == "room" and f["status"] == "finished"
                      and f["match_id"] is not None, since, timeout=15.0)


def _rows(frame: Frame) -> dict[int, tuple[str, int, int, int]]:
    return {r["member"]: (r["nickname"], r["wins"], r["points"], r["matches"])
            for r in frame["standings"]}


def _expected(results: list[list[Frame]], members: dict[int, int]) -> dict[int, tuple[int, int]]:
    """(wins, points) per member from the matches' results: a point for each seat placed ahead
    of."""
    out = {member: (0, 0) for member in members}
    for players in results:
        ranks = [p["rank"] for p in players]
        for p in players:
            member = next(m for m, seat in members.items() if seat == p["seat"])
            wins, points = out[member]
            out[member] = (wins + p["winner"], points + sum(1 for r in ranks if r > p["rank"]))
    return out


@pytest.mark.long(30)
def test_standings_survive_play_again_and_a_restart(process, opened):
    process.start()
    code, clients = _room(process, opened, "panika", ["Ann", "Bob"])
    assert wait_type(clients[0], "room")["standings"] == []
    start_panika(clients)
    PanikaTable(clients, timeout=10.0).play_to_end()
    first = _finished(clients[0])
    members = {m["id"]: m["seat"] for m in first["members"]}
    results = [first["result"]["players"]]
    after_one = _rows(first)
    assert {m: (w, pts) for m, (_, w, pts, _) in after_one.items()} == _expected(results, members)
    assert {name for name, *_ in after_one.values()} == {"Ann", "Bob"}
    assert all(n == 1 for *_, n in after_one.values())
    # The other phone sees the same standings; the winner is first.
    assert _rows(_finished(clients[1])) == after_one
    assert first["standings"][0]["wins"] == 1

    # Play again: the standings stay on the room frame of the new match.
    since = marks(clients)
    clients[0].send({"type": "rematch"})
    playing = wait_frame(clients[0], lambda f: f["type"] == "room" and f["status"] == "playing",
                         since[0])
    assert _rows(playing) == after_one
    for c, s in zip(clients, since, strict=True):
        wait_type(c, "state", s)
    table = PanikaTable(clients, timeout=10.0)
    for _ in range(5):
        assert table.step()

    # The server dies mid-match and comes back: the standings come back with the room.
    process.kill()
    process.start()
    again = _reconnect(process, code, clients, opened)
    back = wait_type(again[0], "room")
    assert _rows(back) == after_one
    mark = len(again[0].frames)
    PanikaTable(again, timeout=10.0).play_to_end()
    second = _finished(again[0], mark)
    results.append(second["result"]["players"])
    after_two = _rows(second)
    assert {m: (w, pts) for m, (_, w, pts, _) in after_two.items()} == _expected(results, members)
    assert all(n == 2 for *_, n in after_two.values())
    assert sum(w for _, w, _, _ in after_two.values()) >= 2

    # A restart with the match finished: the room finishes it again, and counts it once.
    process.kill()
    process.start()
    last = _reconnect_finished(process, code, again, opened)
    assert _rows(last) == after_two
    process.stop()


def _reconnect_finished(process: ServerProcess, code: str, before: list[Client],
                        opened: list[Client]) -> Frame:
    c = Client(process, code)
    opened.append(c)
    c.join(token=before[0].token)
    return _finished(c)
