"""German everywhere a German phone looks (issue 23): for every game, a German phone at 360 x 640
creates a room, fills it with computer players (the counter plays at once), starts, and once
moves have been played the page shows no English text of the catalogs (every English wording
that German words differently, its literal parts of 12 characters or more; every game's rules
page included, which is German too: docs/architecture.md, "Languages"), no text cut off, and the
language switch on screen from the side panel."""

from __future__ import annotations


import pytest

from app.engine import all_games
from app.games import load_all
from tests.e2e.axe import assert_accessible
from tests.e2e.conftest import CONTEXT
from tests.e2e.layout import assert_not_clipped, settle
from tests.e2e.lobby import create_room_in_lobby
from tests.e2e.room_flow import no_errors

pytestmark = pytest.mark.browser

load_all()
GAME_IDS = sorted(g.id for g in all_games())

ENGLISH = """async () => {
  const [en, de] = await Promise.all(["en", "de"].map((l) => fetch(`/i18n/${l}.json`).then((r) => r.json())));
  const forms = (v) => (v && typeof v === "object" ? Object.values(v) : [v]);
  const parts = new Set();
  for (const [key, value] of Object.entries(en)) {
    const german = new Set(forms(de[key]).map(String));
    for (const text of forms(value).map(String)) {
      if (german.has(text)) continue;
      for (const part of text.split(/\\{[^}]*\\}/)) {
        const p = part.trim();
        if (p.length >= 12 && p.includes(" ")) parts.add(p);
      }
    }
  }
  const seen = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!el || !node.textContent.trim() || el.closest("script, style, [lang=en], [hidden]")) continue;
    seen.push(node.textContent);
  }
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    if (el.closest("[lang=en]")) continue;
    for (const a of ["aria-label", "title", "placeholder", "alt"]) if (el.getAttribute(a)) seen.push(el.getAttribute(a));
  }
  const text = seen.join(" \\n ");
  return [...parts].filter((p) => text.includes(p));
}"""


MOVED_OR_MINE = """() => { const s = panicParty.state, f = s.frame;
  return (s.version || 0) >= 1 || !!(f && f.legal && f.legal.length && f.active.includes(s.seat)); }"""
PLAY_MINE = """() => { const s = panicParty.state, f = s.frame;
  if ((s.version || 0) < 1) panicParty.socket.send({ type: "action", action: f.legal[0] }); }"""


def assert_no_english(page, label: str) -> None:  # type: ignore[no-untyped-def]
    found = page.evaluate(ENGLISH)
    assert not found, f"English catalog text on the German {label}: {found}"


@pytest.mark.parametrize("game", GAME_IDS)
def test_a_german_phone_sees_no_english_and_nothing_cut_off(browser, quick_bots, game) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale="de-DE", **CONTEXT)
    try:
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        create_room_in_lobby(page, quick_bots.base_url, game, "Nicole")
        assert page.get_attribute("html", "lang") == "de"
        if game != "panika_counter":
            page.wait_for_selector("#waiting:not([hidden])")
            assert_no_english(page, f"{game} waiting room")
            page.wait_for_selector("#bots-panel:not([hidden])")
            page.click("#add-bot-btn")
            page.wait_for_selector("#start-btn:not([disabled])")
            page.click("#start-btn")
        page.wait_for_function("() => panicParty.state.room.status === 'playing' && !!panicParty.state.game")
        if game == "panika_counter":  # no bots: the page's own taps are the moves
            page.click("#counter-tap")
        # Moves were played (the state's version counts them): the bots', or the page's own
        # first legal move when the match waits on it.
        page.wait_for_function(MOVED_OR_MINE, timeout=30_000)
        page.evaluate(PLAY_MINE)
        page.wait_for_function("() => (panicParty.state.version || 0) >= 1", timeout=30_000)
        settle(page)
        assert_no_english(page, f"{game} room mid-match")
        assert_not_clipped(page)
        # The language switch, mid-match: in the side panel (the sheet on a phone).
        if page.locator("#side-btn").is_visible():
            page.click("#side-btn")
        link = page.locator("#room-lang")
        link.wait_for(state="visible")
        box = link.bounding_box()
        assert box and box["width"] >= 44 and box["height"] >= 44, box
        assert link.inner_text() == "English"
        assert_accessible(page, f"German {game} room, side panel open")
        page.goto(f"{quick_bots.base_url}/games/{game}/rules")
        assert_no_english(page, f"{game} rules page")
        no_errors([page])
    finally:
        context.close()
