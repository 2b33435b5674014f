"""Links that work from a phone: the LAN switch, PUBLIC_URL, and forwarded headers trusted only
from the configured proxies (README, "Playing together")."""

from __future__ import annotations

import io
import os
import re
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import segno
import uvicorn
from fastapi import Request

from app import __main__ as launcher
from app.network import _usable, find_lan_address, is_loopback_host
from app.server import listen_host, start_message, trusted_proxies, uvicorn_options
from tests.live import LiveServer


class ConfiguredServer(LiveServer):
    """The live server run with the uvicorn options ``app/server.py`` derives from the settings
    (trusted proxies included), plus a route that shows what the app saw of the client."""

    def __init__(self, var_dir, **settings: Any) -> None:  # type: ignore[no-untyped-def]
        super().__init__(var_dir, **settings)

        @self.app.get("/__seen")
        def seen(request: Request) -> dict[str, Any]:
            return {"client": request.client.host if request.client else None,
                    "scheme": request.url.scheme}

        options = {**uvicorn_options(self.settings), "host": "127.0.0.1", "port": self.port,
                   "log_level": "warning", "lifespan": "on"}
        self.server = uvicorn.Server(uvicorn.Config(self.app, **options))
        self.thread = threading.Thread(target=self.server.run, daemon=True)


FORGED = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}


@pytest.fixture
def untrusting(tmp_path) -> Iterator[ConfiguredServer]:
    """Trusts only a proxy at 10.9.8.7: the tests' own requests (from 127.0.0.1) are not it."""
    with ConfiguredServer(tmp_path / "u", forwarded_allow_ips="10.9.8.7") as live:
        yield live


@pytest.fixture
def trusting(tmp_path) -> Iterator[ConfiguredServer]:
    """The default: a proxy on this machine (127.0.0.1) is trusted; it passes the public name
    (an allowed host, app/hosts.py)."""
    with ConfiguredServer(tmp_path / "t", allowed_hosts="party.example.org") as live:
        yield live


def test_forged_forwarded_headers_from_an_untrusted_address_change_nothing(untrusting):
    with untrusting.http() as http:
        assert http.get("/__seen", headers=FORGED).json() == {"client": "127.0.0.1",
                                                                "scheme": "http"}
        created = http.post("/api/rooms", json={"game": "panika", "nickname": "Ann"},
                            headers=FORGED).json()
    assert created["join_url"] == f"{untrusting.base_url}/r/{created['code']}"


def test_forwarded_headers_from_a_trusted_proxy_are_applied(trusting):
    with trusting.http() as http:
        assert http.get("/__seen", headers=FORGED).json() == {"client": "203.0.113.9",
                                                                "scheme": "https"}
        created = http.post("/api/rooms", json={"game": "panika", "nickname": "Ann"},
                            headers={**FORGED, "Host": "party.example.org"}).json()
    assert created["join_url"] == f"https://party.example.org/r/{created['code']}"
    assert created["room_url"] == created["join_url"]


def _qr_encodes(svg: bytes, url: str) -> bool:
    """True when the QR svg's modules are those of ``url`` (at any error-correction level)."""
    paths = re.findall(rb'class="qrline"[^>]* d="([^"]+)"', svg)
    assert paths, svg[:200]
    for level in "lmqh":
        buffer = io.BytesIO()
        segno.make(url, error=level).save(buffer, kind="svg", scale=6, border=2, xmldecl=False)
        if re.findall(rb'class="qrline"[^>]* d="([^"]+)"', buffer.getvalue()) == paths:
            return True
    return False


