"""Does the game fit the screen? A reusable check for every game's browser test.

``assert_fits(page)`` checks the page as it is now: nothing overflows horizontally
(``document.scrollingElement.scrollWidth <= innerWidth``), the game screen does not scroll
vertically, and every interactive element of the game and of the room header lies inside the
viewport. ``assert_fits_everywhere(page)`` resizes the page through the five screen sizes of
issue 8 (phones, laptops, a TV) and checks each. ``assert_touch_targets`` and
``assert_readable`` check the 44 x 44 px targets and the 12 px text floor.
"""

from __future__ import annotations

from pathlib import Path

VIEWPORTS: dict[str, tuple[int, int]] = {
    "phone-360x640": (360, 640),
    "phone-390x844": (390, 844),
    "laptop-1280x720": (1280, 720),
    "laptop-1366x768": (1366, 768),
    "tv-1920x1080": (1920, 1080),
}
SIDEWAYS: dict[str, tuple[int, int]] = {
    "phone-sideways-844x390": (844, 390),
    "phone-sideways-740x360": (740, 360),
}
"""A phone held sideways (decision 0060): a phone's page is checked at these sizes too."""

# The parts of the room page whose controls must be on screen during play.
GAME_SCOPE = "#game, .room-header, #timers"
INTERACTIVE = "button, a[href], input, select, textarea, summary, [tabindex], [role=button]"

_PROBLEMS = """([scope, interactive, vertical]) => {
  const vw = window.innerWidth, vh = window.innerHeight;
  const doc = document.scrollingElement;
  const problems = [];
  if (doc.scrollWidth > vw) problems.push(`horizontal overflow: scrollWidth ${doc.scrollWidth} > ${vw}`);
  if (vertical && doc.scrollHeight > vh + 1) problems.push(`vertical scroll: scrollHeight ${doc.scrollHeight} > ${vh}`);
  const seen = new Set();
  for (const box of document.querySelectorAll(scope)) {
    for (const el of [box, ...box.querySelectorAll(interactive)]) {
      if (seen.has(el) || !el.matches(interactive)) continue;
      seen.add(el);
      const r = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if ((r.width === 0 && r.height === 0) || style.visibility === "hidden") continue;
      if (r.left < -1 || r.top < -1 || r.right > vw + 1 || r.bottom > vh + 1) {
        const name = el.id || el.dataset.index || el.dataset.cardId || el.className.baseVal || el.className || el.tagName;
        problems.push(`${el.tagName.toLowerCase()} ${name} outside the viewport: ` +
          `${Math.round(r.left)},${Math.round(r.top)} to ${Math.round(r.right)},${Math.round(r.bottom)} in ${vw}x${vh}`);
      }
    }
  }
  return problems;
}"""

_SMALL_TARGETS = """([scope, interactive, min]) => {
  const small = [];
  for (const box of document.querySelectorAll(scope)) {
    for (const el of box.querySelectorAll(interactive)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (getComputedStyle(el).visibility === "hidden") continue;
      if (el.matches("ol[tabindex], ul[tabindex], [tabindex='-1']")) continue; // scroll areas
      if (r.width < min - 0.5 || r.height < min - 0.5) {
        const name = el.id || el.dataset.index || el.getAttribute("aria-label") || el.textContent.trim().slice(0, 30) || el.tagName;
        small.push(`${el.tagName.toLowerCase()} "${name}": ${r.width.toFixed(1)}x${r.height.toFixed(1)}`);
      }
    }
  }
  return small;
}"""

_SMALL_TEXT = """([scope, min]) => {
  const small = new Set();
  for (const box of document.querySelectorAll(scope)) {
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      const el = node.parentElement;
      if (!node.textContent.trim() || !el) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (el.closest("[aria-hidden=true], .visually-hidden")) continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      // SVG text scales with its drawing: measure its rendered height instead.
      const rendered = el instanceof SVGElement ? r.height : size;
      if (rendered < min - 0.05) small.add(`"${node.textContent.trim().slice(0, 30)}" at ${rendered.toFixed(1)}px`);
    }
  }
  return [...small];
}"""


