"""Real-browser fixtures: Debian's headless Chromium driven by Playwright, against a live server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REQUIRE_BROWSER
from tests.live import LiveServer

FULL_CHROMIUM = "/usr/bin/chromium"
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get(
    "CHROMIUM_PATH", HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else FULL_CHROMIUM)
"""The browser the tests drive: Debian's Chromium headless shell, the same engine built without
the browser's windows (what Playwright itself runs for headless tests), which costs about a
third less CPU than the whole browser for the same page (docs/testing.md, decision 0048); the
whole browser when the shell is not installed, and for what only the whole browser does (the
"Install" check: ``FULL_CHROMIUM``)."""
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,"
    "HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,"
    "ThirdPartyStoragePartitioning,AvoidCorsURLLoaderRestartOnRedirect,TcpPortRandomizationWin,"
    "OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch")
"""The features Playwright disables (its driver's own ``--disable-features``): Chromium keeps
only the last ``--disable-features`` of a command line, so ours repeats them."""
NO_OMNIBOX_WEBUI = "WebUIOmniboxPopup,WebUIOmniboxAimPopup"
"""Chromium's headless browser builds every window's address-bar popups as web pages, each in a
renderer process of its own, although no one can see them: about 2-3 s of CPU per context opened
(a test opens several), about 40% of Chromium's CPU over tests that open many (docs/testing.md)."""
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 f"--disable-features={PLAYWRIGHT_DISABLED_FEATURES},{NO_OMNIBOX_WEBUI}"]
PHONE_SIZE = (390, 844)
LAPTOP_SIZE = (1366, 768)
TV_SIZE = (1920, 1080)
CONTEXT = {"reduced_motion": "reduce", "service_workers": "block"}
"""Every test page asks for reduced motion: the games then stop their decorative pulses and
glows (CSS ``prefers-reduced-motion``), which otherwise repaint every page 60 times a second for
a whole match; what the pages do and how they lay out is the same, and axe never sees a colour
caught mid-animation. The site's service worker is left out of the test pages (each context
would install it and fetch its shell: about 0.25 s of CPU a context, a fifth of a short test's),
except in the tests of the worker itself (``WITH_WORKER``, tests/e2e/test_installable_browser.py),
which play a room through it as well."""
WITH_WORKER = {**CONTEXT, "service_workers": "allow"}
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "screenshots"
"""The README's screenshots: written only by ``python3 -m app test --screenshots``."""
TEST_SCREENSHOTS = ROOT / "test-results" / "screenshots"
"""Where a plain run's screenshots go (an ignored folder: a test run leaves the checkout as
it was)."""


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One Chromium per test process, shared by every browser test it runs: each test opens its
    own contexts (``new_page``), which share nothing; launching Chromium and Playwright's driver
    once per module cost about a second of CPU each time (docs/testing.md)."""
    if not os.path.exists(CHROMIUM):
        if REQUIRE_BROWSER:
            pytest.fail(f"Chromium is required but missing at {CHROMIUM}")
        pytest.skip(f"Chromium is not installed at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """Open pages through ``new_page(phone=True)`` (390 x 844, touch) or ``new_page(size=(w, h))``
    (a laptop is 1366 x 768); every page's console errors are collected in ``page.errors`` and
    each context is closed at the end."""
    contexts: list = []

    def open_page(phone: bool = False, size: tuple[int, int] | None = None):  # type: ignore[no-untyped-def]
        width, height = size or (PHONE_SIZE if phone else LAPTOP_SIZE)
        options: dict = {"viewport": {"width": width, "height": height}, **CONTEXT}
        if phone:
            options.update(is_mobile=True, has_touch=True)
        context = browser.new_context(**options)
        contexts.append(context)
        page = context.new_page()
        page.touch = phone  # tests.e2e.lobby.press taps a phone instead of clicking it
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def live(tmp_path) -> Iterator[LiveServer]:  # type: ignore[no-untyped-def]
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.5, presence_timeout_seconds=3) as server:
        yield server


@pytest.fixture(scope="module")
def shared_live(tmp_path_factory) -> Iterator[LiveServer]:  # type: ignore[no-untyped-def]
    """One live server for all the tests of a module whose tests need no fresh site (each
    makes its own rooms): such a module overrides ``live`` with a fixture returning it."""
    with LiveServer(tmp_path_factory.mktemp("site") / "var", ping_interval_seconds=0.5,
                    presence_timeout_seconds=3) as server:
        yield server


@pytest.fixture
def screenshots(request) -> Path:  # type: ignore[no-untyped-def]
    """The folder for the README's screenshots: docs/screenshots/ with ``--screenshots``, else
    test-results/screenshots/."""
    folder = SCREENSHOTS if request.config.getoption("--screenshots") else TEST_SCREENSHOTS
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def quick_bots(tmp_path_factory) -> Iterator[LiveServer]:  # type: ignore[no-untyped-def]
    """One server for a module whose bots think fast (``bot_think_scale``), so that the moves
    a test waits for (an encounter, the first moves after the start) come soon."""
    with LiveServer(tmp_path_factory.mktemp("quick-bots") / "var", ping_interval_seconds=0.5,
                    presence_timeout_seconds=3, bot_think_scale=0.05) as server:
        yield server
