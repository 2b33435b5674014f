"""How the site's answers travel, on the live server (docs/decisions/0046 and 0047): compressed
as the client accepts, never twice and never a WebSocket; versioned assets cached for a year,
everything else revalidated; the manifest, the service worker and the offline pages; a title,
a description and, for an invite link, a preview of the room on every page."""

from __future__ import annotations

import gzip
import json
import re
import struct
from html import unescape

import brotli
import pytest
from starlette.applications import Starlette

from app.i18n import catalog_version
from app.web import compression
from tests.finished_matches import bot_match, store
from tests.live import Client, LiveServer, run_async

YEAR = "public, max-age=31536000, immutable"
VERSIONED = re.compile(r"\.[0-9a-f]{10}\.[a-z]+$")


@pytest.fixture(scope="module")
def live(tmp_path_factory):  # type: ignore[no-untyped-def]
    with LiveServer(tmp_path_factory.mktemp("web") / "var") as server:
        yield server


@pytest.fixture(scope="module")
def room(live) -> str:  # type: ignore[no-untyped-def]
    return live.create_room("panika", "Ann")["code"]


def _raw(http, path: str, accept: str):  # type: ignore[no-untyped-def]
    """``path`` asked with ``accept`` as ``Accept-Encoding``, the body left as sent."""
    with http.stream("GET", path, headers={"Accept-Encoding": accept}) as response:
        response.read_raw = b"".join(response.iter_raw())  # type: ignore[attr-defined]
        return response


def _body(response) -> bytes:  # type: ignore[no-untyped-def]
    raw = response.read_raw
    coding = response.headers.get("content-encoding")
    return brotli.decompress(raw) if coding == "br" else gzip.decompress(raw) \
        if coding == "gzip" else raw


def _vary(response) -> list[str]:  # type: ignore[no-untyped-def]
    return [v.strip().lower() for v in response.headers.get("vary", "").split(",") if v.strip()]


def _static_urls(page: str) -> list[str]:
    return re.findall(r'(?:href|src|data-module)="(/static/[^"]+)"', page)


def test_html_javascript_css_json_and_svg_come_in_brotli_or_gzip_as_the_client_accepts(live, room):
    with live.http() as http:
        page = http.get(f"/r/{room}").text
    script = next(u for u in _static_urls(page) if "/js/room." in u)
    paths = ["/", f"/r/{room}", "/api/games", f"/i18n/de.json?v={catalog_version('de')}",
             script, "/static/js/room.js", "/static/css/site.css", f"/api/rooms/{room}/qr.svg"]
    with live.http() as http:
        for path in paths:
            plain = _raw(http, path, "identity")
            assert "content-encoding" not in plain.headers, path
            assert len(plain.read_raw) >= 1024, path  # worth compressing
            for accept, coding in (("gzip, deflate, br, zstd", "br"), ("br;q=0, gzip", "gzip"),
                                   ("gzip", "gzip"), ("*", "br"), ("", None)):
                answer = _raw(http, path, accept)
                assert answer.headers.get("content-encoding") == coding, (path, accept)
                assert _body(answer) == plain.read_raw, (path, accept)
                if coding:
                    assert len(answer.read_raw) < len(plain.read_raw) * 0.6, (path, accept)
                    assert "accept-encoding" in _vary(answer), (path, accept)


def test_small_answers_and_pictures_go_out_as_they_are(live):
    with live.http() as http:
        urls = _static_urls(http.get("/").text)
    icon = next(u for u in urls if "apple-touch-icon" in u)
    favicon = next(u for u in urls if "favicon" in u)  # an SVG of 283 bytes
    with live.http() as http:
        for path in ("/healthz", favicon, icon, "/static/img/icon-512.png"):
            answer = _raw(http, path, "br, gzip")
            assert answer.status_code == 200 and "content-encoding" not in answer.headers, path


def test_the_replay_kept_compressed_is_not_compressed_again(live):
    """The answers about a match are kept in Brotli and gzip (app/api/finished/answers.py):
    each goes out in the form kept, once encoded."""
    log, outcome = bot_match("panika", bytes(range(3, 35)), 3)
    match_id = store(live.app.state.db, "panika", bytes(range(3, 35)), 3, log, outcome)
    with live.http() as http:
        answer = _raw(http, f"/api/matches/{match_id}/replay", "gzip, deflate, br, zstd")
        gzipped = _raw(http, f"/api/matches/{match_id}/replay", "gzip, deflate")
    assert answer.headers["content-encoding"] == "br"
    assert json.loads(brotli.decompress(answer.read_raw))["moves"]
    assert gzipped.headers["content-encoding"] == "gzip"
    assert json.loads(gzip.decompress(gzipped.read_raw))["moves"]