_SETTLED = """async () => {
  const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  await frames();
  for (let i = 0; i < 600; i++) {
    const running = document.getAnimations().filter((a) => a.playState === "running"
      && a.effect && a.effect.getComputedTiming().endTime !== Infinity);
    if (!running.length && !document.querySelector(".flipping")) return;
    await Promise.all(running.map((a) => a.finished.catch(() => null)));
    await frames();
  }
}"""


def settle(page) -> None:  # type: ignore[no-untyped-def]
    """Wait for the page itself to be still: two frames rendered (a layout pass, the resize
    and size observers' redraws), then every animation or transition that ends has ended and
    no card is flipping (a game's own animation class). Waits for events, never a fixed time."""
    page.evaluate(_SETTLED)


def fit_problems(page, scope: str = GAME_SCOPE, vertical: bool = True) -> list[str]:  # type: ignore[no-untyped-def]
    return page.evaluate(_PROBLEMS, [scope, INTERACTIVE, vertical])


def assert_fits(page, scope: str = GAME_SCOPE, vertical: bool = True) -> None:  # type: ignore[no-untyped-def]
    """The page as it is: no horizontal overflow, no vertical scroll (``vertical``), and every
    interactive element under ``scope`` inside the viewport."""
    problems = fit_problems(page, scope, vertical)
    size = page.viewport_size
    assert not problems, f"does not fit {size['width']}x{size['height']} at {page.url}:\n" + "\n".join(problems)


def assert_fits_everywhere(page, scope: str = GAME_SCOPE, screenshots: Path | None = None,  # type: ignore[no-untyped-def]
                           name: str = "") -> None:
    """``assert_fits`` at each of the five sizes of issue 8, and for a phone's page (a touch
    page: ``new_page(phone=True)``) held sideways too; the page's own size is restored.
    With ``screenshots``, a failing size is saved there as ``<name>-<size>-misfit.png``."""
    original = page.viewport_size
    failures = []
    sizes = {**VIEWPORTS, **(SIDEWAYS if getattr(page, "touch", False) else {})}
    try:
        for label, (width, height) in sizes.items():
            page.set_viewport_size({"width": width, "height": height})
            settle(page)  # a layout pass and the game's resize handling
            problems = fit_problems(page, scope)
            if problems:
                failures.append(f"{label}: " + "; ".join(problems))
                if screenshots is not None:
                    page.screenshot(path=str(screenshots / f"{name}-{label}-misfit.png"))
    finally:
        page.set_viewport_size(original)
    assert not failures, f"{name or page.url} does not fit:\n" + "\n".join(failures)


def assert_touch_targets(page, scope: str = GAME_SCOPE, minimum: int = 44) -> None:  # type: ignore[no-untyped-def]
    """Every visible interactive element under ``scope`` is at least ``minimum`` px square."""
    small = page.evaluate(_SMALL_TARGETS, [scope, INTERACTIVE, minimum])
    assert not small, f"touch targets under {minimum}px:\n" + "\n".join(small)


def assert_readable(page, scope: str = "body", minimum: float = 12) -> None:  # type: ignore[no-untyped-def]
    """No visible text under ``minimum`` px."""
    small = page.evaluate(_SMALL_TEXT, [scope, minimum])
    assert not small, f"text under {minimum}px:\n" + "\n".join(small)


_CLIPPED = """(scope) => {
  const clipped = [];
  for (const box of document.querySelectorAll(scope)) {
    for (const el of [box, ...box.querySelectorAll("*")]) {
      if (el instanceof SVGElement || el.closest("[aria-hidden=true], .visually-hidden")) continue;
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || !el.getClientRects().length || el.clientWidth <= 1) continue; // 1 px: read aloud only
      const style = getComputedStyle(el);
      if (style.visibility === "hidden") continue;
      const hides = style.overflowX !== "visible" || style.textOverflow === "ellipsis";
      if (hides && el.scrollWidth > el.clientWidth + 1)
        clipped.push(`"${el.textContent.trim().slice(0, 40)}" (${el.tagName.toLowerCase()}.${el.className}): ` +
          `${el.scrollWidth} > ${el.clientWidth}`);
      if (hides && style.overflowY !== "visible" && style.overflowY !== "auto" && style.overflowY !== "scroll"
          && el.scrollHeight > el.clientHeight + 2)
        clipped.push(`"${el.textContent.trim().slice(0, 40)}" (${el.tagName.toLowerCase()}.${el.className}): ` +
          `height ${el.scrollHeight} > ${el.clientHeight}`);
    }
  }
  return clipped;
}"""