def test_public_url_is_in_join_url_and_the_qr_code(tmp_path):
    with LiveServer(tmp_path / "p", public_url="https://party.example.org/",
                    allowed_hosts="mirror.example") as live:
        created = live.create_room("panika", "Ann")
        url = f"https://party.example.org/r/{created['code']}"
        assert created["join_url"] == url == created["room_url"]
        with live.http() as http:
            qr = http.get(f"/api/rooms/{created['code']}/qr.svg")
            assert qr.status_code == 200
            assert _qr_encodes(qr.content, url)
            assert not _qr_encodes(qr.content, f"{live.base_url}/r/{created['code']}")
            # Another name the site answers does not move the links off PUBLIC_URL.
            other = http.post("/api/rooms", json={"game": "panika", "nickname": "Bo"},
                              headers={"Host": "mirror.example"}).json()
            assert other["join_url"].startswith("https://party.example.org/r/")


def test_lan_puts_the_machines_address_in_links_opened_on_this_machine(tmp_path):
    with LiveServer(tmp_path / "l", lan=True, lan_address="192.168.1.50",
                    allowed_hosts="laptop.local") as live:
        created = live.create_room("panika", "Ann")
        assert created["join_url"] == f"http://192.168.1.50:{live.port}/r/{created['code']}"
        with live.http() as http:
            qr = http.get(f"/api/rooms/{created['code']}/qr.svg").content
            assert _qr_encodes(qr, created["join_url"])
            # A phone that came in through a name keeps that name in its links.
            named = http.post("/api/rooms", json={"game": "panika", "nickname": "Bo"},
                              headers={"Host": "laptop.local:8000"}).json()
            assert named["join_url"] == f"http://laptop.local:8000/r/{named['code']}"


def test_without_lan_or_public_url_links_keep_the_requested_address(server):
    created = server.create_room("panika", "Ann")
    assert created["join_url"] == f"{server.base_url}/r/{created['code']}"


def test_lan_listens_on_every_interface_and_prints_the_address():
    from app.config import Settings

    lan = Settings(lan=True, lan_address="10.0.0.7", port=8123)
    assert listen_host(lan) == "0.0.0.0" == uvicorn_options(lan)["host"]
    assert "http://10.0.0.7:8123" in start_message(lan)
    plain = Settings(host="127.0.0.1", port=8000)
    assert listen_host(plain) == "127.0.0.1"
    assert start_message(plain) == "Panic Party at http://127.0.0.1:8000"
    assert "every interface" in start_message(Settings(host="0.0.0.0"))
    hosted = Settings(public_url="https://party.example.org", forwarded_allow_ips="10.0.0.2, 10.1.0.0/16")
    assert "https://party.example.org" in start_message(hosted)
    assert trusted_proxies(hosted) == ["10.0.0.2", "10.1.0.0/16"]
    assert uvicorn_options(Settings())["forwarded_allow_ips"] == ["127.0.0.1"]


def test_serve_takes_only_the_lan_switch(capsys):
    assert launcher._serve(["--public"]) == 2
    assert "--lan" in capsys.readouterr().out


def test_the_lan_address_is_usable_and_never_loopback():
    found = find_lan_address()
    assert found is None or (_usable(found) and not is_loopback_host(found))
    for bad in ("127.0.0.1", "0.0.0.0", "169.254.1.1", "224.0.0.1", "not-an-ip"):
        assert not _usable(bad)
    assert _usable("192.168.1.20") and _usable("10.1.2.3")
    for loop in ("localhost", "127.0.0.1", "[::1]", "app.localhost"):
        assert is_loopback_host(loop)
    assert not is_loopback_host("192.168.1.20") and not is_loopback_host("party.example.org")


def test_public_url_must_be_a_whole_address():
    from pydantic import ValidationError

    from app.config import Settings

    assert Settings(public_url="https://party.example.org/").public_url == "https://party.example.org"
    assert Settings(public_url="http://10.0.0.5:8000/party").public_url == "http://10.0.0.5:8000/party"
    for bad in ("party.example.org", "ftp://party.example.org", "https://", "https://a b.org"):
        with pytest.raises(ValidationError):
            Settings(public_url=bad)


