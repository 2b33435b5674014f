"""The HTTP side against the live server: the JSON API, the pages, health and the schema."""

from __future__ import annotations

import asyncio
import html
import re
import secrets
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from app.db.matches import MatchRecord, PlayerResult, save_match
from app.engine import all_games, get_package
from app.games import load_all
from tests.live import LiveServer, run_async

load_all()
GAME_IDS = sorted(g.id for g in all_games())


@pytest.fixture
def http(server):
    with server.http() as client:
        yield client


def _store(server, game="panika", winner="Ann", loser="Bob", room="ABCD") -> int:
    now = datetime.now(UTC)
    record = MatchRecord(
        game=game, room_code=room, options={"turn_seconds": 30}, seed="ab" * 32,
        seed_hash=secrets.token_hex(32), started_at=now - timedelta(minutes=5), ended_at=now,
        summary=f"{winner} wins",
        players=[PlayerResult(0, winner, 0, 1, True), PlayerResult(1, loser, -3, 2, False)],
    )
    return save_match(server.app.state.db, record=record)


def test_games(http):
    games = http.get("/api/games").json()
    by_id = {g["id"]: g for g in games}
    assert set(by_id) == set(GAME_IDS)
    panika = by_id["panika"]
    assert (panika["min_players"], panika["max_players"], panika["open_table"]) == (2, 6, False)
    assert panika["options"]["properties"]["turn_seconds"]["minimum"] == 10
    assert http.get("/api/games/panika").json() == panika
    assert http.get("/api/games/chess").status_code == 404


def test_create_room(http, server):
    r = http.post("/api/rooms", json={"game": "panika", "nickname": " Ann "})
    assert r.status_code == 201
    body = r.json()
    assert len(body["code"]) == 4 and body["code"].isalpha() and body["code"].isupper()
    assert body["room_url"] == f"{server.base_url}/r/{body['code']}" == body["join_url"]
    room = server.registry.get(body["code"])
    assert room.state.members[body["member"]].nickname == "Ann" and room.state.host == body["member"]
    assert http.post("/api/rooms", json={"game": "chess", "nickname": "Ann"}).status_code == 404
    for bad in ({"game": "panika", "nickname": ""}, {"game": "panika", "nickname": "   "},
                {"game": "panika", "nickname": "N" * 25}, {"game": "panika"},
                {"game": "panika", "nickname": "Ann", "options": {"turn_seconds": 3}},
                {"game": "panika", "nickname": "Ann", "options": {"colour": "red"}},
                {"game": "panika", "nickname": "Ann", "public": "yes"},
                {"game": "panika", "nickname": "Ann", "public": 1},
                {"game": "panika", "nickname": "Ann", "colour": "red"}):
        assert http.post("/api/rooms", json=bad).status_code == 422, bad


def test_a_room_is_private_unless_its_host_lists_it(http, server, open_client):
    """The API's default, as the create form's (docs/decisions/0056): not in the lobby."""
    created = http.post("/api/rooms", json={"game": "panika", "nickname": "Ann"}).json()
    open_client(created["code"]).join(token=created["token"])
    assert server.registry.get(created["code"]).state.public is False
    assert created["code"] not in [r["code"] for r in http.get("/api/rooms").json()]


def test_one_idempotency_key_makes_one_room(http, server):
    """A double click and two concurrent requests with one key make one room, answered alike
    (docs/decisions/0057); another key, or another client with the key, makes another."""
    body = {"game": "panika", "nickname": "Ann"}
    key = {"Idempotency-Key": "form-" + secrets.token_urlsafe(16)}
    first = http.post("/api/rooms", json=body, headers=key)
    again = http.post("/api/rooms", json=body, headers=key)
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    other = http.post("/api/rooms", json=body, headers={"Idempotency-Key": "another-key"})
    assert other.json()["code"] != first.json()["code"]

    together = {"Idempotency-Key": secrets.token_urlsafe(16)}

    async def both() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as client:
            return await asyncio.gather(*(client.post("/api/rooms", json=body, headers=together)
                                          for _ in range(2)))

    answers = run_async(both())
    assert [a.status_code for a in answers] == [201, 201]
    assert answers[0].json() == answers[1].json()
    hosts = [r for r in server.registry.rooms.values()
             if r.state.members[r.state.host].nickname == "Ann"]
    assert len(hosts) == 3, "one room per key"
    for bad in ("short", "x" * 65, "has space in it", "semi;colon-key"):
        assert http.post("/api/rooms", json=body, headers={"Idempotency-Key": bad}
                         ).status_code == 422, bad


