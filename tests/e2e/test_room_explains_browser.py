"""A room that explains itself (issue 23): every screen leads with the one thing its person can
do now. The host's Start is inside the viewport at 360 x 640, 390 x 844 and 1366 x 768 (and
stays there on a phone while the page scrolls); a guest reads "You're in, <name> — <host> starts
the match" without scrolling; the invite folds away once someone has joined."""

from __future__ import annotations

import pytest

from tests.e2e.axe import assert_accessible
from tests.e2e.lobby import create_room_in_lobby, join_with_nickname, press
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


def _german(page, base_url: str):  # type: ignore[no-untyped-def]
    """The page's browser has chosen German with the header's switch (the ``lang`` cookie)."""
    page.context.add_cookies([{"name": "lang", "value": "de", "url": base_url}])
    return page


def _finished(room, players, standings, seed: str):  # type: ignore[no-untyped-def]
    """The room frame the server sends at a match's end, as the pages get it."""
    result = {"ending": "cards_gone", "details": {}, "seed": seed, "seed_hash": seed[::-1],
              "players": players}
    return {**room, "type": "room", "status": "finished", "result": result, "match_id": None,
            "save_state": "saving", "standings": standings}


def _evening(page):  # type: ignore[no-untyped-def]
    return page.evaluate("""() => [...document.querySelectorAll('#evening-rows tr')]
      .map((tr) => [...tr.children].map((td) => td.textContent.replace('🤖', '').trim()))""")


def test_the_options_fit_a_german_phone(live, new_page) -> None:  # type: ignore[no-untyped-def]
    """The waiting room's options at 360 x 640 in German: Panic Lab's longest choice ("ohne
    Mutationsräume und Lüftungsschächte") once made its select, and the whole form, 400 px wide;
    the column sets the width, the page does not scroll sideways."""
    host = _german(new_page(phone=True, size=(360, 640)), live.base_url)
    create_room_in_lobby(host, live.base_url, "panic_lab", "Nicole")
    host.wait_for_selector("#options-form select", state="attached")
    host.evaluate("() => { document.getElementById('waiting').hidden = false; "
                  "document.querySelectorAll('#options-form details').forEach((d) => { d.open = true; }); }")
    wide = host.evaluate("""() => [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > 360.5).map((e) => e.outerHTML.slice(0, 120) + ' in ' + e.parentElement.outerHTML.slice(0, 200))""")
    assert wide == [] and host.evaluate("() => innerWidth") == 360, wide
    assert host.evaluate("() => document.documentElement.scrollWidth") <= 360