def test_a_websocket_passes_the_compression_untouched():
    """The middleware hands every scope that is not HTTP on as it came, with the very
    ``receive`` and ``send`` of the server: the upgrade and the frames of a WebSocket are the
    app's own (the room sockets do not even reach it: app/main.py serves ``/ws/`` before)."""
    seen = []

    async def app(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        seen.append((scope, receive, send))
        await send({"type": "websocket.send", "text": "x" * 5000})

    async def receive():  # type: ignore[no-untyped-def]
        return {"type": "websocket.connect"}

    sent = []

    async def send(message) -> None:  # type: ignore[no-untyped-def]
        sent.append(message)

    site = Starlette()
    site.add_route("/", lambda request: None)
    compression.install(site)
    middleware = site.build_middleware_stack()
    while not isinstance(middleware, compression.CompressMiddleware):
        middleware = middleware.app  # type: ignore[attr-defined]
    middleware.app = app
    scope = {"type": "websocket", "path": "/echo", "headers": [(b"accept-encoding", b"br, gzip")]}
    run_async(middleware(scope, receive, send))
    assert seen == [(scope, receive, send)]
    assert sent == [{"type": "websocket.send", "text": "x" * 5000}]


def test_a_room_socket_of_the_site_is_served_with_compression_on(live, room):
    client = Client(live, room)
    try:
        assert client.join("Bea")["member"]
        assert all(text.startswith("{") for text in client.raw)  # frames as the room sent them
    finally:
        client.close()


def test_versioned_urls_are_cached_for_a_year_and_everything_else_is_asked_again(live, room):
    with live.http() as http:
        page = http.get(f"/r/{room}")
        urls = _static_urls(page.text)
        assert urls and all(VERSIONED.search(u) for u in urls), urls
        for url in urls:
            answer = http.get(url)
            assert answer.status_code == 200 and answer.headers["cache-control"] == YEAR, url
        for path in ("/", f"/r/{room}", f"/r/{room}/table", "/matches", "/leaderboard",
                     "/games/panika/rules", "/offline/en", "/manifest.webmanifest", "/sw.js",
                     "/static/js/room.js", "/static/verify_match.py", "/i18n/en.json",
                     "/i18n/en.json?v=0123456789ab"):
            assert http.get(path).headers["cache-control"] == "no-cache", path
        current = f"/i18n/en.json?v={catalog_version('en')}"
        assert f'content="{current}"' in page.text
        assert http.get(current).headers["cache-control"] == YEAR
        # A page opened before a deploy may ask for a module of the build before: today's.
        script = next(u for u in urls if "/js/room." in u)
        old = http.get(VERSIONED.sub(".0123456789.js", script))
        assert old.status_code == 200 and old.headers["cache-control"] == "no-cache"
        assert old.content == http.get(script).content
        assert http.get("/static/js/nothing.0123456789.js").status_code == 404
        assert http.get("/static/js/nothing.js").status_code == 404
        # The versioned answer is the file as the registry rewrote it: its imports versioned.
        assert re.search(r'from "\./i18n\.[0-9a-f]{10}\.js"', http.get(script).text)


def test_every_page_names_its_assets_by_versioned_url(live, room):
    with live.http() as http:
        for path in ("/", f"/r/{room}", f"/r/{room}/table", "/matches", "/leaderboard",
                     "/games/panique/rules", "/offline/de", "/r/QQQQ", "/no-such-page"):
            urls = _static_urls(http.get(path).text)
            assert len(urls) >= 5, path  # favicon, touch icon, two stylesheets, a script
            assert all(VERSIONED.search(u) for u in urls), (path, urls)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_the_manifest_makes_the_site_an_installable_app(live):
    with live.http() as http:
        page = http.get("/").text
        assert '<link rel="manifest" href="/manifest.webmanifest">' in page
        answer = http.get("/manifest.webmanifest")
        assert answer.headers["content-type"] == "application/manifest+json"
        manifest = answer.json()
        assert manifest["name"] == manifest["short_name"] == "Panic Party"
        assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
        assert manifest["theme_color"] == manifest["background_color"] == "#1b1230"
        sizes = {}
        for icon in manifest["icons"]:
            assert icon["type"] == "image/png" and VERSIONED.search(icon["src"])
            width, height = _png_size(http.get(icon["src"]).content)
            assert icon["sizes"] == f"{width}x{height}"
            sizes[(width, icon["purpose"])] = icon["src"]
        assert {(192, "any"), (512, "any"), (512, "maskable")} <= set(sizes)
        touch = next(u for u in _static_urls(page) if "apple-touch-icon" in u)
        assert _png_size(http.get(touch).content) == (180, 180)
        german = http.get("/manifest.webmanifest", headers={"Accept-Language": "de"}).json()
        assert german["lang"] == "de" and "Partyspiele" in german["description"]


def _worker_lists(script: str) -> dict[str, object]:
    return {name: json.loads(re.search(rf"const {name} = (?:new Set\()?(.*?)\)?;\n",
                                       script)[1])  # type: ignore[index]
            for name in ("SHELL", "ASSETS", "OFFLINE")}


def test_the_service_worker_keeps_the_shell_and_assets_never_pages_api_rooms_or_matches(live):
    with live.http() as http:
        answer = http.get("/sw.js")
        assert answer.headers["content-type"].startswith("text/javascript")
        script = answer.text
        lists = _worker_lists(script)
        assert f'const VERSION = "{live.app.state.site_worker.version}"' in script
        assert lists["OFFLINE"] == {"en": "/offline/en", "de": "/offline/de"}
        shell, assets = lists["SHELL"], lists["ASSETS"]
        assert isinstance(shell, list) and isinstance(assets, list)
        assert set(shell) <= set(assets)
        for url in shell:
            assert http.get(url).status_code == 200, url
        assert any("/css/site." in u for u in shell) and any("/offline." in u for u in shell)
        for url in assets:
            assert re.match(r"/static/|/i18n/|/games/\w+/page/", url), url  # a game's too
            assert VERSIONED.search(url) or "?v=" in url, url
        worker = live.app.state.site_worker.script.decode()
        assert 'request.method !== "GET"' in worker and 'request.mode === "navigate"' in worker


def test_the_offline_page_speaks_its_language(live):
    with live.http() as http:
        for lang, heading in (("en", "No connection"), ("de", "Keine Verbindung")):
            answer = http.get(f"/offline/{lang}", headers={"Cookie": "lang=en" if lang == "de"
                                                                     else "lang=de"})
            assert answer.headers["content-language"] == lang
            assert f'<html lang="{lang}">' in answer.text and heading in answer.text
            assert "offline-retry" in answer.text


def _head_tags(page: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for tag in re.findall(r"<meta [^>]*>", page):
        key = re.search(r'(?:name|property)="([^"]+)"', tag)
        content = re.search(r'content="([^"]*)"', tag)
        if key and content:
            found.setdefault(key[1], []).append(unescape(content[1]))
    found["title"] = [unescape(t) for t in re.findall(r"<title>([^<]*)</title>", page)]
    return found


def test_every_page_has_one_title_and_one_description(live, room):
    log, outcome = bot_match("panic_lab", bytes(range(5, 37)), 2)
    match_id = store(live.app.state.db, "panic_lab", bytes(range(5, 37)), 2, log, outcome)
    with live.http() as http:
        for path in ("/", f"/r/{room}", f"/r/{room}/table", "/matches", f"/matches/{match_id}",
                     "/leaderboard", "/games/panika/rules", "/offline/en", "/r/QQQQ",
                     "/no-such-page"):
            tags = _head_tags(http.get(path).text)
            assert len(tags["title"]) == 1 and tags["title"][0].strip(), path
            assert len(tags["description"]) == 1 and len(tags["description"][0]) > 20, path
            assert len(tags["og:title"]) == 1 and len(tags["og:description"]) == 1, path


def test_an_invite_link_previews_the_game_the_room_and_its_host(live):
    code = live.create_room("panik_pilze", "Jörg")["code"]
    with live.http() as http:
        english = _head_tags(http.get(f"/r/{code}").text)
        german = _head_tags(http.get(f"/r/{code}", headers={"Accept-Language": "de"}).text)
    assert english["og:title"] == [f"Join Jörg's Panik Pilze room {code}"]
    assert english["description"] == english["og:description"]
    assert english["description"][0].startswith("Jörg invites you to play Panik Pilze")
    assert german["og:title"] == [f"Spiel Panik Pilze mit Jörg in Raum {code}"]
    assert german["description"][0].startswith("Jörg lädt dich zu Panik Pilze")