def test_the_room_page_gets_its_links_at_the_public_address(tmp_path):
    """The room page's invite links (``join_url``, ``table_url``) come from app/api/urls.py."""
    seen: dict[str, Any] = {}

    with LiveServer(tmp_path / "r", lan=True, lan_address="192.168.1.50") as live:
        created = live.create_room("panika", "Ann")
        templates = live.app.state.templates
        original = templates.TemplateResponse

        def spy(request, name, context=None, **kwargs):  # type: ignore[no-untyped-def]
            seen.update(context or {})
            return original(request, name, context, **kwargs)

        templates.TemplateResponse = spy
        with live.http() as http:
            assert http.get(f"/r/{created['code']}").status_code == 200
    base = f"http://192.168.1.50:{live.port}"
    assert seen["join_url"] == f"{base}/r/{created['code']}" == created["join_url"]
    assert seen["table_url"] == f"{base}/r/{created['code']}/table"


def test_with_public_url_no_page_link_follows_the_host_header(tmp_path):
    """Issue 25, item 9: with PUBLIC_URL set, a request with another ``Host`` (one the site
    answers too) gets pages whose stylesheets, scripts and links are all at PUBLIC_URL, and the
    QR code (whose link is at PUBLIC_URL too) may be cached by anyone."""
    with LiveServer(tmp_path / "h", public_url="https://party.example.org",
                    allowed_hosts="mirror.example") as live:
        code = live.create_room("panika", "Ann")["code"]
        with live.http() as http:
            for path in ("/", f"/r/{code}", f"/r/{code}/table", "/matches", "/leaderboard?game=panika"):
                page = http.get(path, headers={"Host": "mirror.example"})
                assert page.status_code == 200, path
                assert "mirror.example" not in page.text, path
                hrefs = re.findall(r'(?:href|src)="([^"]+/static/[^"]+)"', page.text)
                assert hrefs and all(h.startswith("https://party.example.org/static/")
                                     for h in hrefs), (path, hrefs)
                assert "Host" not in page.headers["vary"]
            qr = http.get(f"/api/rooms/{code}/qr.svg", headers={"Host": "mirror.example"})
            assert qr.headers["cache-control"] == "public, max-age=3600"
            assert _qr_encodes(qr.content, f"https://party.example.org/r/{code}")


def test_without_public_url_pages_link_root_relative_and_the_qr_code_varies_by_host(tmp_path):
    """Issue 25, item 9: without PUBLIC_URL the pages' assets are root-relative paths (no
    address a ``Host`` header could choose); what does follow the request's address (the invite
    links, the QR code) says ``Vary: Host``, and the QR code is for the browser's cache only."""
    with LiveServer(tmp_path / "v", allowed_hosts="mirror.example") as server:
        _root_relative_and_varying(server)


def _root_relative_and_varying(server: LiveServer) -> None:
    code = server.create_room("panika", "Ann")["code"]
    with server.http() as http:
        page = http.get(f"/r/{code}", headers={"Host": "mirror.example"})
        stylesheets = re.findall(r'href="([^"]*css/site\.[0-9a-f]{10}\.css)"', page.text)
        assert len(stylesheets) == 1 and stylesheets[0].startswith("/static/css/site.")
        assert not re.search(r'(?:href|src)="https?://mirror\.example/static/', page.text)
        assert "Host" in page.headers["vary"]
        qr = http.get(f"/api/rooms/{code}/qr.svg")
        assert qr.headers["cache-control"] == "private, max-age=3600"
        assert [v.strip() for v in qr.headers["vary"].split(",")] in (["Host"], ["Host", "Accept-Encoding"])


def test_the_test_command_keeps_compiled_modules_beside_them(monkeypatch):
    """``python3 -m app test`` keeps bytecode even where the environment asks for none, in the
    ignored ``__pycache__/`` folders where the installer compiled the dependencies, so that its
    processes compile neither those nor the project's modules again."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    launcher._keep_bytecode()
    assert "PYTHONDONTWRITEBYTECODE" not in os.environ and sys.dont_write_bytecode is False
    assert "PYTHONPYCACHEPREFIX" not in os.environ and sys.pycache_prefix is None
    assert "__pycache__/" in (launcher.ROOT / ".gitignore").read_text().splitlines()
