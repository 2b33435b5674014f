"""deploy/nginx.conf for real: nginx in front of two server processes (as docker-compose.yml
runs them) spreads the WebSockets of one room over both, and the room plays a whole match
through it; a page's WebSocket passes the origin check through it (nginx passes the Host the
browser sent, port included). Skipped, with the reason, where nginx is not installed."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from app.config import PROJECT_ROOT
from tests.cluster.conftest import REQUIRE_REDIS
from tests.durable.process import ServerProcess
from tests.durable.test_restart import RecordingTable, _stored_match
from tests.live import Client, LocalSite, free_port
from tests.realtime.helpers import start_panika, wait_frame

pytestmark = [pytest.mark.redis, pytest.mark.postgres]



class Proxy(LocalSite):
    """nginx with deploy/nginx.conf, its upstreams pointed at two local processes."""

    def __init__(self, folder: Path, a: ServerProcess, b: ServerProcess) -> None:
        self.port = free_port()
        folder.mkdir(parents=True, exist_ok=True)
        conf = (PROJECT_ROOT / "deploy" / "nginx.conf").read_text()
        conf = conf.replace("app1:8000", f"127.0.0.1:{a.port}")
        conf = conf.replace("app2:8000", f"127.0.0.1:{b.port}")
        conf = conf.replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        conf = conf.replace("worker_processes auto;", "worker_processes 1;")
        local = (f"client_body_temp_path {folder}/body; proxy_temp_path {folder}/proxy; "
                 f"fastcgi_temp_path {folder}/fcgi; uwsgi_temp_path {folder}/uwsgi; "
                 f"scgi_temp_path {folder}/scgi; access_log off;")
        conf = conf.replace("http {", "http {\n    " + local, 1)
        conf = f"daemon off; user root; pid {folder}/nginx.pid; error_log {folder}/error.log;\n" \
            + conf
        self.conf = folder / "nginx.conf"
        self.conf.write_text(conf)
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Proxy:
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.process = subprocess.Popen([nginx, "-c", str(self.conf), "-p", str(self.folder)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while True:
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                log = (self.folder / "error.log")
                raise RuntimeError(log.read_text() if log.exists() else "nginx did not start")
            time.sleep(0.1)

    def __exit__(self, *exc: object) -> None:
        assert self.process is not None
        self.process.terminate()
        self.process.wait(10)



def _connections(node: ServerProcess) -> float:
    with node.http() as http:
        text = http.get("/metrics").text
    return float(re.search(r"^panic_party_connections (\S+)$", text, re.M).group(1))


@pytest.mark.long(45)
def test_nginx_spreads_one_rooms_sockets_over_both_processes(start_node, opened, tmp_path):
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        # python3 -m app test installs it as root (CI); with the several-process tests
        # required, its absence fails rather than skips.
        if REQUIRE_REDIS:
            pytest.fail("nginx is required but not installed (apt-get install nginx-light)")
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    site = {"public_url": "https://party.example.org"}
    a = start_node("a", **site)
    b = start_node("b", **site)
    with Proxy(tmp_path / "nginx", a, b) as proxy:
        created = proxy.create_room("panika", "Ann")
        assert created["join_url"].startswith("https://party.example.org/r/")
        code = created["code"]
        # A page opened through the proxy: its Origin is the proxy's address, which is the Host
        # the app sees (nginx's $http_host); a page of another site is refused with 403.
        with connect(proxy.ws_url(code), origin=proxy.base_url, open_timeout=10) as page:
            page.send('{"type": "join", "watch": true}')
            assert '"welcome"' in page.recv(timeout=10)
        with pytest.raises(InvalidStatus) as refused:
            connect(proxy.ws_url(code), origin="https://evil.example", open_timeout=10)
        assert refused.value.response.status_code == 403
        clients = []
        for name in ("Ann", "Bob", "Cy", "Dee"):
            c = Client(proxy, code)  # type: ignore[arg-type]
            opened.append(c)
            if name == "Ann":
                c.join(token=created["token"])
            else:
                c.join(nickname=name)
            clients.append(c)
        for c in clients:
            wait_frame(c, lambda f: f["type"] == "room" and len(f["members"]) == 4)
        assert _connections(a) >= 1 and _connections(b) >= 1  # both carry the room's pages
        start_panika(clients)
        table = RecordingTable(clients, {})
        table.play_to_end()
        stored = _stored_match(a, clients[0])  # type: ignore[arg-type]
        assert [p["nickname"] for p in stored["players"]] == ["Ann", "Bob", "Cy", "Dee"]
        assert len(stored["actions"]) == table.version
