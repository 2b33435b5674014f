"""Playing alone against computer players (issue 13): one phone-sized page creates a Panika
room in the lobby, reads what each level means under the add-bot menu (in English, then in
German through the page's own language switch, and back: docs/decisions/0059), adds two bots with
the waiting room's "Add bot" button (one normal, one hard), starts, and plays the match to its end
through the page's own buttons; the bots show with their robot mark in the members list and the
results, and the match is saved with them as bots."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.bots import bot_levels, level_text_key
from app.i18n import translate
from tests.e2e.axe import assert_accessible
from tests.e2e.layout import assert_not_clipped
from tests.e2e.lobby import create_room_in_lobby, press
from tests.e2e.room_flow import no_errors, results_text, saved_match_id
from tests.e2e.test_panika_browser import BOT, STOP
from tests.live import LiveServer

pytestmark = pytest.mark.browser

THINK_SCALE = 0.05
"""The bots think twenty times faster than the policies draw it: the match ends as soon as the
page's own player keeps up."""


@pytest.fixture
def bot_live(tmp_path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.5,
                    bot_think_scale=THINK_SCALE) as server:
        yield server


def assert_each_level_described(page, lang: str) -> None:  # type: ignore[no-untyped-def]
    """Each level the host can pick shows its game's description under the menu, on screen;
    normal, the default, when the page opens, and normal is left chosen."""
    page.wait_for_selector("#bots-panel:not([hidden])")
    about = page.locator("#bot-level-about")
    assert about.inner_text() == translate(lang, level_text_key("panika", "normal"))
    assert [o.get_attribute("value") for o in page.locator("#bot-level option").all()] == list(
        bot_levels("panika"))
    for level in (*bot_levels("panika"), "normal"):
        page.select_option("#bot-level", level)
        text = translate(lang, level_text_key("panika", level))
        assert about.inner_text() == text, (lang, level)
        assert_not_clipped(page)
    box = about.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box


def switch_language(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """The room page's own language switch (in the side sheet on a phone)."""
    if page.locator("#side-btn").is_visible():
        press(page, "#side-btn")
    link = page.locator("#room-lang")
    assert link.inner_text() == name
    press(page, "#room-lang")
    page.wait_for_function("lang => document.documentElement.lang === lang",
                           arg="de" if name == "Deutsch" else "en")


def test_one_phone_plays_panika_against_two_bots_to_the_end(bot_live, new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(phone=True)
    code = create_room_in_lobby(page, bot_live.base_url, "panika", "Nicole")
    assert_each_level_described(page, "en")
    switch_language(page, "Deutsch")
    assert_each_level_described(page, "de")
    switch_language(page, "English")
    page.wait_for_selector("#bots-panel:not([hidden])")
    assert page.inner_text("#add-bot-btn") == "Add bot"
    press(page, "#add-bot-btn")
    page.wait_for_selector("#members .member.bot >> nth=0")
    page.select_option("#bot-level", "hard")
    press(page, "#add-bot-btn")
    page.wait_for_function("() => document.querySelectorAll('#members .member.bot').length === 2")
    chips = page.inner_text("#members")
    assert "Bot Ada (bot, normal)" in chips and "Bot Alan (bot, hard)" in chips, chips
    assert page.locator("#members .member.bot .bot-mark").count() == 2
    assert_accessible(page, "waiting room with bots")

    press(page, "#start-btn")
    page.wait_for_selector("#panika-hand button.card")
    page.evaluate(BOT)
    page.wait_for_selector("#result:not([hidden]) #result-rows tr", timeout=240_000)
    page.evaluate(STOP)
    room = bot_live.registry.get(code)
    assert room.state.status == "finished"
    rows = results_text(page)
    assert "Bot Ada" in rows and "Bot Alan" in rows and "Nicole" in rows
    assert page.locator("#result-rows .bot-mark").count() == 2
    # The bots played their own turns: their seats moved in the match log.
    seats = {m.seat for m in room.state.match.log}
    assert {0, 1, 2} <= seats
    match_id = saved_match_id(page)
    with bot_live.http() as http:
        stored = http.get(f"/api/matches/{match_id}").json()
    assert [p["bot"] for p in stored["players"]] == [None, "normal", "hard"]
    no_errors([page])
