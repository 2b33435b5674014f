"""The game that lives only in the tests (tests/game_packages/higher_lower), installed apart and
found through its entry point, is on the site like any other: one phone creates its room from the
lobby's card (its own picture), adds a computer player with "Add bot", and plays the match to its
end through the game's own page module and buttons; its rules page reads in English and German
(its own rules/ templates in the site's frame, its own stylesheet), and its match page replays
the match on the game's own board (docs/adding-a-game.md). Its end is the site's shared results
(static/js/results.js): the winner named once, the places revealed, the seed one tap away, and
after "Play again" and a second match the evening's standings count both."""

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


def _play_to_the_end(page, check: bool = False) -> int:  # type: ignore[no-untyped-def]
    """The person guesses through the page's buttons until the results show; returns the turns."""
    turns = 0
    while True:
        page.wait_for_function(OWN_TURN_OR_END, timeout=30_000)
        if page.locator("#result").is_visible():
            return turns
        if turns == 0 and check:
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


def _the_result_names_the_winner_once(page, result) -> None:  # type: ignore[no-untyped-def]
    """One headline: "You win!" on the person's own phone, else the ending's sentence naming the
    winners; no other line of the results repeats it."""
    page.wait_for_selector('#result[data-reveal="done"]')
    headline = page.inner_text("#result-summary")
    mine = any(p["winner"] and p["nickname"] == "Nicole" for p in result["players"])
    text = page.inner_text("#result")
    if mine:
        assert headline.startswith("You win") and text.count("You win") == 1, text
    else:
        assert "Bot Ada" in headline and re.search(r"\bwins?\b", headline), headline
        assert len(re.findall(r"\bwins?\b", text)) == 1, text
    ranked = sorted(result["players"], key=lambda p: p["rank"])
    assert page.get_attribute("#result-rows", "data-revealed") == ",".join(
        p["nickname"] for p in reversed(ranked))


def _evening(page) -> list[tuple[str, int, int]]:  # type: ignore[no-untyped-def]
    rows = page.evaluate("""() => [...document.querySelectorAll('#evening-rows tr')]
      .map((tr) => [...tr.children].map((td) => td.textContent.replace('🤖', '').trim()))""")
    return [(name, int(wins), int(points)) for name, wins, points in rows]


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
    turns = _play_to_the_end(page, check=True)
    room = bot_live.registry.get(code)
    assert room.state.status == "finished" and turns > 0
    assert {0, 1} <= {m.seat for m in room.state.match.log}  # the bot played its own turns
    rows = results_text(page)
    assert "Nicole" in rows and "Bot Ada" in rows
    first_id = saved_match_id(page)
    _the_result_names_the_winner_once(page, room.state.result)
    # The seed is one tap away (folded behind "Check this match"), not on the screen.
    assert page.locator("#result-seed").is_hidden()
    press(page, "#result-check summary")
    page.wait_for_selector("#result-seed", state="visible")
    assert page.inner_text("#result-seed") == room.state.result["seed"]
    first = _evening(page)
    assert [row[0] for row in first] == [r["nickname"] for r in room.state.standings.table({})]
    assert sum(wins for _, wins, _ in first) >= 1

    # Play again: the evening's standings count both matches.
    press(page, "#rematch-btn")
    page.wait_for_function("() => document.querySelector('#result').hidden")
    _play_to_the_end(page)
    match_id = saved_match_id(page)
    assert match_id != first_id
    _the_result_names_the_winner_once(page, room.state.result)
    both = _evening(page)
    assert {name for name, _, _ in both} == {"Nicole", "Bot Ada"}
    assert sum(wins for _, wins, _ in both) >= 2
    assert [(r.wins, r.points, r.matches) for r in room.state.standings.rows.values()] == [
        (w, p, 2) for _, w, p in sorted(both, key=lambda row: row[0] != "Nicole")]
    assert_accessible(page, "higher or lower, the evening's standings")

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
