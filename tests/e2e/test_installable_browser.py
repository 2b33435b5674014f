"""The site as an installable app in Chromium (docs/decisions/0047): the browser's own
installability check passes, the service worker shows the site's offline page in the page's
language and the page comes back with the network, it keeps versioned assets only (never a
page, the API, a room or a match), a new build replaces it and its cache, and a first visit
stays within the issue's bytes (lobby 150 KB, a room page 200 KB)."""

from __future__ import annotations

import re

import pytest

from app.api.installable import site_worker
from app.web.assets import AssetRegistry, AssetRoot
from tests.e2e.conftest import CHROMIUM_ARGS, FULL_CHROMIUM, PHONE_SIZE, WITH_WORKER
from tests.e2e.lobby import join_with_nickname, press
from tests.live import Client

pytestmark = pytest.mark.browser

CONTROLLED = "() => navigator.serviceWorker.controller !== null"
KEPT = """async () => {
  const urls = [];
  for (const key of await caches.keys())
    for (const request of await (await caches.open(key)).keys()) urls.push(new URL(request.url).pathname + new URL(request.url).search);
  return {keys: await caches.keys(), urls};
}"""
DRAWN = "() => document.querySelector('#game').childElementCount > 0"
TRANSFERRED = """() => performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
  .reduce((sum, entry) => sum + entry.transferSize, 0)"""


@pytest.fixture
def live(shared_live):  # type: ignore[no-untyped-def]
    return shared_live


def _play(live, page) -> tuple[Client, str]:  # type: ignore[no-untyped-def]
    """The phone opens an invite link, joins, and the host (a socket) starts the match: the
    page loads its game's module and draws it. Returns the host, to close, and the room."""
    created = live.create_room("panika", "Ann")
    host = Client(live, created["code"])
    host.join(token=created["token"])
    join_with_nickname(page, f"{live.base_url}/r/{created['code']}", "Bea")
    host.wait_for("room", lambda frame: len(frame["members"]) == 2)
    host.send({"type": "start"})
    page.wait_for_function(DRAWN)
    return host, created["code"]


def _phone(browser):  # type: ignore[no-untyped-def]
    """A phone's context with the service worker allowed, and its page."""
    context = browser.new_context(viewport={"width": PHONE_SIZE[0], "height": PHONE_SIZE[1]},
                                  is_mobile=True, has_touch=True, **WITH_WORKER)
    page = context.new_page()
    page.touch = True
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return context, page


