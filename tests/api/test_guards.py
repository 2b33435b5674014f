"""The guards outside the site (app/api/guards.py, app/hosts.py; docs/decisions/0043): the
security headers on every HTTP response, the Host allow-list (DNS rebinding), WebSocket upgrades
from other sites' pages refused before they are accepted, and no server banner."""

from __future__ import annotations

import base64
import hashlib
import re
import socket
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from app.config import Settings
from app.hosts import HostPolicy, split_host, split_origin
from app.server import uvicorn_options
from tests.api.test_urls import ConfiguredServer
from tests.live import LiveServer

SITE_DIRECTIVES = ("default-src 'self'", "script-src 'self'", "style-src 'self'",
                   "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'",
                   "form-action 'self'", "connect-src 'self'", "img-src 'self'",
                   "worker-src 'self'", "manifest-src 'self'")


def directives(policy: str) -> dict[str, str]:
    parts = (d.strip().split(None, 1) for d in policy.split(";") if d.strip())
    return {p[0]: p[1] if len(p) > 1 else "" for p in parts}


def assert_guarded(headers: Any, what: str) -> None:
    policy = directives(headers["content-security-policy"])
    for directive in SITE_DIRECTIVES:
        name, value = directive.split(" ", 1)
        assert policy.get(name) == value, (what, name, policy.get(name))
    assert headers["x-frame-options"] == "DENY", what
    assert headers["x-content-type-options"] == "nosniff", what
    assert headers["referrer-policy"] == "same-origin", what
    assert headers["cross-origin-opener-policy"] == "same-origin", what


def refused_count(server: LiveServer, reason: str) -> float:
    with server.http() as http:
        text = http.get("/metrics").text
    found = re.search(rf'^panic_party_refused_requests_total{{reason="{reason}"}} (\S+)$',
                      text, re.M)
    return float(found.group(1)) if found else 0.0


@pytest.fixture
def site(tmp_path):  # type: ignore[no-untyped-def]
    live = LiveServer(tmp_path / "var")

    @live.app.get("/api/__broken")
    def broken() -> None:
        raise RuntimeError("a bug")

    with live:
        yield live


def test_every_response_carries_the_security_headers(site):
    code = site.create_room("panika", "Ann")["code"]
    with site.http() as http:
        for path, status in (("/", 200), (f"/r/{code}", 200), (f"/r/{code}/table", 200),
                             ("/matches", 200), ("/leaderboard", 200),
                             ("/games/panika/rules", 200), ("/nowhere", 404),
                             ("/api/nowhere", 404), ("/api/games", 200), ("/healthz", 200),
                             ("/static/js/dom.js", 200), ("/static/img/favicon.svg", 200),
                             (f"/api/rooms/{code}/qr.svg", 200), ("/i18n/en.json", 200)):
            response = http.get(path)
            assert response.status_code == status, path
            assert_guarded(response.headers, path)
        assert_guarded(http.head("/").headers, "HEAD /")
        # Raised past every handler: the error middleware's 500 goes through the guards too.
        crashed = http.get("/api/__broken")
        assert crashed.status_code == 500
        assert_guarded(crashed.headers, "a 500")


def test_the_api_documentation_allows_its_inline_script_by_hash_only(site):
    with site.http() as http:
        for path in ("/docs", "/redoc"):
            page = http.get(path)
            assert page.status_code == 200, path
            policy = directives(page.headers["content-security-policy"])
            scripts = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", page.text, re.S)
            hashes = {"'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()
                      + "'" for s in scripts}
            assert set(policy["script-src"].split()) == {"'self'", *hashes}, path
            assert "'unsafe-inline'" not in policy["script-src"] and "unsafe-eval" not in str(policy)
            assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"
            assert page.headers["x-frame-options"] == "DENY"
        assert scripts == [] and len(hashes) == 0  # ReDoc: its one script is a file
        # ...served without the one address of another server it held (its maker's logo).
        redoc_js = http.get("/docs-redoc.js")
        assert redoc_js.status_code == 200 and "Redoc" in redoc_js.text
        assert "cdn.redoc.ly" not in redoc_js.text
        swagger = http.get("/docs")
        assert len(re.findall(r"<script(?![^>]*\bsrc=)", swagger.text)) == 1