def clipped_text(page, scope: str = "#room") -> list[str]:  # type: ignore[no-untyped-def]
    """Text elements whose text is cut off: wider (or taller) than their box while their
    overflow hides it (``overflow`` not visible, or an ellipsis)."""
    return page.evaluate(_CLIPPED, scope)


def assert_not_clipped(page, scope: str = "#room") -> None:  # type: ignore[no-untyped-def]
    """No game text clipped (issue 23): cards, clues, board labels, buttons, status lines."""
    clipped = clipped_text(page, scope)
    size = page.viewport_size
    assert not clipped, f"text cut off at {size['width']}x{size['height']}:\n" + "\n".join(clipped)


_WATCH_SHIFTS = """(selector) => {
  window.__shifts = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      for (const source of entry.sources || [])
        if (source.node && source.node.nodeType === 1 && source.node.matches(selector)) window.__shifts++;
  }).observe({type: "layout-shift"});
}"""


def watch_shifts(page, selector: str) -> None:  # type: ignore[no-untyped-def]
    """Count from now on how often the browser reports that an element matching ``selector``
    moved or changed size by itself (a layout shift: what a line of text coming or going above
    it does); read the count with ``shifts(page)``."""
    page.evaluate(_WATCH_SHIFTS, selector)


def shifts(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.evaluate("() => window.__shifts"))


def add_style(page, css: str) -> None:  # type: ignore[no-untyped-def]
    """Add ``css`` to the page as a constructed style sheet (the CSSOM): the site's
    Content-Security-Policy refuses an inline ``<style>`` (Playwright's ``add_style_tag``)."""
    page.evaluate("""(css) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    }""", css)


_BROKEN_WORDS = """(scope) => {
  const broken = [];
  const seen = new Set();
  for (const box of document.querySelectorAll(scope)) {
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode, el = node.parentElement;
      if (!el || el instanceof SVGElement || !node.textContent.trim()) continue;
      if (el.closest(".visually-hidden, [hidden], code.wrap, pre.wrap")) continue; // a hash is no word
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || style.display === "none" || !el.getClientRects().length) continue;
      // A word: letters between spaces; a hyphen (soft or hard) or a dash is a place it may break.
      const re = /[^\\s\\u00ad\\-\\u2010\\u2013\\u2014/]+/g;
      let m;
      while ((m = re.exec(node.textContent))) {
        if (m[0].length < 2) continue;
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top + r.height / 2)));
        const tops = [...lines].sort((a, b) => a - b);
        const split = tops.length > 1 && tops[tops.length - 1] - tops[0] > 3;
        const where = `"${m[0]}" in "${node.textContent.trim().slice(0, 40)}" (${el.tagName.toLowerCase()}.${el.getAttribute("class") || ""})`;
        if (split && !seen.has(where)) { seen.add(where); broken.push(where); }
      }
    }
  }
  return broken;
}"""


def broken_words(page, scope: str = "#room") -> list[str]:  # type: ignore[no-untyped-def]
    """Words broken inside themselves over two lines ("TOM/ATO", "Ra/nk"): each word of the
    visible text under ``scope`` (HTML, not SVG) must lie on one line. A word may break only
    where it has a hyphen, a soft hyphen, a dash or a slash. A hash set to break anywhere
    (``code.wrap``, ``pre.wrap``: a match's seed) is no word."""
    return page.evaluate(_BROKEN_WORDS, scope)


def assert_no_broken_words(page, scope: str = "#room") -> None:  # type: ignore[no-untyped-def]
    broken = broken_words(page, scope)
    size = page.viewport_size
    assert not broken, f"words broken at {size['width']}x{size['height']}:\n" + "\n".join(broken)
