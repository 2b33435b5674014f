"""Computer players in stored matches (docs/bots.md, "In a room"): each seat keeps its bot
difficulty (``match_players.bot``, migration 0004), an outbox record written before the column
existed still loads, and the leaderboard leaves bots out unless asked."""

from __future__ import annotations

from app.db.matches import MatchRecord, get_match, leaderboard, list_matches, save_match
from tests.db.test_store import record


def test_bot_seats_are_stored_and_left_out_of_the_leaderboard_by_default(db):
    first = record(results=[("Ann", 0, 1, True), ("Bot Ada", -3, 2, False, "normal")])
    second = record(results=[("Bot Ada", 0, 1, True, "normal"), ("Ann", -5, 2, False)],
                    minutes=20)
    match_id = save_match(db, record=first)
    save_match(db, record=second)
    assert [p["bot"] for p in get_match(db, match_id=match_id)["players"]] == [None, "normal"]
    assert {p["nickname"]: p["bot"] for p in list_matches(db)[0]["players"]} == {
        "Bot Ada": "normal", "Ann": None}
    assert [(r["nickname"], r["wins"], r["played"]) for r in leaderboard(db, game="panika")] == [
        ("Ann", 1, 2)]
    everyone = leaderboard(db, game="panika", bots=True)
    assert [(r["nickname"], r["wins"], r["played"]) for r in everyone] == [
        ("Ann", 1, 2), ("Bot Ada", 1, 2)]


def test_an_outbox_record_without_bot_fields_still_loads():
    data = record(results=[("Ann", 0, 1, True)]).to_json()
    for player in data["players"]:
        del player["bot"]
    loaded = MatchRecord.from_json(data)
    assert loaded.players[0].bot is None
