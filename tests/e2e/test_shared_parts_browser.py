"""Every game's screens tell the room the same things, from shared parts (docs/decisions/0062).

One Panik Pilze room (a phone in English at 390 x 844 plays against a computer player; a TV in
German at 1920 x 1080 watches): the TV narrates the phone's move with its player and card, in
German and large; the phone says it in the second person, in English; both lines are the shared
narration part; when the phone leaves, the TV's away banner (the shared banner) names it.
One Panique room (a phone and a TV in German): both label the board with the same words (one
set, the catalog's: "Doktor", "Pflanze", "Mörder"), both show the turn clock as the shared banner,
and the news line is the shared narration, large on the TV. axe-core finds nothing serious."""

from __future__ import annotations

import pytest

from tests.e2e.axe import assert_accessible
from tests.e2e.conftest import CONTEXT, PHONE_SIZE, TV_SIZE
from tests.e2e.lobby import create_room_in_lobby, press
from tests.e2e.room_flow import no_errors

pytestmark = pytest.mark.browser


@pytest.fixture
def live(shared_live):  # type: ignore[no-untyped-def]
    """The tests of this module share one server (each makes its own room)."""
    return shared_live


def _open(browser, size: tuple[int, int], locale: str, phone: bool = False):  # type: ignore[no-untyped-def]
    """A page in its own context at ``size``, its browser asking for ``locale``."""
    options: dict = {"viewport": {"width": size[0], "height": size[1]}, "locale": locale, **CONTEXT}
    if phone:
        options.update(is_mobile=True, has_touch=True)
    context = browser.new_context(**options)
    page = context.new_page()
    page.touch = phone
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
    return context, page


def _room_with_a_bot(browser, base_url: str, game: str, phone_locale: str, tv_locale: str):  # type: ignore[no-untyped-def]
    """Nicole's phone creates a room of ``game`` and adds a computer player; the TV opens the
    table view; Nicole starts. Returns the two contexts and pages."""
    phone_context, phone = _open(browser, PHONE_SIZE, phone_locale, phone=True)
    tv_context, tv = _open(browser, TV_SIZE, tv_locale)
    code = create_room_in_lobby(phone, base_url, game, "Nicole")
    phone.wait_for_selector("#bots-panel:not([hidden])")
    press(phone, "#add-bot-btn")
    phone.wait_for_selector("#members .member.bot")
    tv.goto(f"{base_url}/r/{code}/table")
    tv.wait_for_selector("#members .member.bot")
    press(phone, "#start-btn")
    return (phone_context, tv_context), phone, tv


# Every text the narration line shows, in order, from now on (kept in window.told).
RECORD = """() => {
  window.told = [];
  const line = document.querySelector('[data-narration]');
  new MutationObserver(() => window.told.push(line.textContent))
    .observe(line, { childList: true, characterData: true, subtree: true });
}"""
FONT = "(sel) => parseFloat(getComputedStyle(document.querySelector(sel)).fontSize)"

# The phone's collect card to play, with its mushroom, action and count (null: none in hand).
COLLECT = """() => {
  const view = panicParty.state.frame.view;
  const c = view.hand.find((card) => card.kind === 'collect');
  return c ? { id: c.id, mushroom: c.mushroom, action: c.action, count: c.count } : null;
}"""
MUSHROOM = {"schlaubi": "Schlaubi", "chef": "Chef", "knuddel": "Knuddel", "panik": "Panik", "gifti": "Gifti"}
ACTION_DE = {"draw": "aufdecken", "turn": "umdrehen"}


def _play_a_collect_card(phone) -> dict:  # type: ignore[no-untyped-def]
    """On the phone's turns, swap until a collect card is in hand, then play it through the
    page's buttons; returns the card played."""
    for _ in range(6):
        phone.wait_for_selector("#pilze-hand button.pp-action:not([disabled])", timeout=30_000)
        card = phone.evaluate(COLLECT)
        if card is not None:
            press(phone.locator(f'#pilze-hand button.pp-action[data-card-id="{card["id"]}"]'))
            if card["action"] == "turn":
                for i in range(card["count"]):
                    press(phone.locator("#pilze-display button.pp-card").nth(i))
            press(phone, "#pilze-play")
            return card
        press(phone, "#pilze-swap")
        press(phone.locator("#pilze-hand button.pp-action").first)
        press(phone, "#pilze-play")
        phone.wait_for_selector("#pilze-hand button.pp-action[disabled]")
    raise AssertionError("no collect card came to the phone's hand")