def test_a_refused_create_keeps_no_answer_for_its_key(http):
    key = {"Idempotency-Key": secrets.token_urlsafe(16)}
    refused = http.post("/api/rooms", json={"game": "chess", "nickname": "Ann"}, headers=key)
    assert refused.status_code == 404
    made = http.post("/api/rooms", json={"game": "panika", "nickname": "Ann"}, headers=key)
    assert made.status_code == 201


def test_room_creation_is_rate_limited_per_app(http, tmp_path):
    codes = [http.post("/api/rooms", json={"game": "panika", "nickname": "A"}).status_code
             for _ in range(31)]
    assert codes == [201] * 30 + [429]
    # Another app in the same process keeps its own count.
    with LiveServer(tmp_path / "other") as other, other.http() as client:
        created = client.post("/api/rooms", json={"game": "panika", "nickname": "A"})
        assert created.status_code == 201


def test_public_rooms_list_only_public_waiting_rooms(http, server, open_client):
    public = server.create_room("panika", "Ann", public=True)
    private = server.create_room("panika", "Pat")  # private unless the host lists it
    host = open_client(public["code"])
    host.join(token=public["token"])  # listed while a person is in it (docs/decisions/0044)
    open_client(private["code"]).join(token=private["token"])
    listed = http.get("/api/rooms").json()
    codes = [r["code"] for r in listed]
    assert public["code"] in codes and private["code"] not in codes
    entry = next(r for r in listed if r["code"] == public["code"])
    assert entry == {"code": public["code"], "game": "panika", "title": "Panika", "players": 1,
                     "max_players": 6, "host": "Ann", "public": True, "status": "waiting",
                     "members": [{"nickname": "Ann", "bot": False}]}
    # A room that is playing is no longer listed.
    open_client(public["code"]).join(nickname="Bob")
    host.send({"type": "start"})
    host.wait_for("state")
    assert public["code"] not in [r["code"] for r in http.get("/api/rooms").json()]


def test_room_summary_and_qr(http, server):
    created = server.create_room("panika", "Ann")
    code = created["code"]
    summary = http.get(f"/api/rooms/{code.lower()}").json()
    assert "type" not in summary
    assert summary["code"] == code and summary["status"] == "waiting"
    assert summary["host"] == created["member"] and summary["members"][0]["nickname"] == "Ann"
    assert summary["seed_hash"] is None and summary["match_id"] is None
    assert http.get("/api/rooms/ZZZZ").status_code == 404
    qr = http.get(f"/api/rooms/{code}/qr.svg")
    assert qr.status_code == 200 and qr.headers["content-type"].startswith("image/svg+xml")
    assert qr.text.lstrip().startswith("<svg") and qr.text.rstrip().endswith("</svg>")
    assert http.get("/api/rooms/ZZZZ/qr.svg").status_code == 404


def test_pages(http, server, open_client):
    created = server.create_room("panika", "Ann", public=True)
    code = created["code"]
    open_client(code).join(token=created["token"])  # the lobby lists it once a page is in it
    for path in ("/", f"/r/{code}", f"/r/{code.lower()}", f"/r/{code}/table", "/matches",
                 "/leaderboard", "/leaderboard?game=panika"):
        r = http.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-type"].startswith("text/html"), path
    assert code in http.get("/").text
    assert code in http.get(f"/r/{code}").text
    missing = http.get("/r/ZZZZ")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("text/html")
    assert "ZZZZ" in missing.text
    assert http.get("/r/ZZZZ/table").status_code == 404


def test_the_join_page_says_whose_room_which_game_and_who_is_in(http, server, open_client):
    """Rendered by the server in the reader's language (docs/decisions/0056); a running match
    is said too. Nothing of a seat's view is on it."""
    created = server.create_room("panika", "Ann")
    code = created["code"]
    host = open_client(code)
    host.join(token=created["token"])
    host.send({"type": "add_bot", "difficulty": "easy"})
    bot = host.wait_for("room", lambda f: any(m.get("bot") for m in f["members"]))
    bot_name = next(m["nickname"] for m in bot["members"] if m.get("bot"))
    page = html.unescape(http.get(f"/r/{code}").text)
    assert "Ann invites you to play Panika" in page and "Already in (2)" in page
    assert f"{bot_name} <span class=\"join-bot\">(computer player)</span>" in page
    assert "A match is under way" not in page
    with server.http() as german_client:
        german_client.cookies.set("lang", "de")
        german = html.unescape(german_client.get(f"/r/{code}").text)
    assert "Ann lädt dich zu Panika ein" in german and "(Computerspieler)" in german
    host.send({"type": "start"})
    host.wait_for("state")
    page = http.get(f"/r/{code}").text
    assert "A match is under way: you watch it" in html.unescape(page)
    match = server.registry.get(code).state.match
    assert match.seed.hex() not in page, "the secret seed stays on the server"


