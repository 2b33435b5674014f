"""The site's own pages: the match as people read it, the error page, offline API docs."""

from __future__ import annotations

import hashlib
import re
from html import unescape
from datetime import UTC, datetime, timedelta

from app.config import PROJECT_ROOT
from app.db.matches import MatchRecord, PlayerResult, save_match
from app.engine import Move, SeededRng, get_game

SEED = bytes(range(32))


def _counter_match(server) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """A real two-seat counter match, played in-process until seat 1 bursts the counter, then
    the system's new round; stored as a room stores it. Returns (match id, burst number)."""
    game = get_game("panika_counter")
    rng = SeededRng(SEED)
    state = game.setup(2, game.parse_options({}), rng)
    log, at = [], 0
    while state.phase != "burst":
        seat = len(log) % 2 if state.counter < state.burst_at - 1 else 1
        action = {"type": "tap"}
        at += 700
        game.step(state, Move(seat, game.parse_action(action), at, 20), rng)
        log.append(Move(seat, action, at, 20))
    game.step(state, Move(None, game.parse_action({"type": "new_round"}), at + 3000), rng)
    log.append(Move(None, {"type": "new_round"}, at + 3000, 0))
    now = datetime.now(UTC)
    record = MatchRecord(
        game="panika_counter", room_code="WXYZ", options={}, seed=SEED.hex(),
        seed_hash=hashlib.sha256(SEED).hexdigest(), started_at=now - timedelta(seconds=252),
        ended_at=now, summary="", log=log,
        # Seat 1's nickname looks like a seat marker: it must be shown as typed, never expanded.
        players=[PlayerResult(0, "Ann", 5, 1, True), PlayerResult(1, "{seat:0}", -1, 2, False)],
    )
    return save_match(server.app.state.db, record=record), state.last_burst["number"]


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def test_the_match_page_reads_as_a_story(server):
    match_id, burst = _counter_match(server)
    with server.http() as http:
        r = http.get(f"/matches/{match_id}")
        assert r.status_code == 200
        page, text = r.text, _text(r.text)
    assert "Panika counter" in text and f"match {match_id}" in text
    assert "lasted 4 min 12 s" in text
    # Standings: rank, name, score, the winner marked.
    assert re.search(r"1\. rank 1: Ann winner 5 points", text), text
    assert re.search(r"2\. rank 2: \{seat:0\} -1 points", text), text
    # The moves: time into the match, who, what, in words (no JSON).
    assert "0:00.7 Ann taps" in text and "0:01.4 {seat:0} taps" in text
    assert f"{{seat:0}} bursts the counter at {burst}!" in text
    assert f"Ann bursts the counter at {burst}" not in text
    assert "the game Round 2" in text
    assert '{"type"' not in page and "&#34;type&#34;" not in page
    # Fairness: the seed, its hash, that they fit, and how to check it.
    assert SEED.hex() in page and hashlib.sha256(SEED).hexdigest() in page
    assert "The seed's SHA-256 is the hash shown at the start." in text
    for link in ('href="/static/verify_match.py"', 'href="/docs/fairness.md"',
                 f'href="/api/matches/{match_id}"'):
        assert link in page
    assert f"{server.base_url}/api/matches/{match_id}" in page
    # The whole check, from a clone of the site (docs/fairness.md, "Checking a match").
    assert f"python3 -m app verify {server.base_url}/api/matches/{match_id}" in page


def test_the_match_page_in_german(server):
    match_id, _ = _counter_match(server)
    with server.http() as http:
        text = _text(http.get(f"/matches/{match_id}", headers={"Accept-Language": "de"}).text)
    assert f"Partie {match_id}" in text and "Dauer 4 min 12 s" in text
    assert "Ann tippt" in text and "5 Punkte" in text and "das Spiel" in text


def test_a_match_that_does_not_replay_is_told_from_its_actions(server):
    now = datetime.now(UTC)
    record = MatchRecord(
        game="panic_lab", room_code="ABCD", options={}, seed="ab" * 32, seed_hash="cd" * 32,
        started_at=now - timedelta(seconds=12), ended_at=now, summary="Ann wins",
        players=[PlayerResult(0, "Ann", 1, 1, True), PlayerResult(1, "Bob", 0, 2, False)],
        log=[Move(0, {"type": "claim", "tile": 7}, 4200, 30)],
    )
    match_id = save_match(server.app.state.db, record=record)
    with server.http() as http:
        text = _text(http.get(f"/matches/{match_id}").text)
    assert "0:04.2 Ann claims tile 7" in text and "lasted 12 s" in text
    assert "is NOT the hash shown at the start" in text


def test_the_matches_list_links_each_match_and_says_how_it_ended(server):
    match_id, _ = _counter_match(server)  # stored with no ending, as before endings were named
    now = datetime.now(UTC)
    ended = save_match(server.app.state.db, record=MatchRecord(
        game="panik_pilze", room_code="ABCD", options={}, seed="ef" * 32, seed_hash="01" * 32,
        started_at=now - timedelta(seconds=90), ended_at=now, ending="pile_empty",
        details={"n": 11}, log=[],
        players=[PlayerResult(0, "Cleo", 11, 1, True), PlayerResult(1, "Dan", 4, 2, False)]))
    with server.http() as http:
        page = http.get("/matches").text
        german = _text(http.get("/matches", headers={"Accept-Language": "de"}).text)
    assert f'href="/matches/{match_id}"' in page and f'href="/matches/{ended}"' in page
    assert "<table" not in page
    assert "Ann wins!" in _text(page)
    assert "The pile is empty: Cleo wins with 11 points" in _text(page)
    assert "Der Stapel ist leer: Cleo gewinnt mit 11 Punkten" in german and "Ann gewinnt!" in german


