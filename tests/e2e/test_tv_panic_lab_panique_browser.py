"""Panic Lab and Panique on the TV (issue 23): a laptop host, two bots, the table view at
1920 x 1080 once the match runs. The game's own player names, status and prompt lines, scores
and card text measure 32 px or more (computed font size); the ring's tiles and the haunted
house's board fill the screen, and every label of the board (a space's number, mark and name, a
room's name) renders at 24 px or more inside its space; axe-core finds nothing serious or
critical."""

from __future__ import annotations

import random

import pytest

from tests.e2e.axe import assert_accessible
from tests.e2e.conftest import TV_SIZE
from tests.e2e.lobby import create_room_in_lobby
from tests.e2e.room_flow import no_errors
from tests.e2e.test_panique_board_labels_browser import NAMED, board_labels, label_problems
from tests.e2e.test_panique_browser import _act

pytestmark = pytest.mark.browser


@pytest.fixture
def live(shared_live):  # type: ignore[no-untyped-def]
    """The tests of this module share one server (each makes its own rooms)."""
    return shared_live


TV_TEXT = """(selectors) => selectors.flatMap((sel) => [...document.querySelectorAll(sel)]
  .filter((el) => el.getClientRects().length && el.textContent.trim())
  .map((el) => [sel, el.textContent.trim().slice(0, 30), parseFloat(getComputedStyle(el).fontSize)]))"""
"""[selector, text, computed font size in px] of every shown element with text."""

BOXES = """(sel) => [...document.querySelectorAll(sel)].filter((el) => el.getClientRects().length)
  .map((el) => { const r = el.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; })"""
"""[width, height] in px of every shown element the selector finds."""


def _tv_of_a_running_match(live, new_page, game: str):  # type: ignore[no-untyped-def]
    """A host with two bots starts a match of ``game``; returns (host, tv) with the TV on the
    room's table view at 1920 x 1080."""
    host = new_page()
    code = create_room_in_lobby(host, live.base_url, game, "Nicole")
    host.wait_for_selector("#bots-panel:not([hidden])")
    host.click("#add-bot-btn")
    host.wait_for_selector("#members .member.bot >> nth=0")
    host.click("#add-bot-btn")
    host.wait_for_function("() => document.querySelectorAll('#members .member.bot').length === 2")
    tv = new_page(size=TV_SIZE)
    tv.goto(f"{live.base_url}/r/{code}/table")
    tv.wait_for_selector('#conn[data-state="connected"]')
    tv.wait_for_function("() => document.querySelectorAll('#members .member.bot').length === 2")
    host.click("#start-btn")
    return host, tv


def _all_large(sizes: list, selectors: list[str], minimum: float = 32) -> None:
    found = {sel for sel, _, _ in sizes}
    assert found == set(selectors), (set(selectors) - found, sizes)
    small = [s for s in sizes if s[2] < minimum]
    assert not small, small


def test_panic_lab_reads_from_the_sofa(live, new_page) -> None:  # type: ignore[no-untyped-def]
    host, tv = _tv_of_a_running_match(live, new_page, "panic_lab")
    tv.wait_for_selector(".pl-root.table .pl-tile")
    tv.wait_for_selector(".pl-root.table .pl-player .pl-name >> nth=2")
    tv.wait_for_function("() => document.querySelector('.pl-banner').textContent.trim() !== ''")
    selectors = [".pl-banner", ".pl-player .pl-name"]
    _all_large(tv.evaluate(TV_TEXT, selectors), selectors)
    # The caption and each player's state, whenever they show.
    more = tv.evaluate(TV_TEXT, [".pl-caption", ".pl-player .pl-state"])
    assert all(size >= 32 for _, _, size in more), more
    # The scores: each player's tokens, pips big enough to count from the sofa.
    pips = tv.evaluate(BOXES, ".pl-player .pl-pip")
    assert pips and all(w >= 24 and h >= 24 for w, h in pips), pips
    # The ring takes most of the screen's height; each tile is at least 90 px.
    ring = tv.evaluate(BOXES, ".pl-ring")
    assert ring and ring[0][1] >= 800, ring
    tiles = tv.evaluate(BOXES, ".pl-tile")
    assert len(tiles) >= 10 and all(w >= 90 and h >= 90 for w, h in tiles), tiles
    assert tv.evaluate("() => document.documentElement.scrollHeight <= innerHeight + 1")
    assert_accessible(tv, "Panic Lab table view")
    no_errors([host, tv])


def test_panique_reads_from_the_sofa(live, new_page) -> None:  # type: ignore[no-untyped-def]
    host, tv = _tv_of_a_running_match(live, new_page, "panique")
    tv.wait_for_selector(".pq-table .pq-space")
    tv.wait_for_selector(".pq-table .pq-heir-name >> nth=2")
    tv.wait_for_function("() => document.querySelector('.pq-prompt')?.textContent.trim()")
    # Nicole plays her heir through her page's buttons (the match waits on her otherwise, until
    # her timer plays for her) until an heir meets an encounter: the card shows too (its text is
    # measured below).
    pick = random.Random(5)
    card = "#pq-card:not([hidden]) .pq-lines li"
    while not host.locator(card).count():
        host.wait_for_function(
            "(card) => document.querySelector(card) || document.querySelector("
            "'#pq-roll:not([disabled]), .pq-target:not([disabled]), .pq-choice:not([disabled])')",
            arg=card, timeout=60_000)
        version = host.evaluate("() => panicParty.state.version")
        if not host.locator(card).count() and _act(host, pick):
            host.wait_for_function("(v) => panicParty.state.version !== v", arg=version,
                                   timeout=30_000)
    tv.wait_for_selector(card, timeout=30_000)
    selectors = [".pq-heir-name", ".pq-hearts", ".pq-prompt", ".pq-die-box figcaption"]
    _all_large(tv.evaluate(TV_TEXT, selectors), selectors)
    # The card's title and lines, the news and the badges, whenever they show.
    more = tv.evaluate(TV_TEXT, [".pq-card h3", ".pq-lines li", ".pq-news", ".pq-badge", ".pq-outcome", ".pq-die"])
    assert all(size >= 32 for _, _, size in more), more
    # The dice and the board: large; every space of the house at least 56 px.
    # The prompt has a line of its own, not a word per line beside the dice.
    prompt = tv.evaluate(BOXES, ".pq-prompt")
    assert prompt and prompt[0][0] >= 400, prompt
    dice = tv.evaluate(BOXES, ".pq-die")
    assert dice and all(w >= 120 and h >= 120 for w, h in dice), dice
    board = tv.evaluate(BOXES, ".pq-board")
    assert board and board[0][0] >= 1100 and board[0][1] >= 750, board
    spaces = tv.evaluate(BOXES, ".pq-space rect")
    assert len(spaces) >= 20 and all(w >= 56 and h >= 56 for w, h in spaces), spaces
    # The board's labels, as rendered (the computed size times the drawing's scale): 24 px or
    # more, each inside its space; every named space shows its mark and its name, every room its
    # name (in its first blank space).
    labels = board_labels(tv)
    small = [(label["space"], label["text"], label["px"]) for label in labels if label["px"] < 24]
    assert not small, small
    assert not label_problems(labels), label_problems(labels)
    for cls in ("pq-mark", "pq-name"):
        assert {label["space"] for label in labels if label["cls"] == cls} == NAMED, (cls, labels)
    assert len({label["space"] for label in labels if label["cls"] == "pq-room"}) == 12, labels
    assert tv.evaluate("() => document.documentElement.scrollHeight <= innerHeight + 1")
    assert_accessible(tv, "Panique table view")
    no_errors([host, tv])