def test_chromium_finds_the_site_installable(live, browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The browser's own check (what its "Install" offers on): a profile of its own, since an
    incognito window, which every other test context is, never installs anything."""
    context = browser.browser_type.launch_persistent_context(
        tmp_path / "profile", executable_path=FULL_CHROMIUM, args=CHROMIUM_ARGS, **WITH_WORKER)
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(live.base_url + "/")
        page.wait_for_function(CONTROLLED)
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"].endswith("/manifest.webmanifest") and manifest["errors"] == []
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    finally:
        context.close()


def test_without_a_network_a_page_shows_the_sites_offline_page_and_comes_back(live, browser) -> None:  # type: ignore[no-untyped-def]
    code = live.create_room("panika", "Ann")["code"]
    context, page = _phone(browser)
    try:
        page.goto(live.base_url + "/")  # an English page first: the worker installs
        page.wait_for_function(CONTROLLED)
        # The header's switch, through the worker (a redirect back to the page): German pages.
        page.goto(f"{live.base_url}/lang/de?next=/r/{code}")
        page.wait_for_selector("#join-form")
        assert page.get_attribute("html", "lang") == "de" and page.url.endswith(f"/r/{code}")
        context.set_offline(True)
        page.goto(f"{live.base_url}/r/{code}")  # the phone lost the party's Wi-Fi
        assert page.inner_text("h1") == "Keine Verbindung"
        assert page.get_attribute("html", "lang") == "de" and page.url.endswith(f"/r/{code}")
        assert "sobald das Netz zurück ist" in page.inner_text("main")
        # Its styles came from the worker's cache too.
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(27, 18, 48)"
        context.set_offline(False)  # the network is back: the page loads itself again
        page.wait_for_selector("#join-form", timeout=15_000)
        assert page.url.endswith(f"/r/{code}") and page.inner_text("h1") == "Panika"
        assert page.errors == []
    finally:
        context.close()


def test_a_room_played_through_the_worker_keeps_only_versioned_assets(live, browser) -> None:  # type: ignore[no-untyped-def]
    """Pages, the API, the QR code, the socket: always from the network, never kept. The
    versioned assets: kept, so the next visit takes them from the phone itself."""
    context, page = _phone(browser)
    host = None
    try:
        page.goto(live.base_url + "/")
        page.wait_for_function(CONTROLLED)
        host, code = _play(live, page)
        kept = page.evaluate(KEPT)
        assert kept["keys"] == [f"panic-party-{live.app.state.site_worker.version}"]
        urls = kept["urls"]
        assert any(re.search(r"/games/panika/page/page\.[0-9a-f]{10}\.js$", u) for u in urls)
        assert any(re.search(r"^/i18n/de|^/i18n/en", u) for u in urls)  # the catalog, versioned
        for url in urls:
            assert re.search(r"\.[0-9a-f]{10}\.[a-z]+$|^/i18n/\w+\.json\?v=\w+$|^/offline/",
                             url), url
        # The next visit: the page goes to the network, every asset comes from the worker,
        # which fetches none of them (its own requests are in its performance timeline).
        worker = context.service_workers[0]
        worker.evaluate("performance.clearResourceTimings()")
        seen = []
        page.on("response", lambda r: seen.append((r.url, r.from_service_worker)))
        page.reload()
        page.wait_for_function(DRAWN)
        assets = [(url, by_worker) for url, by_worker in seen if "/static/" in url]
        assert len(assets) >= 8 and all(by_worker for _, by_worker in assets), assets
        fetched = worker.evaluate(
            "performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)")
        assert fetched == [f"/r/{code}"]
        assert page.errors == []
    finally:
        if host is not None:
            host.close()
        context.close()


def test_a_new_build_replaces_the_worker_and_its_cache(live, browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    context, page = _phone(browser)
    before = live.app.state.site_worker
    try:
        page.goto(live.base_url + "/")
        page.wait_for_selector("body[data-ready=lobby]")
        page.wait_for_function(CONTROLLED)
        assert page.evaluate("caches.keys()") == [f"panic-party-{before.version}"]
        # A deploy: one file more (or changed) makes another build, and another worker script.
        (tmp_path / "new.js").write_text("export const shiny = true;\n")
        build = AssetRegistry([*live.app.state.assets.roots, AssetRoot("/new", tmp_path, "new")])
        after = site_worker(live.app.state.templates, build)
        assert after.version != before.version
        live.app.state.site_worker = after
        page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
        page.wait_for_function(
            """async (name) => (await caches.keys()).join() === name""",
            arg=f"panic-party-{after.version}", timeout=15_000)
        press(page, "button.create-room[data-game='panika']")  # the page goes on working
        assert page.is_visible("#create-dialog")
        assert page.errors == []
    finally:
        live.app.state.site_worker = before
        context.close()


@pytest.mark.parametrize("where, limit", [("lobby", 150_000), ("room page", 200_000)])
def test_a_first_visit_transfers_at_most_the_issues_bytes(live, browser, where, limit) -> None:  # type: ignore[no-untyped-def]
    """Everything a first visit fetches, the page's own requests and the worker's (its script
    and the shell it keeps), compressed as they travel; a room page with its game drawn."""
    context, page = _phone(browser)
    host = None
    try:
        if where == "lobby":
            page.goto(live.base_url + "/")
            page.wait_for_selector("body[data-ready=lobby]")
        else:
            host, _ = _play(live, page)
        page.wait_for_function(CONTROLLED)
        worker = context.service_workers[0]
        worker_bytes = worker.evaluate("performance.getEntriesByType('resource')"
                                       ".reduce((sum, entry) => sum + entry.transferSize, 0)")
        page_bytes = page.evaluate(TRANSFERRED)
        assert page_bytes > 10_000 and worker_bytes > 0
        assert page_bytes + worker_bytes <= limit, (page_bytes, worker_bytes)
    finally:
        if host is not None:
            host.close()
        context.close()