def test_the_tv_narrates_a_panik_pilze_move_and_names_who_is_away(live, browser) -> None:  # type: ignore[no-untyped-def]
    contexts, phone, tv = _room_with_a_bot(browser, live.base_url, "panik_pilze", "en-US", "de-DE")
    try:
        tv.wait_for_selector('.pilze--table[data-phase="play"] #pilze-narration[data-narration]')
        phone.wait_for_selector('.pilze[data-phase="play"] #pilze-narration[data-narration]')
        tv.evaluate(RECORD)
        phone.evaluate(RECORD)
        card = _play_a_collect_card(phone)
        mushroom = MUSHROOM[card["mushroom"]]
        on_tv = f"Nicole spielt {mushroom}, {card['count']} {ACTION_DE[card['action']]}, und nimmt"
        on_phone = f"You play {mushroom}, {card['action']} {card['count']}, and take"
        tv.wait_for_function("w => window.told.some((t) => t.startsWith(w))", arg=on_tv, timeout=15_000)
        phone.wait_for_function("w => window.told.some((t) => t.startsWith(w))", arg=on_phone, timeout=15_000)
        # Large on the TV (read from the sofa), a line of text on the phone.
        assert tv.evaluate(FONT, "#pilze-narration") >= 32
        assert phone.evaluate(FONT, "#pilze-narration") < 20
        assert_accessible(tv, "Panik Pilze TV narrating")
        assert_accessible(phone, "Panik Pilze phone narrating")
        no_errors([phone, tv])
        # A TV switched on (or reloaded) mid-match says the last move told before it came: once
        # the bot has played and it is Nicole's turn again, nothing new happens until she plays.
        phone.wait_for_function("() => { const f = panicParty.state.frame; "
                                "return f && f.view.turn === f.seat; }", timeout=15_000)
        tv.reload()
        tv.wait_for_selector('.pilze--table[data-phase="play"] #pilze-narration[data-narration]')
        tv.wait_for_function("() => document.querySelector('#pilze-narration').textContent.trim()",
                             timeout=5_000)
        # Nicole leaves: the TV's away banner (banners.js) names her.
        contexts[0].close()
        away = tv.wait_for_selector("#away-line li.banner.away", timeout=15_000)
        assert "Nicole" in away.inner_text()
        assert tv.evaluate(FONT, "#away-line li.banner") >= 32
        no_errors([tv])
    finally:
        for context in contexts:
            context.close()


MARKS = """() => Object.fromEntries([...document.querySelectorAll('.pq-space')]
  .map((g) => [g.dataset.index, (g.querySelector('.pq-mark') || {}).textContent || null])
  .filter(([, mark]) => mark !== null))"""
WORDS = {"0": "REIN", "8": "Geist", "17": "Pause", "19": "Doktor", "21": "Pflanze", "23": "Mörder",
         "25": "Vampir", "29": "RAUS"}


def test_panique_labels_its_board_alike_on_phone_and_tv(live, browser) -> None:  # type: ignore[no-untyped-def]
    contexts, phone, tv = _room_with_a_bot(browser, live.base_url, "panique", "de-DE", "de-DE")
    try:
        for page in (phone, tv):
            page.wait_for_selector(".pq-space .pq-mark")
            # The turn clock: the shared banner, on the phone and the TV alike.
            page.wait_for_selector("#timers .timer.banner", timeout=15_000)
        phone_marks, tv_marks = phone.evaluate(MARKS), tv.evaluate(MARKS)
        assert phone_marks == tv_marks  # the same words on both screens
        words = {index: mark for index, mark in phone_marks.items() if index in WORDS}
        assert words == WORDS, phone_marks
        assert {index: tv_marks.get(index) for index in WORDS} == WORDS, tv_marks
        # The news line is the shared narration: it tells the first moves, large on the TV.
        tv.wait_for_selector("#pq-news[data-narration]")
        for _ in range(12):
            if tv.evaluate("() => document.querySelector('#pq-news').textContent.trim() !== ''"):
                break
            roll = phone.locator("#pq-roll:not([disabled]), .pq-choice:not([disabled])")
            roll.first.wait_for(timeout=30_000)
            version = phone.evaluate("() => panicParty.state.version")
            press(roll.first)
            phone.wait_for_function("v => panicParty.state.version > v", arg=version, timeout=30_000)
        tv.wait_for_function("() => document.querySelector('#pq-news').textContent.trim() !== ''", timeout=15_000)
        assert tv.evaluate(FONT, "#pq-news") >= 32
        assert_accessible(phone, "Panique phone with the shared parts")
        no_errors([phone, tv])
    finally:
        for context in contexts:
            context.close()
