"""What an open page costs while nothing happens on it: a phone lies on the table for a whole
match, and a browser test keeps several pages open for minutes. The page's sounds leave no audio
running once they have ended, and the test browser builds no hidden pages of its own."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

SOUNDS = """async () => {
  const { Sounds } = await import('/static/js/sounds.js');
  window.sounds = new Sounds();
  window.sounds.play('tap');
  return window.sounds.ctx.state;
}"""
STATE = "() => window.sounds.ctx.state"


@pytest.fixture
def live(shared_live):  # type: ignore[no-untyped-def]
    return shared_live


def test_the_audio_is_suspended_once_a_sound_has_ended_and_resumes_for_the_next(live, new_page) -> None:  # type: ignore[no-untyped-def]
    """A running AudioContext costs a page about 2.5% of a core (and a phone its audio output)
    for as long as it is open, silent or not: static/js/sounds.js suspends it after the last
    sound and resumes it for the next."""
    page = new_page(phone=True)
    page.goto(live.base_url + "/")
    assert page.evaluate(SOUNDS) in ("running", "suspended")
    page.wait_for_function(f"() => ({STATE})() === 'suspended'", timeout=10_000)
    page.evaluate("() => window.sounds.play('burst')")
    page.wait_for_function(f"() => ({STATE})() === 'running'", timeout=10_000)
    page.wait_for_function(f"() => ({STATE})() === 'suspended'", timeout=10_000)
    page.evaluate("() => { window.sounds.setMuted(true); window.sounds.play('tap'); }")
    assert page.evaluate(STATE) == "suspended", "a muted page plays nothing"
    assert page.errors == []


def test_chromium_runs_no_hidden_browser_ui_pages(new_page, browser) -> None:  # type: ignore[no-untyped-def]
    """Each window of headless Chromium would build its address bar's popups as web pages in
    renderers of their own (``NO_OMNIBOX_WEBUI`` in tests/e2e/conftest.py): if a Chromium update
    renames the features, this fails instead of the browser tests quietly costing 40% more CPU."""
    page = new_page(phone=True)
    page.goto("data:text/html,<p>one page</p>")
    session = browser.new_browser_cdp_session()
    targets = session.send("Target.getTargets", {"filter": [{}]})["targetInfos"]
    assert "page" in {target["type"] for target in targets}
    assert [t["url"] for t in targets if t["type"] == "browser_ui"] == []