def test_a_host_the_site_does_not_answer_is_refused_before_anything_reads_it(site):
    """DNS rebinding: a page of evil.example, its name pointed at this machine, asks for
    ``/metrics`` (served to the loopback) with ``Host: evil.example``: refused with 400."""
    before = refused_count(site, "host")
    with site.http() as http:
        for host in ("evil.example", f"evil.example:{site.port}", "127.0.0.1.evil.example",
                     "", "local host"):
            for path in ("/metrics", "/", "/api/rooms", "/nowhere"):
                refused = http.get(path, headers={"Host": host})
                assert refused.status_code == 400, (host, path)
                assert refused.text == "this server does not answer for that host name\n"
                assert_guarded(refused.headers, f"400 for {host}")
        for host in (f"127.0.0.1:{site.port}", "localhost", f"LOCALHOST:{site.port}",
                     f"[::1]:{site.port}", "127.0.0.1."):
            assert http.get("/metrics", headers={"Host": host}).status_code == 200, host
        # An orchestrator's health probe names the container's own address.
        assert http.get("/healthz", headers={"Host": "10.1.2.3:8000"}).status_code == 200
    assert refused_count(site, "host") >= before + 20


def test_allowed_hosts_names_more_hosts_and_star_any(tmp_path):
    with LiveServer(tmp_path / "a", allowed_hosts="party.example.org, *.lan.example") as live:
        with live.http() as http:
            for host, status in (("party.example.org", 200), ("PARTY.example.org:443", 200),
                                 ("tv.lan.example", 200), ("lan.example", 400),
                                 ("other.example.org", 400)):
                assert http.get("/", headers={"Host": host}).status_code == status, host
    anything = HostPolicy.from_settings(Settings(allowed_hosts="*"))
    assert anything.allows("anything.example") and anything.allows(None)


def test_the_allowed_hosts_follow_the_settings(monkeypatch):
    monkeypatch.setattr("app.hosts.lan_address", lambda: "192.168.1.20")
    monkeypatch.setattr("app.hosts.socket.gethostname", lambda: "Party-Laptop")
    local = HostPolicy.from_settings(Settings())
    assert local.names == {"localhost", "127.0.0.1", "::1"}
    assert not local.allows("192.168.1.20:8000") and not local.allows(None)
    hosted = HostPolicy.from_settings(Settings(public_url="https://party.example.org"))
    assert hosted.allows("party.example.org") and not hosted.allows("example.org")
    lan = HostPolicy.from_settings(Settings(lan=True))
    assert {"192.168.1.20", "party-laptop", "party-laptop.local"} <= lan.names
    chosen = HostPolicy.from_settings(Settings(lan=True, lan_address="10.0.0.7"))
    assert chosen.allows("10.0.0.7:8000") and not chosen.allows("192.168.1.20:8000")
    every = HostPolicy.from_settings(Settings(host="0.0.0.0"))
    assert every.allows("192.168.1.20:8000") and every.allows("party-laptop.local:8000")
    one = HostPolicy.from_settings(Settings(host="10.9.8.7"))
    assert one.allows("10.9.8.7:8000") and not one.allows("192.168.1.20")
    with pytest.raises(ValueError, match="ALLOWED_HOSTS"):
        HostPolicy.from_settings(Settings(allowed_hosts="https://x.example/"))


def test_host_and_origin_headers_are_read_strictly():
    assert split_host("[::1]:8000") == ("::1", 8000)
    assert split_host("Example.ORG.") == ("example.org", None)
    for bad in ("", "[::1", "[nope]:80", "a:b", "a:80:90", "a b", "x@y", ":80", "a:1234567"):
        assert split_host(bad) is None, bad
    assert split_origin("https://Party.example.org") == ("https", "party.example.org", 443)
    assert split_origin("http://127.0.0.1:8000") == ("http", "127.0.0.1", 8000)
    for bad in ("null", "file://", "https://x.example/path", "ftp://x.example", "x.example",
                "http://x.example:99999"):
        assert split_origin(bad) is None, bad