def test_missing_things_answer_with_the_sites_error_page_and_json_under_api(server):
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    with server.http() as http:
        for path, heading in (("/matches/999999", "There is no match 999999"),
                              ("/games/nope/rules", "There is no game \u201cnope\u201d"),
                              ("/no/such/page", "Page not found"),
                              ("/matches/abc", "Page not found"),
                              ("/matches/99999999999999999999999", "There is no match"),
                              ("/matches/-1", "There is no match -1")):
            r = http.get(path, headers=browser)
            assert r.status_code == 404, path
            assert r.headers["content-type"].startswith("text/html"), path
            assert heading in r.text and 'class="site-header"' in r.text, path
        german = http.get("/no/such/page", headers={**browser, "Accept-Language": "de"})
        assert german.status_code == 404 and "Seite nicht gefunden" in german.text
        for path in ("/api/matches/999999", "/api/games/nope", "/api/nope", "/api/matches/abc"):
            r = http.get(path, headers=browser)
            assert r.status_code in (404, 422), path
            assert r.headers["content-type"].startswith("application/json"), path
            assert "detail" in r.json()
        # A client that asks for JSON only gets JSON anywhere.
        r = http.get("/no/such/page", headers={"Accept": "application/json"})
        assert r.status_code == 404 and r.json() == {"detail": "Not Found"}


def test_docs_work_with_no_internet(server):
    with server.http() as http:
        for path in ("/docs", "/redoc"):
            page = http.get(path).text
            urls = re.findall(r'(?:src|href)\s*=\s*["\']([^"\']+)', page)
            urls += re.findall(r"url:\s*'([^']+)'", page)
            assert urls, path
            for url in urls:
                assert url.startswith("/"), (path, url)
                assert http.get(url).status_code == 200, (path, url)
            assert not re.search(r"https?://", page), path
        assert http.get("/openapi.json").json()["info"]["title"] == "Panic Party"


def test_the_fairness_document_is_served_when_present(server):
    doc = PROJECT_ROOT / "docs" / "fairness.md"
    with server.http() as http:
        r = http.get("/docs/fairness.md")
    if doc.is_file():
        assert r.status_code == 200 and r.text == doc.read_text(encoding="utf-8")
    else:
        assert r.status_code == 404 and "Page not found" in r.text


def test_a_real_panic_lab_match_is_told_by_the_games_own_events():
    """Panic Lab played in-process (claims on random tiles, the system's timer actions) until
    someone finds the amoeba; every logged move reads as words, seats named."""
    import random

    from app.api.finished.story import match_story
    from app.games import load_all

    load_all()
    game = get_game("panic_lab")
    options = {"target_tokens": 1}
    rng, pick = SeededRng(SEED), random.Random(7)
    state = game.setup(2, game.parse_options(options), rng)
    actions, at = [], 0
    while game.outcome(state) is None and len(actions) < 5000:
        at += 500
        moved = False
        for seat in (0, 1):
            raw = {"type": "claim", "tile": pick.randrange(25)}
            try:
                game.step(state, Move(seat, game.parse_action(raw), at), rng)
            except Exception:  # noqa: BLE001 - not this seat's moment, or not a tile now
                continue
            actions.append({"seat": seat, "action": raw, "at_ms": at})
            moved = True
            break
        if not moved:
            timer = game.timers(state)[0]
            game.step(state, Move(None, game.parse_action(timer.action), at), rng)
            actions.append({"seat": None, "action": timer.action, "at_ms": at})
    outcome = game.outcome(state)
    assert outcome is not None
    match = {"id": 1, "game": "panic_lab", "seed": SEED.hex(), "options": options,
             "players": [{"seat": 0, "nickname": "Ann"}, {"seat": 1, "nickname": "Bob"}],
             "actions": actions}
    story = match_story(match, "en")
    assert len(story) == len(actions)
    assert all(line.text and "{seat:" not in line.text for line in story)
    winner = ["Ann", "Bob"][outcome.winners[0]]
    assert any(line.who == winner and line.text for line in story)
    assert any(line.seat is None for line in story)


def test_any_http_error_of_a_page_is_the_sites_error_page(server):
    from fastapi import HTTPException

    def unavailable() -> None:
        raise HTTPException(503, "database unavailable")

    server.app.add_api_route("/__down", unavailable)
    server.app.add_api_route("/api/__down", unavailable)
    with server.http() as http:
        page = http.get("/__down", headers={"Accept": "text/html"})
        assert page.status_code == 503 and "Back in a moment" in page.text
        german = http.get("/__down", headers={"Accept": "text/html", "Accept-Language": "de"})
        assert "Gleich wieder da" in german.text
        api = http.get("/api/__down", headers={"Accept": "text/html"})
        assert api.status_code == 503 and api.json() == {"detail": "database unavailable"}
        teapot = http.post("/matches", headers={"Accept": "text/html"})
        assert teapot.status_code == 405 and "Something went wrong (405)" in teapot.text
        assert teapot.headers["allow"] == "GET"


def test_the_error_template_takes_the_other_handlers_names_too(server):
    """A handler that renders error.html itself with status_code/title/message (the database's
    503 page) gets the same page."""
    from starlette.requests import Request

    scope = {"type": "http", "method": "GET", "path": "/x", "headers": [], "query_string": b"",
             "app": server.app}
    template = server.app.state.templates.get_template("error.html")
    html = template.render({"request": Request(scope), "status_code": 503,
                            "title": "Database unavailable", "message": "Try again soon."})
    assert "<h1>Database unavailable</h1>" in html and "Try again soon." in html
    assert '<p class="error-status">503</p>' in html
