"""Panique's board labels on a 360 x 640 phone (issue 23: "Aussetze[n]" spilled out of its
space in German): a phone in German, and one in English, plays against a computer player through
the page's buttons; at the start (the board at its tallest) and once an encounter card shows (the
board at its smallest) every label of every space lies inside that space's box, is written out
(no ellipsis, no catalog key) and is squeezed to no less than 80 % of its width; no text of the
game is cut off. The labels' layout: docs/games/panique.md ("Client", "The house")."""

from __future__ import annotations

import itertools

import pytest

from tests.e2e.conftest import CONTEXT
from tests.e2e.layout import assert_not_clipped, settle
from tests.e2e.lobby import create_room_in_lobby
from tests.e2e.room_flow import no_errors

pytestmark = pytest.mark.browser

LABELS = """() => [...document.querySelectorAll('.pq-space')].flatMap((g) => {
  const cell = g.querySelector('rect').getBoundingClientRect();
  return [...g.querySelectorAll('text')].map((el) => {
    const r = el.getBoundingClientRect();
    const ctm = el.getScreenCTM();
    let squeeze = 1;
    if (el.hasAttribute('textLength')) {
      const free = el.cloneNode(true);
      free.removeAttribute('textLength');
      el.parentNode.append(free);
      squeeze = parseFloat(el.getAttribute('textLength')) / free.getComputedTextLength();
      free.remove();
    }
    return { space: Number(g.dataset.index), cls: el.getAttribute('class'), text: el.textContent,
      px: parseFloat(getComputedStyle(el).fontSize) * (ctm ? Math.hypot(ctm.a, ctm.b) : 1),
      out: Math.max(cell.left - r.left, r.right - cell.right, cell.top - r.top, r.bottom - cell.bottom),
      box: [r.left, r.top, r.right, r.bottom], squeeze };
  });
})"""
"""Every label of the board: its space, class, text, rendered font size (the computed size times
the drawing's scale), how far its box reaches out of its space's box (px; negative inside) and
its box and how much it is squeezed (1: not at all)."""

NAMED = {0, 3, 5, 8, 10, 13, 15, 17, 19, 21, 23, 25, 27, 29}
"""The spaces with an instruction (docs/games/panique.md, decision 1): each shows a mark."""


def board_labels(page) -> list[dict]:  # type: ignore[no-untyped-def]
    return page.evaluate(LABELS)


def label_problems(labels: list[dict]) -> list[str]:
    """The labels that spill out of their space, cover another label of their space, are cut or
    squeezed out of shape."""
    problems = []
    for a, b in itertools.combinations(labels, 2):
        across = min(a["box"][2], b["box"][2]) - max(a["box"][0], b["box"][0])
        down = min(a["box"][3], b["box"][3]) - max(a["box"][1], b["box"][1])
        if a["space"] == b["space"] and across > 0.5 and down > 0.5:
            problems.append(f"space {a['space']}: {a['text']!r} and {b['text']!r} overlap")
    for label in labels:
        what = f"space {label['space']} {label['cls']} {label['text']!r}"
        if label["out"] > 0.5:
            problems.append(f"{what} reaches {label['out']:.1f} px out of its space")
        if label["squeeze"] < 0.8:
            problems.append(f"{what} squeezed to {label['squeeze']:.0%}")
        text = label["text"].strip()
        if not text or "…" in text or text.startswith("game.") or "{" in text:
            problems.append(f"{what} is not written out")
    return problems


def _check(page, when: str) -> None:  # type: ignore[no-untyped-def]
    settle(page)
    labels = board_labels(page)
    assert {label["space"] for label in labels if label["cls"] == "pq-mark"} == NAMED, labels
    numbered = {label["space"] for label in labels if label["cls"] == "pq-num"}
    assert numbered >= set(range(30)) - NAMED, labels  # a short space shows its mark alone
    assert not label_problems(labels), (when, label_problems(labels))
    assert_not_clipped(page, ".pq-root")


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
def test_every_board_label_fits_its_space_on_a_360_px_phone(browser, quick_bots, locale) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale=locale, **CONTEXT)
    try:
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        create_room_in_lobby(page, quick_bots.base_url, "panique", "Nicole")
        page.wait_for_selector("#bots-panel:not([hidden])")
        page.click("#add-bot-btn")
        page.wait_for_selector("#start-btn:not([disabled])")
        page.click("#start-btn")
        page.wait_for_selector(".pq-space")
        _check(page, "at the start")
        # Play through the page's buttons until an encounter's card takes its share of the screen.
        for _ in range(200):
            if page.locator("#pq-card:not([hidden])").count():
                break
            version = page.evaluate("() => panicParty.state.version || 0")
            press = page.locator("#pq-roll:not([disabled]), .pq-choice:not([disabled])")
            if press.count():
                press.first.click()
            page.wait_for_function("v => (panicParty.state.version || 0) > v", arg=version,
                                   timeout=30_000)
        assert page.locator("#pq-card:not([hidden])").count(), "no encounter came"
        _check(page, "with the encounter card")
        no_errors([page])
    finally:
        context.close()
