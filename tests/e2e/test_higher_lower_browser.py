"""The game that lives only in the tests (tests/game_packages/higher_lower), installed apart and
found through its entry point, is on the site like any other: one phone creates its room from the
lobby's card (its own picture), adds a computer player with "Add bot", and plays the match to its
end through the game's own page module and buttons; its rules page reads in English and German
(its own rules/ templates in the site's frame, its own stylesheet), and its match page replays
the match on the game's own board (docs/adding-a-game.md)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.e2e.axe import assert_accessible
from tests.e2e.layout import SIDEWAYS, broken_words, fit_problems, settle
from tests.e2e.lobby import create_room_in_lobby, press
from tests.e2e.room_flow import check_screen, no_errors, results_text, saved_match_id
from tests.live import LiveServer

pytestmark = pytest.mark.browser

OWN_TURN_OR_END = """() => !document.querySelector('#result').hidden
  || (document.querySelector('#hl-higher') && !document.querySelector('#hl-higher').disabled)"""


@pytest.fixture
def bot_live(tmp_path) -> Iterator[LiveServer]:  # type: ignore[no-untyped-def]
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.5, bot_think_scale=0.05) as server:
        yield server


def test_the_test_only_game_plays_to_its_end_with_a_bot_and_shows_its_rules_and_replay(  # type: ignore[no-untyped-def]
        bot_live, new_page) -> None:
    page = new_page(phone=True)
    page.goto(bot_live.base_url + "/")
    picture = page.get_attribute('.game-card[data-game="higher_lower"] img', "src")
    assert re.fullmatch(r"/games/higher_lower/page/picture\.[0-9a-f]{10}\.svg", picture or "")
    code = create_room_in_lobby(page, bot_live.base_url, "higher_lower", "Nicole")
    page.wait_for_selector("#bots-panel:not([hidden])")
    press(page, "#add-bot-btn")
    page.wait_for_selector("#members .member.bot")
    assert "Lives" in page.inner_text("#options-form")  # its option, from its own texts
    press(page, "#start-btn")
    page.wait_for_selector("#hl-card")
    page.wait_for_function("() => document.body.classList.contains('in-game')")  # layout = "fill"
    turns = 0
    while True:
        page.wait_for_function(OWN_TURN_OR_END, timeout=30_000)
        if page.locator("#result").is_visible():
            break
        if turns == 0:
            assert page.inner_text("#hl-status") == "Your turn: higher or lower?"
            check_screen(page, "higher or lower, own turn")
            # Like every game, it fits a phone held sideways (decision 0060), its words whole.
            for width, height in SIDEWAYS.values():
                page.set_viewport_size({"width": width, "height": height})
                settle(page)
                assert fit_problems(page) == [] and broken_words(page) == [], (width, height)
            page.set_viewport_size({"width": 390, "height": 844})
        press(page, "#hl-higher" if int(page.inner_text("#hl-card")) < 26 else "#hl-lower")
        page.wait_for_function("() => document.querySelector('#hl-higher').disabled "
                               "|| !document.querySelector('#result').hidden")
        turns += 1
    room = bot_live.registry.get(code)
    assert room.state.status == "finished" and turns > 0
    assert {0, 1} <= {m.seat for m in room.state.match.log}  # the bot played its own turns
    rows = results_text(page)
    assert "Nicole" in rows and "Bot Ada" in rows
    match_id = saved_match_id(page)

    # Its rules page, linked from the room, in English, then in German.
    rules = page.get_attribute(".room-title .rules-link", "href")
    assert rules == "/games/higher_lower/rules"
    page.goto(bot_live.base_url + rules)
    assert page.inner_text("h1") == "Higher or Lower: the rules"
    assert page.locator('link[href^="/games/higher_lower/page/style."]').count() == 1
    assert_accessible(page, "higher or lower rules")
    page.click("a.lang-switch[hreflang=de]")
    page.wait_for_selector("html[lang=de]")
    assert page.inner_text("h1") == "Higher or Lower: die Regeln"
    assert "höher oder niedriger" in page.inner_text("article")

    # Its match page replays the match on the game's own board, back to the first move.
    page.goto(f"{bot_live.base_url}/matches/{match_id}?move=1")
    page.wait_for_selector("#replay-board .hl-card")
    first = page.inner_text("#replay-board .hl-card")
    page.click("#replay-last")
    page.wait_for_function("() => document.querySelector('#replay-board .hl-status')"
                           ".textContent === 'Die Partie ist vorbei.'")
    assert page.inner_text("#replay-board .hl-card") != first  # every move turns a new card
    assert page.locator("#replay-board .hl-buttons").count() == 0  # read-only: no buttons
    no_errors([page])
