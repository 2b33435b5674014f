"""Panique with five heirs on a 360 x 640 phone in German (issue 23: every screen leads with what
its person can do now, and no game text is cut off): a seeded five-player match is played by a
fixed policy through the engine, and a German phone in a five-seat room (its host and four bots)
draws each state of it from the eyes of the seat the game waits on: every Roll and choice button
(the Butler's offer, the Ally's A/B/C, the rest offer) and, through the page's own B and C
buttons, the Ally's list of target heirs with its Back button, lies inside the screen at 44 px or
more, the game screen does not scroll and none of its text is cut off; the first state of each
kind is checked held sideways too (844 x 390, 740 x 360: decision 0060). The layout:
docs/games/panique.md ("Client", "Five heirs on a phone")."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from app.engine import Move, SeededRng
from app.games.panique import GAME
from app.games.panique import rules as panique_rules
from tests.e2e.axe import serious_violations
from tests.e2e.conftest import CONTEXT
from tests.e2e.layout import (
    SIDEWAYS, add_style, assert_touch_targets, broken_words, clipped_text, fit_problems, settle,
)
from tests.e2e.lobby import create_room_in_lobby, press
from tests.e2e.room_flow import no_errors

pytestmark = pytest.mark.browser

SEED = bytes([23, 5]) * 16
"""The match's dice (a fixed seed: the same states every run). With ``policy`` it offers the
Ally's choice and a rest within ``MOVES`` moves (the test asserts it)."""
MOVES = 400
HOST = "Marie-Luise Brandt"
"""A long two-word name (the bots' are "Bot Ada", ...): the heirs' strip at its widest."""


@pytest.fixture
def live(shared_live):  # type: ignore[no-untyped-def]
    return shared_live


def policy(view: dict[str, Any], turn: int) -> dict[str, Any]:
    """The seat's move: roll; else the choice's options in rotation (rest every other time, so
    that more heirs share spaces), B and C against the first target."""
    legal = view["legal"]
    if legal[0]["type"] == "roll":
        return legal[0]
    options = list(dict.fromkeys(a["option"] for a in legal))
    option = options[turn % len(options)]
    return next(a for a in legal if a["option"] == option)


def playthrough() -> list[dict[str, Any]]:
    """Each state of the seeded match as the seat it waits on sees it (its first seat: in the
    roll for the first turn everyone rolls, in seat order)."""
    rng = SeededRng(SEED)
    state = GAME.setup(5, GAME.parse_options({}), rng)
    views = []
    for turn in range(MOVES):
        if state.phase == "over" or state.pending is None:
            break
        seat = state.pending.seats[0]
        view = GAME.view(state, seat)
        views.append(view)
        GAME.step(state, Move(seat, GAME.parse_action(policy(view, turn))), rng)
    return views


SHOW = """(view) => {
  const game = panicParty.state.game;
  if (!game.realUpdate) { game.realUpdate = game.update; game.update = () => {}; }
  game.realUpdate({...panicParty.state.frame, view});
}"""
"""The page draws ``view`` and holds the server's frames meanwhile (they would draw over it)."""


SPILLS = """() => {
  const inside = (el, box) => { const r = el.getBoundingClientRect(), b = box.getBoundingClientRect();
    return r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && r.left >= b.left - 1 && r.right <= b.right + 1; };
  const root = document.querySelector('.pq-root'), card = document.querySelector('#pq-card');
  const out = [...document.querySelectorAll('.pq-side > :not([hidden])')].filter((el) => !inside(el, root))
    .map((el) => `${el.id || el.className} spills out of the game`);
  if (!card.hidden) out.push(...[...card.children].filter((el) => !inside(el, card))
    .map((el) => `${el.id || el.className} spills out of the card`));
  return out;
}"""
"""The parts of the game's side (the dice, buttons, news, card) that reach out of the game, and
the card's parts that reach out of the card (drawn over the page, as when a card shrinks under
its title)."""


def sideways(page) -> list[str]:  # type: ignore[no-untyped-def]
    """``problems`` and no broken word on the phone held sideways (decision 0060); back at
    360 x 640 after."""
    found = []
    try:
        for width, height in SIDEWAYS.values():
            page.set_viewport_size({"width": width, "height": height})
            found += [f"at {width}x{height}: {p}" for p in problems(page) + broken_words(page, "#game")]
    finally:
        page.set_viewport_size({"width": 360, "height": 640})
        settle(page)
    return found


def problems(page) -> list[str]:  # type: ignore[no-untyped-def]
    settle(page)
    found = fit_problems(page) + clipped_text(page, "#game") + page.evaluate(SPILLS)
    buttons = page.locator("#pq-roll, .pq-choice, .pq-target, .pq-back")
    if not buttons.count():
        found.append("no button to press")
    return found


@pytest.mark.long(40)
def test_five_heirs_every_choice_on_a_german_360_phone(browser, live, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The room's own match stays in its first roll (the page draws the test's states meanwhile).
    monkeypatch.setattr(panique_rules, "ROLL_SECONDS", 600)
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale="de-DE", **CONTEXT)
    try:
        page = context.new_page()
        page.touch = True  # a phone: tests.e2e.lobby.press taps it
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
        create_room_in_lobby(page, live.base_url, "panique", HOST)
        page.wait_for_selector("#bots-panel:not([hidden])")
        for n in range(1, 5):
            press(page, "#add-bot-btn")
            page.wait_for_function("n => document.querySelectorAll('#members .member.bot').length === n",
                                   arg=n)
        press(page, "#start-btn")
        page.wait_for_selector(".pq-space")
        # A person joining late or leaving is noted above the game for a few seconds: not
        # measured here (tests/e2e/test_room_explains_browser.py covers the note).
        add_style(page, "#away-line { display: none !important; }")
        failures: list[str] = []
        seen: set[str] = set()
        axed: set[str] = set()
        for i, view in enumerate(playthrough()):
            purpose = view["pending"]["purpose"]
            seen.add(purpose)
            page.evaluate(SHOW, view)
            # The page asks for reduced motion: a new roll shows its value at once, no tumble
            # (docs/games/panique.md, "Client").
            if page.locator(".pq-die.rolling").count():
                failures.append(f"state {i} ({purpose}): a die tumbles under reduced motion")
            found = problems(page)
            if purpose not in axed:  # axe once in each kind of state, and held sideways
                found += serious_violations(page)
                assert_touch_targets(page)
                axed.add(purpose)
                found += sideways(page)
            failures += [f"state {i} ({purpose}): {p}" for p in found]
            for option in ("B", "C"):  # the Ally's targets, through the page's own buttons
                button = page.locator(f'.pq-choice[data-option="{option}"]')
                if not button.count():
                    continue
                press(button)
                page.wait_for_selector(".pq-target")
                found = problems(page)
                if "ally targets" not in axed:
                    found += serious_violations(page)
                    assert_touch_targets(page)
                    axed.add("ally targets")
                failures += [f"state {i} (ally, {option}'s targets): {p}" for p in found]
                seen.add("ally targets")
                press(page, ".pq-back")
                page.wait_for_selector(".pq-choice")
        assert {"ally", "ally targets", "rest", "butler"} <= seen, seen
        assert not failures, "\n".join(itertools.islice(failures, 40))
        no_errors([page])
    finally:
        context.close()
