"""The site's own pages in headless Chromium on a 360 px phone: no horizontal overflow, 44 px
touch targets, no text under 12 px, axe-core without serious or critical findings, and the
language switch (English and German)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest

from app.engine import Move, all_games
from app.db.matches import MatchRecord, PlayerResult, save_match
from tests.e2e.lobby import create_room_in_lobby

from tests.e2e.axe import load_axe, serious_violations

pytestmark = pytest.mark.browser

TARGETS = (".site-nav a, .brand, .page .btn, .match-card-link, ul.tabs a, .links a, "
           ".site-footer a, .room-list a, #join-code, .game-card .meta a, .rules a[href='/'], .pl-rules a[href='/'], "
           "dialog[open] input, dialog[open] .btn")

_CHECKS = """([targets, vw]) => {
  const problems = [];
  // The configured width, not innerWidth: a mobile page that overflows widens its own viewport.
  const doc = document.scrollingElement;
  if (doc.scrollWidth > vw || window.innerWidth > vw)
    problems.push(`horizontal overflow: ${doc.scrollWidth} (inner ${window.innerWidth}) > ${vw}`);
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.right > vw + 0.5 && !el.closest(".visually-hidden, .skip-link"))
      problems.push(`wider than the screen (right edge ${Math.round(r.right)}): ${el.outerHTML.slice(0, 80)}`);
  }
  for (const el of document.querySelectorAll(targets)) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.width < 44 - 0.5 || r.height < 44 - 0.5)
      problems.push(`small target ${Math.round(r.width)}x${Math.round(r.height)}: ${el.outerHTML.slice(0, 80)}`);
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (el.closest(".visually-hidden, .skip-link, script, style, dialog:not([open])")) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < 12) problems.push(`text of ${size}px: ${node.textContent.trim().slice(0, 40)}`);
  }
  return problems;
}"""


def assert_phone_friendly(page, label: str) -> None:  # type: ignore[no-untyped-def]
    problems = page.evaluate(_CHECKS, [TARGETS, page.viewport_size["width"]])
    assert not problems, f"{label}:\n" + "\n".join(problems)
    # These pages go further: no finding of any impact (duplicate landmarks are "moderate"),
    # from one run of every rule.
    load_axe(page)
    found = page.evaluate(_ALL_FINDINGS)
    assert not found, f"axe-core on {label}:\n" + "\n".join(found)


_ALL_FINDINGS = """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
  .map((v) => `${v.impact}: ${v.id} (${v.help}) at ${v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join("; ")}`)"""


def _store_matches(live) -> int:  # type: ignore[no-untyped-def]
    """Two finished matches, one with long nicknames; returns the id of the last."""
    now = datetime.now(UTC)
    last = 0
    for i, names in enumerate((["Ann", "Bob", "Cleo"],
                               ["Maximiliane-Sophie", "Bartholomew_the_3rd", "Wolfgangxxxxxxxx"])):
        seed = bytes(range(1 - i, 33 - i))  # one seed per match (a seed hash is stored once)
        record = MatchRecord(
            game="panic_lab", room_code="ABCD", options={"target_tokens": 1}, seed=seed.hex(),
            seed_hash=hashlib.sha256(seed).hexdigest(), started_at=now - timedelta(seconds=90),
            ended_at=now + timedelta(seconds=i), summary=f"{names[0]} wins",
            players=[PlayerResult(s, n, 1 if s == 0 else 0, 1 if s == 0 else 2, s == 0)
                     for s, n in enumerate(names)],
            log=[Move(None, {"type": "reveal"}, 3000, 0),
                 Move(1, {"type": "claim", "tile": 4}, 5400, 40),
                 Move(0, {"type": "claim", "tile": 17}, 6100, 35)],
        )
        last = save_match(live.app.state.db, record=record)
    return last


def test_lobby_on_a_phone_creates_a_room_and_passes_axe(live, new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(phone=True)
    page.goto(live.base_url + "/")
    assert_phone_friendly(page, "the lobby")
    page.wait_for_selector("body[data-ready=lobby]")
    page.click('button.create-room[data-game="panika"]')
    assert serious_violations(page) == [], "the create dialog"
    problems = page.evaluate(_CHECKS, [TARGETS, page.viewport_size["width"]])
    assert not problems, "the create dialog:\n" + "\n".join(problems)
    page.click("#create-cancel")
    code = create_room_in_lobby(page, live.base_url, "panika", "Ann")
    assert len(code) == 4 and page.url.endswith(f"/r/{code}")
    assert page.errors == []


def test_matches_and_a_match_fit_a_360_px_phone(live, new_page) -> None:  # type: ignore[no-untyped-def]
    match_id = _store_matches(live)
    page = new_page(phone=True)
    page.goto(live.base_url + "/matches")
    assert page.locator(".match-card").count() == 2
    assert_phone_friendly(page, "/matches")
    page.click(f'a[href="/matches/{match_id}"]')
    page.wait_for_url(f"**/matches/{match_id}")
    assert page.locator(".move-list li").count() == 3
    assert "claims tile 4" in page.inner_text(".move-list")
    assert_phone_friendly(page, f"/matches/{match_id}")
    page.goto(live.base_url + "/leaderboard")
    assert_phone_friendly(page, "/leaderboard")
    assert page.errors == []
    response = page.goto(live.base_url + "/matches/424242")
    assert response.status == 404  # Chromium logs the 404 of the page itself as a console error
    assert "There is no match 424242" in page.inner_text("h1")
    assert_phone_friendly(page, "the error page")
    page.goto(live.base_url + "/r/QQQQ")
    assert "QQQQ" in page.inner_text("h1")
    assert_phone_friendly(page, "a missing room")


def _switch_language(page, lang: str) -> None:  # type: ignore[no-untyped-def]
    """Follow the page's own language link and wait for the page it leads back to.

    The link goes through `/lang/<code>` and is redirected to the same page: between the two
    documents there is none, so the wait looks at the document only once there is one.
    """
    with page.expect_navigation():
        page.click("a.lang-switch")
    page.wait_for_function(f"document.documentElement?.lang === '{lang}'")
    page.wait_for_load_state()


def test_the_language_switch_turns_every_page_german_and_is_remembered(live, new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(phone=True)
    page.goto(live.base_url + "/leaderboard")
    assert page.get_attribute("html", "lang") == "en"
    _switch_language(page, "de")
    assert page.url.endswith("/leaderboard")
    assert page.inner_text("h1") == "Bestenliste"
    page.goto(live.base_url + "/")
    assert page.inner_text("h1") == "Partyspiele für die Handys in eurer Tasche"
    # The scripts speak the same language, from the same catalog.
    lang, text = page.evaluate(
        "async () => { const m = await import('/static/js/i18n.js');"
        " return [m.lang, m.t('lobby.no_rooms')]; }")
    assert (lang, text) == ("de", "Gerade wartet kein offener Raum. Eröffne einen!")
    plurals = page.evaluate(
        "async () => { const m = await import('/static/js/i18n.js');"
        " return [1, 2].map((n) => m.t('match.moves', {n})); }")
    assert plurals == ["1 Zug", "2 Züge"]
    assert_phone_friendly(page, "the German lobby")
    _switch_language(page, "en")
    assert page.inner_text("h1") == "Party games for the phones in your pocket"
    assert page.errors == []


def test_a_german_browser_gets_german_pages(browser, live) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(locale="de-DE", viewport={"width": 360, "height": 740})
    try:
        page = context.new_page()
        page.goto(live.base_url + "/matches")
        assert page.get_attribute("html", "lang") == "de"
        assert page.inner_text("h1") == "Letzte Partien"
    finally:
        context.close()


VIEWPORTS = [(360, 640), (390, 844), (1280, 720), (1366, 768), (1920, 1080)]


def test_the_site_pages_fit_every_screen_size(browser, live) -> None:  # type: ignore[no-untyped-def]
    match_id = _store_matches(live)
    for width, height in VIEWPORTS:
        phone = width < 500
        context = browser.new_context(viewport={"width": width, "height": height},
                                      is_mobile=phone, has_touch=phone)
        try:
            page = context.new_page()
            for path in ("/", "/matches", f"/matches/{match_id}", "/leaderboard"):
                page.goto(live.base_url + path)
                problems = page.evaluate(_CHECKS, [TARGETS, width])
                assert not problems, f"{path} at {width}x{height}:\n" + "\n".join(problems)
        finally:
            context.close()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_rules_page_fits_a_360_px_phone_with_44_px_targets(browser, live, lang) -> None:  # type: ignore[no-untyped-def]
    """Issue 23: the rules pages' way back was 19 px high; every rules page, in both languages."""
    from tests.e2e.conftest import CONTEXT

    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale="de-DE" if lang == "de" else "en-US",
                                  **CONTEXT)
    try:
        page = context.new_page()
        for game in [g.id for g in all_games()]:  # every registered game
            page.goto(f"{live.base_url}/games/{game}/rules")
            assert page.locator(".rules a[href='/'], .pl-rules a[href='/']").count() >= 1
            problems = page.evaluate(_CHECKS, [TARGETS, 360])
            assert not problems, f"{game} rules ({lang}):\n" + "\n".join(problems)
    finally:
        context.close()
