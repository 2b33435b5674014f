"""The evening's standings as the room counts them (``Standings``, app/realtime/room/members.py;
docs/decisions/0061): a point for every seat finished ahead of, tied seats alike; a win for each
winner, a shared win too; each match counted once; a member keeps their line under a new name;
most wins first, then most points; to and from the room's stored row."""

from __future__ import annotations

from app.realtime.room.members import Placed, Standings


def test_places_make_points_ties_alike_and_each_match_counts_once() -> None:
    standings = Standings()
    first = [Placed(1, "Ann", 1, True), Placed(2, "Ben", 2, False), Placed(3, "Cem", 2, False),
             Placed(4, "Bot Ada", 4, False, "easy")]
    assert standings.count(1, first)
    assert not standings.count(1, first)  # a restored room finishing match 1 again
    table = standings.table({})
    assert [(r["nickname"], r["wins"], r["points"], r["matches"]) for r in table] == [
        ("Ann", 1, 3, 1), ("Ben", 0, 1, 1), ("Cem", 0, 1, 1), ("Bot Ada", 0, 0, 1)]
    assert table[-1]["bot"] == "easy"
    shared = [Placed(1, "Ann", 1, True), Placed(2, "Benny", 1, True), Placed(3, "Cem", 3, False)]
    assert standings.count(2, shared)
    table = standings.table({2: "Ben again"})  # the member's nickname now
    assert [(r["member"], r["nickname"], r["wins"], r["points"], r["matches"]) for r in table] == [
        (1, "Ann", 2, 4, 2), (2, "Ben again", 1, 2, 2), (3, "Cem", 0, 1, 2),
        (4, "Bot Ada", 0, 0, 1)]
    assert standings.rows[2].nickname == "Benny"  # as last counted, for a member who left


def test_standings_go_to_the_rooms_row_and_back() -> None:
    assert Standings().to_json() is None and Standings.from_json(None).through == 0
    standings = Standings()
    standings.count(3, [Placed(5, "Ann", 1, True), Placed(6, "Ben", 2, False)])
    again = Standings.from_json(standings.to_json())
    assert again.through == 3 and again.table({}) == standings.table({})
    assert not again.count(3, [Placed(5, "Ann", 1, True)])