def test_the_win_is_a_moment_on_every_screen_and_the_evening_is_remembered(live, new_page) -> None:  # type: ignore[no-untyped-def]
    """The end of a match (static/js/results.js) on a laptop, two phones at 390 x 844 (one
    German, one asking for reduced motion) and a German TV at 1920 x 1080: one headline naming the
    winner once (the ending's sentence; "Du gewinnst!" large on the winner's own phone), the
    places revealed from the last to the first (at once under reduced motion), the seed folded
    behind "Check this match" on the phones and nowhere on the TV, and the evening's standings,
    updated after a second match; the TV reads from the sofa at 32 px or more; axe is clean."""
    from tests.e2e.conftest import TV_SIZE

    host = new_page()
    code = create_room_in_lobby(host, live.base_url, "panika", "Nicole")
    cleo = _german(new_page(phone=True), live.base_url)
    join_with_nickname(cleo, f"{live.base_url}/r/{code}", "Cleo")
    ryan = new_page(phone=True)  # every test page asks for reduced motion (conftest.CONTEXT)
    join_with_nickname(ryan, f"{live.base_url}/r/{code}", "Ryan")
    wait_member(host, "Ryan")
    tv = _german(new_page(size=TV_SIZE), live.base_url)
    tv.goto(f"{live.base_url}/r/{code}/table")
    tv.wait_for_selector('#conn[data-state="connected"]')
    wait_member(tv, "Ryan")
    sizes = tv.evaluate(TV_TEXT, ["#room-code", "#members .member .name"])
    assert sizes and all(size >= 32 for _, _, size in sizes), sizes

    host.click("#start-btn")
    tv.wait_for_selector("#timers .timer")
    tv.wait_for_selector(".pk-player .pk-name")
    sizes = tv.evaluate(TV_TEXT, ["#room-code", "#timers .timer", "h1", ".pk-player .pk-name",
                                  ".pk-status", ".pk-tap-hint", ".pk-info"])
    assert len(sizes) >= 6 and all(size >= 32 for _, _, size in sizes), sizes

    for page in (host, cleo, tv):  # the reveal is motion: these pages do not ask for less
        page.emulate_media(reduced_motion="no-preference")
    # The match ends: Cleo first, Ryan second, Nicole last.
    room = host.evaluate("() => structuredClone(panicParty.state.room)")
    seat = {m["nickname"]: m["seat"] for m in room["members"]}
    member = {m["nickname"]: m["id"] for m in room["members"]}

    def row(name: str, rank: int, score: int) -> dict:
        return {"seat": seat[name], "nickname": name, "score": score, "rank": rank,
                "winner": rank == 1, "bot": None}

    def standing(name: str, wins: int, points: int, matches: int) -> dict:
        return {"member": member[name], "nickname": name, "wins": wins, "points": points,
                "matches": matches, "bot": None}

    first = _finished(room, [row("Nicole", 3, -4), row("Cleo", 1, 0), row("Ryan", 2, -1)],
                      [standing("Cleo", 1, 2, 1), standing("Ryan", 0, 1, 1),
                       standing("Nicole", 0, 0, 1)], "ab" * 32)
    for page in (host, cleo, ryan, tv):
        page.evaluate(FEED, first)
    # Animated: the headline waits for the places; under reduced motion all shows at once.
    assert ryan.get_attribute("#result", "data-reveal") == "done"
    assert cleo.get_attribute("#result", "data-reveal") == "running"
    assert cleo.locator("#result-summary").is_hidden()
    for page in (host, cleo, ryan, tv):
        page.wait_for_selector('#result[data-reveal="done"]')
        assert page.get_attribute("#result-rows", "data-revealed") == "Nicole,Ryan,Cleo"
        assert page.inner_text("#result-rows tr:first-child td:nth-child(2)") == "Cleo"
        _inside(page, "#result-summary")
    assert cleo.inner_text("#result-summary") == "Du gewinnst!"
    assert cleo.evaluate("() => document.body.classList.contains('celebrating')")
    big = cleo.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#result-summary')).fontSize)")
    assert big >= 44, big
    assert host.inner_text("#result-summary") == "Cleo wins: no cards left"
    assert ryan.inner_text("#result-summary") == "Cleo wins: no cards left"
    assert tv.inner_text("#result-summary") == "Cleo gewinnt: keine Karten mehr"
    # The winner named once: one sentence says who won, on every screen.
    for page, words in ((host, " wins"), (ryan, " wins"), (tv, " gewinnt"), (cleo, "gewinnst")):
        assert page.inner_text("#result").count(words) == 1, page.inner_text("#result")
    assert "Cleo gewinnt" not in cleo.inner_text("#result")

    # The seed is one tap away on a phone, and nowhere on the TV.
    for phone, check in ((ryan, "Check this match"), (cleo, "Diese Partie prüfen")):
        assert phone.inner_text("#result-check summary") == check
        assert phone.locator("#result-seed").is_hidden()
        press(phone, "#result-check summary")
        phone.wait_for_selector("#result-seed", state="visible")
        assert phone.inner_text("#result-seed") == "ab" * 32
    assert tv.locator("#result-check").is_hidden()
    assert "ab" * 32 not in tv.inner_text("body") and "ba" * 32 not in tv.inner_text("body")

    # The evening's standings, on the TV and the phones.
    assert tv.inner_text("#evening-caption") == "Heute Abend"
    assert ryan.inner_text("#evening-caption") == "Tonight"
    expected = [["Cleo", "1", "2"], ["Ryan", "0", "1"], ["Nicole", "0", "0"]]
    for page in (host, cleo, ryan, tv):
        assert _evening(page) == expected
    sizes = tv.evaluate(TV_TEXT, ["#result-summary", "#result-rows td", "#evening-rows td",
                                  "#room-code"])
    assert len(sizes) >= 10 and all(size >= 32 for _, _, size in sizes), sizes
    assert_accessible(cleo, "winner screen, phone, German")
    assert_accessible(tv, "winner screen, TV, German")

    # Play again, and a second match: Ryan wins it; the standings count both.
    playing = {**room, "type": "room", "status": "playing", "result": None,
               "standings": first["standings"]}
    second = _finished(room, [row("Nicole", 2, -2), row("Cleo", 3, -5), row("Ryan", 1, 0)],
                       [standing("Ryan", 1, 3, 2), standing("Cleo", 1, 2, 2),
                        standing("Nicole", 0, 1, 2)], "cd" * 32)
    for page in (host, cleo, ryan, tv):
        page.evaluate(FEED, playing)
        assert page.locator("#result").is_hidden()
        page.evaluate(FEED, second)
    for page in (host, cleo, ryan, tv):
        page.wait_for_selector('#result[data-reveal="done"]')
        assert page.get_attribute("#result-rows", "data-revealed") == "Cleo,Nicole,Ryan"
        assert _evening(page) == [["Ryan", "1", "3"], ["Cleo", "1", "2"], ["Nicole", "0", "1"]]
    assert ryan.inner_text("#result-summary") == "You win!"
    assert not cleo.evaluate("() => document.body.classList.contains('celebrating')")
    assert cleo.inner_text("#result-summary") == "Ryan gewinnt: keine Karten mehr"
    assert_accessible(ryan, "winner screen, phone, second match")
    no_errors([host, cleo, ryan, tv])


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
