"""Panik Pilze on the TV (issue 23): on the 1920 x 1080 table view the game's own text (player
names, mushroom names, stacks, totals, the status line, the pile's count, the cards' names)
reads from the sofa at 32 px or more, every card is at least 160 x 200 px, the board still fits one screen,
and axe-core finds nothing serious."""

from __future__ import annotations

import pytest

from tests.clock import wait_until
from tests.e2e.axe import assert_accessible
from tests.e2e.conftest import CONTEXT, TV_SIZE
from tests.e2e.layout import fit_problems, settle
from tests.e2e.test_panik_pilze_browser import _mover, _open_room, play_turn

pytestmark = pytest.mark.browser

TV_TEXT = """(selectors) => selectors.flatMap((sel) => [...document.querySelectorAll(sel)]
  .filter((el) => el.getClientRects().length && el.textContent.trim())
  .map((el) => [sel, el.textContent.trim().slice(0, 30), parseFloat(getComputedStyle(el).fontSize)]))"""
BOARD_TEXT = [".pilze--table .pp-pname", ".pilze--table .pp-type .pp-name", ".pilze--table .pp-stack .pp-n",
              ".pilze--table .pp-total", ".pilze--table .pp-status", ".pilze--table .pp-pile-count",
              ".pilze--table .pp-card .pp-name", ".pilze--table .pp-down", ".pilze--table .pp-corner", ".pilze--table .pp-total-head"]
CARD_SIZES = """() => [...document.querySelectorAll('.pilze--table .pp-card')]
  .filter((el) => el.getClientRects().length)
  .map((el) => [el.getBoundingClientRect().width, el.getBoundingClientRect().height])"""


@pytest.fixture
def live(shared_live):  # type: ignore[no-untyped-def]
    return shared_live


def test_the_tv_shows_panik_pilze_large_at_1080p(live, new_page, browser) -> None:  # type: ignore[no-untyped-def]
    code, pages = _open_room(live, new_page)
    room = live.registry.get(code)
    width, height = TV_SIZE
    context = browser.new_context(viewport={"width": width, "height": height}, **CONTEXT)
    tv = context.new_page()
    try:
        tv.goto(f"{live.base_url}/r/{code}/table")
        tv.wait_for_selector('body.table-mode .pilze--table[data-phase="play"] .pp-who')
        # A few turns, so the display and the baskets hold cards.
        for _ in range(4):
            version = room.state.match.version
            assert play_turn(_mover(pages))
            wait_until(lambda: room.state.match.version > version, 30, "the turn accepted")  # noqa: B023
        tv.wait_for_function("n => document.querySelector('#pilze-pile-count').textContent.trim() === String(n)",
                             arg=len(room.state.match.state.pile), timeout=10_000)
        settle(tv)
        sizes = tv.evaluate(TV_TEXT, BOARD_TEXT)
        kinds = {sel for sel, _, _ in sizes}
        assert len(kinds) >= 7, sizes
        small = [s for s in sizes if s[2] < 32]
        assert not small, small
        cards = tv.evaluate(CARD_SIZES)
        assert cards and all(w >= 160 and h >= 200 for w, h in cards), cards
        assert fit_problems(tv) == []
        assert_accessible(tv, "Panik Pilze TV at 1080p")
        assert getattr(tv, "errors", []) == []
    finally:
        context.close()