def test_matches_and_leaderboard(http, server):
    assert http.get("/api/matches").json() == []
    first = _store(server, winner="Ann", loser="Bob")
    second = _store(server, winner="Bob", loser="Ann")
    third = _store(server, winner="Bob", loser="Cy")
    _store(server, game="panic_lab", winner="Zed", loser="Yul")
    listed = http.get("/api/matches", params={"game": "panika"}).json()
    assert [m["id"] for m in listed] == [third, second, first]
    assert len(http.get("/api/matches").json()) == 4
    assert [m["id"] for m in http.get("/api/matches", params={"limit": 1}).json()] == [
        max(first, second, third) + 1]
    one = http.get(f"/api/matches/{first}").json()
    assert one["seed"] == "ab" * 32 and one["options"] == {"turn_seconds": 30}
    assert [p["nickname"] for p in one["players"]] == ["Ann", "Bob"] and one["actions"] == []
    assert http.get("/api/matches/9999").status_code == 404
    board = http.get("/api/leaderboard", params={"game": "panika"}).json()
    assert [(r["rank"], r["nickname"], r["wins"], r["played"]) for r in board] == [
        (1, "Bob", 2, 3), (2, "Ann", 1, 2), (3, "Cy", 0, 1)]
    assert http.get("/api/leaderboard").status_code == 422
    assert http.get("/api/matches", params={"limit": 0}).status_code == 422
    assert http.get("/api/matches", params={"limit": 500}).status_code == 422
    page = http.get(f"/matches/{first}")
    assert page.status_code == 200 and "Ann wins" in page.text
    assert http.get("/matches/9999").status_code == 404
    assert "Bob" in http.get("/leaderboard?game=panika").text


def test_health(http):
    r = http.get("/healthz")
    assert r.status_code == 200
    assert r.json()["database"] is True and r.json()["status"] == "ok"


def test_docs_list_the_json_routes(http):
    assert http.get("/docs").status_code == 200
    schema = http.get("/openapi.json").json()
    paths = set(schema["paths"])
    assert {"/api/games", "/api/games/{game_id}", "/api/rooms", "/api/rooms/{code}",
            "/api/rooms/{code}/qr.svg", "/api/matches", "/api/matches/{match_id}",
            "/api/leaderboard", "/healthz"} <= paths
    assert "post" in schema["paths"]["/api/rooms"]
    # The HTML pages stay out of the API schema.
    assert not paths & {"/", "/r/{code}", "/matches", "/leaderboard"}


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_rules_pages(http, game_id):
    """Every registered game has its rules page from its own package, in the site's frame with
    the game's own stylesheet, and its title (a missing template fails)."""
    package = get_package(game_id)
    assert (package.rules_folder / "en.html").exists()
    r = http.get(f"/games/{game_id}/rules")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert html.escape(package.game.title) in r.text
    style = re.search(rf'<link rel="stylesheet" href="(/games/{game_id}/page/style\.\w+\.css)"',
                      r.text)
    assert style and http.get(style[1]).status_code == 200


def test_rules_page_of_an_unknown_game(http):
    assert http.get("/games/chess/rules").status_code == 404


def test_lobby_shows_every_game_with_its_picture_and_the_games_in_the_works(http):
    page = http.get("/").text
    for game in http.get("/api/games").json():
        # The picture at its versioned URL (app/web/assets.py).
        picture = re.search(rf'src="(/games/{game["id"]}/page/picture\.[0-9a-f]{{10}}\.svg)"', page)
        assert f'data-game="{game["id"]}"' in page and picture
        assert http.get(picture[1]).status_code == 200
    for game in http.get("/api/games").json():
        assert game["title"] in page
        assert f'class="btn create-room" data-game="{game["id"]}"' in page
    assert "coming soon" not in page
