"""A room that explains itself (issue 23): every screen leads with the one thing its person can
do now. The host's Start is inside the viewport at 360 x 640, 390 x 844 and 1366 x 768 (and
stays there on a phone while the page scrolls); a guest reads "You're in, <name> — <host> starts
the match" without scrolling; the invite folds away once someone has joined."""

from __future__ import annotations

import pytest

from tests.e2e.axe import assert_accessible
from tests.e2e.lobby import create_room_in_lobby, join_with_nickname
from tests.e2e.room_flow import no_errors, wait_member

pytestmark = pytest.mark.browser

SIZES = [(360, 640), (390, 844), (1366, 768)]


@pytest.fixture
def live(shared_live):  # type: ignore[no-untyped-def]
    """The tests of this module share one server (each makes its own rooms)."""
    return shared_live


def _inside(page, selector: str) -> None:  # type: ignore[no-untyped-def]
    """``selector`` is rendered wholly inside the viewport."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None, f"{selector} is not rendered"
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5, \
        f"{selector} at y {box['y']:.0f}..{box['y'] + box['height']:.0f} in {size}"
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5, box


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_waiting_room_leads_with_the_next_step(live, new_page, size) -> None:  # type: ignore[no-untyped-def]
    phone_size = size[0] < 700
    host = new_page(phone=phone_size, size=size)
    code = create_room_in_lobby(host, live.base_url, "panik_pilze", "Nicole")
    host.wait_for_selector("#invite:not([hidden])")  # alone: the way in is up front
    guest = new_page(phone=phone_size, size=size)
    join_with_nickname(guest, f"{live.base_url}/r/{code}", "Ana")
    wait_member(host, "Ana")

    # The host: Start, enabled, on screen; the invite folded behind the room badge.
    host.wait_for_selector("#start-btn:not([disabled])")
    host.wait_for_selector("#invite", state="hidden")
    _inside(host, "#start-btn")
    assert host.get_attribute("#share-toggle", "aria-expanded") == "false"
    if phone_size:  # sticky: still on screen with the page scrolled to its end
        host.evaluate("() => window.scrollTo(0, document.scrollingElement.scrollHeight)")
        host.wait_for_function("() => window.scrollY > 0 || document.scrollingElement.scrollHeight <= innerHeight")
        _inside(host, "#start-btn")
        host.evaluate("() => window.scrollTo(0, 0)")

    # The guest: told they are in and who starts, on screen; no Start of their own.
    guest.wait_for_function(
        "() => document.getElementById('waiting-note').textContent.includes('You\\'re in, Ana')")
    assert guest.inner_text("#waiting-note") == "You're in, Ana — Nicole starts the match"
    _inside(guest, "#waiting-note")
    assert guest.locator("#start-btn").is_hidden()
    assert guest.locator("#invite").is_hidden()

    # The invite is still one tap away.
    host.click("#share-toggle")
    host.wait_for_selector("#invite:not([hidden])")
    assert_accessible(host, f"waiting room {size}")
    assert_accessible(guest, f"waiting room, guest {size}")
    no_errors([host, guest])


def test_a_dropped_phone_knows_it_and_everyone_else_names_it_away(live, new_page) -> None:  # type: ignore[no-untyped-def]
    """Presence (docs/protocol.md, "Presence"): a phone whose network stalls mid-match says it
    is offline within 3 s (the heartbeat it expects); within 5 s the host's screen and the TV
    name the player as away with the time until a bot stands in; back, they say so."""
    import time

    from tests.e2e.conftest import TV_SIZE
    from tests.e2e.proxy import TcpProxy

    with TcpProxy(live.port) as proxy:
        host = new_page()
        code = create_room_in_lobby(host, live.base_url, "panika", "Nicole")
        phone = new_page(phone=True)
        join_with_nickname(phone, f"{proxy.base_url}/r/{code}", "Ben")
        wait_member(host, "Ben")
        tv = new_page(size=TV_SIZE)
        tv.goto(f"{live.base_url}/r/{code}/table")
        tv.wait_for_selector('#conn[data-state="connected"]')
        host.click("#start-btn")
        phone.wait_for_selector("#panika-hand button.card")
        tv.wait_for_selector("#timers .timer")

        proxy.stall()
        stalled = time.monotonic()
        phone.wait_for_selector('#conn[data-state="lost"]', timeout=3_000)
        assert time.monotonic() - stalled <= 3.0
        for page in (host, tv):
            page.wait_for_selector("#away-line li.away", timeout=max(500, 5_000 - 1000 * (time.monotonic() - stalled)))
            text = page.inner_text("#away-line")
            assert text.startswith("Ben is away · a bot takes over in "), text
            assert page.locator("#away-line").is_visible()
        assert time.monotonic() - stalled <= 5.5
        # The count-down runs: the seconds go down between two readings.
        first = int(host.inner_text("#away-line li.away").rsplit(" ", 2)[1])
        host.wait_for_function(
            "n => { const li = document.querySelector('#away-line li.away');"
            " return li && parseInt(li.textContent.split(' ').at(-2)) < n; }", arg=first)
        assert_accessible(tv, "TV with a player away")

        proxy.resume()
        phone.wait_for_selector('#conn[data-state="connected"]', timeout=15_000)
        for page in (host, tv):
            page.wait_for_selector("#away-line li.back", timeout=5_000)
            assert page.inner_text("#away-line li.back") == "Ben is back"
        no_errors([host, tv])


FEED = "frame => panicParty.socket.handlers.onFrame(frame)"
TV_TEXT = """(selectors) => selectors.flatMap((sel) => [...document.querySelectorAll(sel)]
  .filter((el) => el.getClientRects().length && el.textContent.trim())
  .map((el) => [sel, el.textContent.trim().slice(0, 30), parseFloat(getComputedStyle(el).fontSize)]))"""


def test_the_end_of_a_match_shows_the_winner_everywhere_and_the_tv_reads_from_the_sofa(live, new_page) -> None:  # type: ignore[no-untyped-def]
    """A winner screen on every page and the TV ("You win!" on the winner's own), standings
    with a labelled score column, and on the 1920 x 1080 table view the names, the room code,
    the timers and the status at 32 px or more."""
    from tests.e2e.conftest import TV_SIZE

    host = new_page()
    code = create_room_in_lobby(host, live.base_url, "panika", "Nicole")
    phone = new_page(phone=True)
    join_with_nickname(phone, f"{live.base_url}/r/{code}", "Cleo")
    wait_member(host, "Cleo")
    tv = new_page(size=TV_SIZE)
    tv.goto(f"{live.base_url}/r/{code}/table")
    tv.wait_for_selector('#conn[data-state="connected"]')
    wait_member(tv, "Cleo")
    tv.wait_for_selector("#members .member")
    sizes = tv.evaluate(TV_TEXT, ["#room-code", "#members .member .name"])
    assert sizes and all(size >= 32 for _, _, size in sizes), sizes

    host.click("#start-btn")
    tv.wait_for_selector("#timers .timer")
    tv.wait_for_selector(".pk-player .pk-name")
    sizes = tv.evaluate(TV_TEXT, ["#room-code", "#timers .timer", "h1", ".pk-player .pk-name",
                                  ".pk-status", ".pk-tap-hint", ".pk-info"])
    assert len(sizes) >= 6 and all(size >= 32 for _, _, size in sizes), sizes

    # The match ends (the room frame the server sends at the end, fed to the pages as it is):
    # Cleo won.
    room = host.evaluate("() => structuredClone(panicParty.state.room)")
    cleo = next(m for m in room["members"] if m["nickname"] == "Cleo")
    nicole = next(m for m in room["members"] if m["nickname"] == "Nicole")
    result = {"summary": "Cleo wins", "seed": "ab" * 32, "seed_hash": "cd" * 32, "players": [
        {"seat": cleo["seat"], "nickname": "Cleo", "score": 0, "rank": 1, "winner": True, "bot": None},
        {"seat": nicole["seat"], "nickname": "Nicole", "score": -3, "rank": 2, "winner": False, "bot": None}]}
    finished = {**room, "type": "room", "status": "finished", "result": result, "match_id": None,
                "save_state": "saving"}
    for page in (host, phone, tv):
        page.evaluate(FEED, finished)
        page.wait_for_selector("#winner-banner:not([hidden])")
        _inside(page, "#winner-banner")
        assert page.inner_text("#score-head") == "Score (minus the cards left)"
        assert page.inner_text("#standings-caption") == "Final standings"
    assert phone.inner_text("#winner-banner") == "You win!"
    assert host.inner_text("#winner-banner") == "Cleo wins!"
    assert tv.inner_text("#winner-banner") == "Cleo wins!"
    sizes = tv.evaluate(TV_TEXT, ["#winner-banner", "#result-rows td", "#room-code"])
    assert all(size >= 32 for _, _, size in sizes), sizes
    assert_accessible(phone, "winner screen, phone")
    assert_accessible(tv, "winner screen, TV")
    no_errors([host, phone, tv])


def test_a_removed_player_sees_only_the_removal_and_a_renamed_one_is_told(live, new_page) -> None:  # type: ignore[no-untyped-def]
    host = new_page()
    code = create_room_in_lobby(host, live.base_url, "panika", "Nicole")
    twin = new_page(phone=True)
    join_with_nickname(twin, f"{live.base_url}/r/{code}", "nicole")
    wait_member(host, "nicole 2")
    twin.wait_for_selector("#status-line[data-kind='renamed']")
    assert twin.inner_text("#status-line") == "“nicole” was taken in this room: you are “nicole 2”."
    _inside(twin, "#status-line")

    menu = host.locator('#members .member:has-text("nicole 2") .host-menu')
    menu.locator("summary").click()
    host.once("dialog", lambda d: d.accept())
    menu.get_by_role("button", name="Remove").click()
    for reload in (False, True):
        if reload:
            twin.reload()
        twin.wait_for_selector("#removed-panel:not([hidden])")
        assert twin.locator("#members").is_hidden() and twin.locator("#game").is_hidden()
        assert twin.locator("#next-step").is_hidden()
        visible = twin.evaluate("""() => [...document.querySelectorAll('#room > *')]
          .filter((el) => el.getClientRects().length).map((el) => el.id || el.className)""")
        assert "removed-panel" in visible and set(visible) <= {"room-header", "removed-panel"}, visible
        back = twin.locator("#removed-panel a[href='/']")
        box = back.bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44
        _inside(twin, "#removed-panel a[href='/']")
    assert_accessible(twin, "removed")
    twin.click("#removed-panel a[href='/']")
    twin.wait_for_url(f"{live.base_url}/")
    no_errors([host])