def test_which_origins_may_open_a_websocket():
    policy = HostPolicy.from_settings(Settings(public_url="https://party.example.org",
                                               allowed_hosts="tv.example, *.lan.example"))
    ok = policy.origin_allowed
    assert ok(None, "anything")  # not a browser
    assert ok("http://127.0.0.1:8000", "127.0.0.1:8000")  # the page's own address
    assert ok("https://party.example.org", "party.example.org")  # default port
    assert not ok("http://127.0.0.1:8001", "127.0.0.1:8000")  # another server on the machine
    assert not ok("http://party.example.org:8080", "party.example.org")
    assert ok("https://party.example.org", "app1:8000")  # a proxy that renames the Host
    assert not ok("http://party.example.org", "app1:8000")  # ...but only the public origin
    assert ok("http://tv.example:3000", "127.0.0.1:8000")  # named in ALLOWED_HOSTS
    assert ok("https://a.lan.example", "127.0.0.1:8000")
    for evil in ("https://evil.example", "null", "https://party.example.org.evil.example",
                 "http://localhost:8000", "garbage"):
        assert not ok(evil, "127.0.0.1:8000"), evil
    anything = HostPolicy.from_settings(Settings(allowed_hosts="*"))
    assert not anything.origin_allowed("https://evil.example", "127.0.0.1:8000")


def _handshake_status(server: LiveServer, code: str, **options: Any) -> int:
    """101 when the upgrade was accepted (the client then joins and leaves), else the status."""
    try:
        with connect(server.ws_url(code), open_timeout=10, **options) as ws:
            ws.send('{"type": "join", "nickname": "Zed"}')
            while '"welcome"' not in (frame := ws.recv(timeout=10)):
                assert '"ping"' in frame, frame  # the heartbeat may come first
            return 101
    except InvalidStatus as refused:
        return refused.response.status_code


def test_a_websocket_from_another_sites_page_is_refused_before_it_is_accepted(server):
    """Cross-site WebSocket hijacking: a page of evil.example opens the room's socket in its
    visitor's browser, which sends ``Origin: https://evil.example``; it is refused with 403
    before the upgrade, so it never joins nor counts against the visitor's address."""
    before = refused_count(server, "origin")
    code = server.create_room("panika", "Ann")["code"]
    own = f"http://127.0.0.1:{server.port}"
    assert _handshake_status(server, code, origin="https://evil.example") == 403
    assert _handshake_status(server, code, origin="null") == 403
    assert _handshake_status(server, code, origin=own) == 101
    assert _handshake_status(server, code, origin=f"http://localhost:{server.port}") == 403
    assert _handshake_status(server, code) == 101  # no Origin: not a browser
    assert refused_count(server, "origin") >= before + 3
    room = server.registry.get(code)
    assert [m.nickname for m in room.state.members.values()] == ["Ann", "Zed", "Zed 2"]


def test_a_websocket_naming_a_host_the_site_does_not_answer_is_refused(server):
    code = server.create_room("panika", "Ann")["code"]
    sock = socket.create_connection(("127.0.0.1", server.port))
    with pytest.raises(InvalidStatus) as refused:
        # The URL's host is what the client sends as Host; the socket goes to this server.
        connect(f"ws://evil.example:{server.port}/ws/{code}", sock=sock, open_timeout=10)
    assert refused.value.response.status_code == 403


def test_the_server_sends_no_banner(tmp_path):
    assert uvicorn_options(Settings())["server_header"] is False
    with ConfiguredServer(tmp_path / "s") as live:
        with live.http() as http:
            response = http.get("/")
            assert response.status_code == 200 and "server" not in response.headers
        code = live.create_room("panika", "Ann")["code"]
        with connect(live.ws_url(code), open_timeout=10) as ws:
            assert "server" not in ws.response.headers
