"""A German browser sees the room and the game in German (docs/architecture.md, "Languages"):
a laptop and a phone whose browsers ask for German (``locale="de-DE"``, hence
``Accept-Language: de-DE``) play a few moves of Panika through the page's buttons, beside a phone
in English in the same room. The room's texts and the game's events are German on the German
pages, with the players' nicknames in place of the seat markers, and English on the English one."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import CONTEXT, LAPTOP_SIZE, PHONE_SIZE
from tests.e2e.lobby import create_room_in_lobby, join_with_nickname
from tests.e2e.room_flow import no_errors, wait_all, wait_member
from tests.e2e.test_panika_browser import BOT, STOP

pytestmark = pytest.mark.browser


def _page(browser, contexts: list, locale: str, phone: bool):  # type: ignore[no-untyped-def]
    width, height = PHONE_SIZE if phone else LAPTOP_SIZE
    options: dict = {"viewport": {"width": width, "height": height}, "locale": locale,
                     **CONTEXT}
    if phone:
        options.update(is_mobile=True, has_touch=True)
    context = browser.new_context(**options)
    contexts.append(context)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
    return page


def _log(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator("#event-log").evaluate("ol => ol.textContent")


def test_german_browsers_see_the_room_and_the_events_in_german(live, browser) -> None:  # type: ignore[no-untyped-def]
    contexts: list = []
    try:
        host = _page(browser, contexts, "de-DE", phone=False)
        code = create_room_in_lobby(host, live.base_url, "panika", "Nicole")
        assert host.get_attribute("html", "lang") == "de"
        phone = _page(browser, contexts, "de-DE", phone=True)
        english = _page(browser, contexts, "en-US", phone=True)
        join_with_nickname(phone, f"{live.base_url}/r/{code}", "Ryan")
        join_with_nickname(english, f"{live.base_url}/r/{code}", "Brendon")
        for name in ("Ryan", "Brendon"):
            wait_member(host, name)

        # The room page in German: the template's texts and the script's.
        host.wait_for_selector('#conn[data-state="connected"]')
        assert host.inner_text("#conn-text") == "Verbunden"
        assert host.inner_text("#waiting-title") == "Warteraum"
        assert host.inner_text("#start-btn") == "Partie starten"
        assert host.inner_text("#invite-title") == "Lade deine Freunde ein"
        assert host.inner_text("#options-form").startswith("Sekunden pro Zug")
        assert "Du bist dabei, Ryan — Nicole startet die Partie" in phone.inner_text("#waiting-note")
        assert "Sekunden pro Zug" in phone.inner_text("#options-text")
        assert "You're in, Brendon — Nicole starts the match" in english.inner_text("#waiting-note")

        host.click("#start-btn")
        players = [host, phone, english]
        wait_all(players, "#panika-hand button.card")
        for page in players:
            page.evaluate(BOT)
        # The first moves: a play event on every page, each in its own language.
        host.wait_for_function(
            "() => / spielt|Du spielst/.test(document.getElementById('event-log').textContent)",
            timeout=20_000)
        english.wait_for_function(
            "() => / plays /.test(document.getElementById('event-log').textContent)",
            timeout=20_000)
        for page in players:
            page.evaluate(STOP)

        log = _log(host)
        assert "{seat:" not in log and "{" not in log, log
        assert re.search(r"(Nicole|Ryan|Brendon) spielt|Du spielst", log), log
        assert "Eine neue Partie Panika beginnt." in log, log
        assert " plays " not in log and "A new match" not in log, log
        # A player's own moves read in the second person ("Du spielst ..."), never by nickname.
        assert "Nicole spielt" not in log and "Nicole bekommt" not in log, log
        phone_log = _log(phone)
        assert "{" not in phone_log and re.search(r"(Nicole|Brendon) spielt|Du spielst", phone_log)
        assert "Ryan spielt" not in phone_log, phone_log
        english_log = _log(english)
        assert "{" not in english_log and "A new match of Panika begins." in english_log
        assert "spielt" not in english_log
        # The game's own texts are German too (the Play button, the counter's label).
        assert "spielen" in host.inner_text("#panika-play").lower()
        assert host.locator("#panika-hand").get_attribute("aria-label") == "Deine Hand"
        assert english.locator("#panika-hand").get_attribute("aria-label") == "Your hand"
        # The renderer itself (static/js/texts.js, eventLine), on the German phone (seat 1 reads).
        lines = phone.evaluate("""async () => {
          const { eventLine } = await import('/static/js/texts.js');
          const names = (s) => ['Nicole', 'Ryan', 'Brendon'][s];
          const penalty = (seat, n) => ({ kind: 'penalty', seat, data: { cards: n, n }, text: 'x' });
          return [
            eventLine(penalty(0, 2), 'panika', names, 1),
            eventLine(penalty(1, 1), 'panika', names, 1),
            eventLine({ kind: 'steal', seat: 2, data: { mushroom: 'chef', victim: 0 }, text: 'x' },
                      'panik_pilze', names, 1),
            eventLine({ kind: 'order', seat: null, data: { msg: 'tie', tied: [0, 1, 2], top: 5 }, text: 'x' },
                      'panique', names, 1),
            eventLine({ kind: 'no_such_kind', seat: 0, text: '{seat:0} did something' }, 'panika', names, 1),
          ];
        }""")
        assert lines == [
            "Nicole bekommt 2 Strafkarten", "Du bekommst 1 Strafkarte",
            "Brendon stiehlt Nicole einen Chef", "Gleichstand mit 5 zwischen Nicole, Ryan und Brendon: sie würfeln erneut",
            "Nicole did something",
        ], lines
        no_errors(players)
    finally:
        for context in contexts:
            context.close()
