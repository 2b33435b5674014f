"""``save_match`` / ``list_matches`` / ``get_match`` / ``leaderboard`` on each backend."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import delete, func, select

from app.engine import Move, MoveLog
from app.db.matches import (
    MatchRecord, PlayerResult, get_match, leaderboard, list_matches, save_match,
)
from app.db.models import Match, MatchPlayer

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


def record(game="panika", *, results, minutes=0, log=(), room="ROOM",
           seed_hash=None) -> MatchRecord:
    """``results``: (nickname, score, rank, winner) per seat; a fresh seed hash unless given."""
    return MatchRecord(
        game=game, room_code=room, options={"turn_seconds": 30, "nested": {"a": [1, 2]}},
        seed="0f" * 32, seed_hash=seed_hash or secrets.token_hex(32),
        started_at=T0 + timedelta(minutes=minutes),
        ended_at=T0 + timedelta(minutes=minutes + 10), summary="someone wins",
        players=[PlayerResult(seat, *r) for seat, r in enumerate(results)],
        log=log if isinstance(log, MoveLog) else list(log),
    )


def _instant(iso: str) -> datetime:
    """A stored time as an instant (SQLite keeps no offset: its times are UTC)."""
    moment = datetime.fromisoformat(iso)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def test_save_and_get_a_match(db):
    log = [
        Move(0, {"type": "play", "cards": [3, 7]}, 120, 35),
        Move(None, {"type": "auto_tap"}, 8_120, 0),
        Move(1, {"type": "tap"}, 9_001, 12),
    ]
    match_id = save_match(db, record=record(results=[("Ann", 0, 1, True), ("Bob", -4, 2, False)],
                                            log=log))
    assert isinstance(match_id, int)
    got = get_match(db, match_id=match_id)
    assert got["id"] == match_id and got["game"] == "panika"
    # The room's code is stored (for the site's operators) but never read out with the match:
    # no answer may show it (docs/protocol.md, "HTTP API").
    assert "room_code" not in got
    with db.engine.connect() as connection:
        assert connection.scalar(select(Match.room_code).where(Match.id == match_id)) == "ROOM"
    assert got["options"] == {"turn_seconds": 30, "nested": {"a": [1, 2]}}
    assert (got["seed"], got["summary"]) == ("0f" * 32, "someone wins")
    assert len(got["seed_hash"]) == 64
    assert _instant(got["started_at"]) == T0
    assert _instant(got["ended_at"]) == T0 + timedelta(minutes=10)
    assert got["players"] == [
        {"seat": 0, "nickname": "Ann", "score": 0, "rank": 1, "winner": True, "bot": None},
        {"seat": 1, "nickname": "Bob", "score": -4, "rank": 2, "winner": False, "bot": None},
    ]
    assert got["actions"] == [
        {"index": i, "seat": m.seat, "action": m.action, "at_ms": m.at_ms, "rtt_ms": m.rtt_ms}
        for i, m in enumerate(log)
    ]
    assert get_match(db, match_id=match_id + 1000) is None


def test_a_match_handed_over_as_the_rooms_move_log_is_stored_as_a_list_of_moves_would_be(db):
    """The room hands its ``MoveLog`` over (``MoveLog.snapshot``), whose JSON array goes into
    the ``log`` column as it is (``MatchRecord.log_json``): the same stored actions as the moves
    given one by one."""
    moves = [Move(0, {"type": "play", "cards": [3, 7]}, 120, 35), Move(None, {"type": "auto_tap"},
             8_120, 0), Move(2, {"type": "say", "text": "Grüße ☃"}, 9_001, 12)]
    results = [("Ann", 0, 1, True), ("Bob", -4, 2, False)]
    as_log = save_match(db, record=record(results=results, log=MoveLog(moves)))
    as_list = save_match(db, record=record(results=results, log=moves))
    got, expected = get_match(db, match_id=as_log), get_match(db, match_id=as_list)
    assert got["actions"] == expected["actions"] == [
        {"index": i, "seat": m.seat, "action": m.action, "at_ms": m.at_ms, "rtt_ms": m.rtt_ms}
        for i, m in enumerate(moves)]


def test_list_matches_newest_first_by_game_with_a_limit(db):
    ids = [save_match(db, record=record(game, results=[("A", 0, 1, True), ("B", -1, 2, False)],
                                        minutes=m))
           for game, m in (("panika", 0), ("panic_lab", 5), ("panika", 20), ("panika", 10))]
    everything = list_matches(db)
    assert [m["id"] for m in everything] == [ids[2], ids[3], ids[1], ids[0]]
    assert "actions" not in everything[0] and "seed" not in everything[0]
    assert [m["id"] for m in list_matches(db, game="panika")] == [ids[2], ids[3], ids[0]]
    assert [m["id"] for m in list_matches(db, game="panika", limit=2)] == [ids[2], ids[3]]
    assert list_matches(db, game="chess") == []
    assert everything[0]["players"][0]["nickname"] == "A"


def test_leaderboard_ranks_wins_then_fewer_matches(db):
    results = [
        [("Ann", 0, 1, True), ("Bob", -2, 2, False)],
        [("Bob", 0, 1, True), ("Cy", -2, 2, False), ("Ann", -3, 3, False)],
        [("Cy", 0, 1, True), ("Dee", 0, 1, True)],  # two winners share the win
        [("Eve", 0, 1, True)],
    ]
    for i, r in enumerate(results):
        save_match(db, record=record(results=r, minutes=i))
    save_match(db, record=record("panic_lab", results=[("Ann", 0, 1, True)]))
    board = leaderboard(db, game="panika")
    assert [(r["rank"], r["nickname"], r["wins"], r["played"]) for r in board] == [
        (1, "Dee", 1, 1), (2, "Eve", 1, 1), (3, "Ann", 1, 2), (4, "Bob", 1, 2),
        (5, "Cy", 1, 2),
    ]
    assert [r["nickname"] for r in leaderboard(db, game="panika", limit=2)] == ["Dee", "Eve"]
    assert leaderboard(db, game="panic_lab") == [
        {"rank": 1, "nickname": "Ann", "wins": 1, "played": 1}]
    assert leaderboard(db, game="chess") == []
    assert all(isinstance(r["wins"], int) and isinstance(r["played"], int) for r in board)


def test_deleting_a_match_deletes_its_players_and_its_log(db):
    keep = save_match(db, record=record(results=[("A", 0, 1, True)],
                                        log=[Move(0, {"type": "tap"}, 1, 1)]))
    gone = save_match(db, record=record(results=[("B", 0, 1, True)],
                                        log=[Move(0, {"type": "tap"}, 1, 1)]))
    with db.session() as session, session.begin():
        session.execute(delete(Match).where(Match.id == gone))
    with db.session() as session:
        assert session.scalar(select(func.count()).select_from(MatchPlayer)) == 1
        assert session.scalar(select(func.count()).select_from(Match)) == 1
    assert get_match(db, match_id=keep) is not None and get_match(db, match_id=gone) is None
    assert db.ping() is True


def test_saving_a_match_twice_stores_it_once(db):
    """A retried write (its first answer lost, or an outbox entry drained after a restart) finds
    the match already stored by its seed hash and stores nothing (issue 7, item 1)."""
    first = record(results=[("Ann", 0, 1, True), ("Bob", -1, 2, False)],
                   log=[Move(0, {"type": "tap"}, 1, 1)], seed_hash="ab" * 32)
    match_id = save_match(db, record=first)
    assert save_match(db, record=first) == match_id
    assert save_match(db, record=record(results=[("Cy", 0, 1, True)], seed_hash="ab" * 32)) \
        == match_id
    with db.session() as session:
        assert session.scalar(select(func.count()).select_from(Match)) == 1
        assert session.scalar(select(func.count()).select_from(MatchPlayer)) == 2
    assert [p["nickname"] for p in get_match(db, match_id=match_id)["players"]] == ["Ann", "Bob"]


def test_the_unique_seed_hash_settles_a_race_between_two_writers(db):
    """Two writers of the same matches at once (an outbox drained by two processes after a
    restart): each match is stored once, and both writers answer with its one id."""
    import threading

    same = [record(results=[("Ann", 0, 1, True), ("Bob", 1, 2, False)], minutes=n)
            for n in range(20)]
    answers: list[list[int]] = [[], []]

    def writer(found: list[int]) -> None:
        for match in same:
            found.append(save_match(db, record=match))

    threads = [threading.Thread(target=writer, args=(found,)) for found in answers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers[0] == answers[1] and len(set(answers[0])) == len(same)
    with db.session() as session:
        assert session.scalar(select(func.count()).select_from(Match)) == len(same)
        assert session.scalar(select(func.count()).select_from(MatchPlayer)) == 2 * len(same)


@pytest.mark.parametrize("match_id", [0, -1, 2**31, 2**63, 2**64 + 5, -(2**63) - 1])
def test_an_id_outside_the_column_is_no_match(db, match_id):
    """Ids beyond 32 or 64 bits never reach the database (issue 7, item 12)."""
    assert get_match(db, match_id=match_id) is None


@pytest.mark.parametrize("game", ["\x00", "panika\x00", "x" * 33, "Panika", "", "a b", "é"])
def test_a_malformed_game_id_finds_nothing(db, game):
    save_match(db, record=record(results=[("Ann", 0, 1, True)]))
    if game:
        assert list_matches(db, game=game) == []
    assert leaderboard(db, game=game) == []
