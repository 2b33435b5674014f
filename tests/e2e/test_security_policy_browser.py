"""Every page of the site under its Content-Security-Policy (app/api/guards.py; docs/decisions/
0043), in headless Chromium: no ``securitypolicyviolation`` and no console error on the lobby, a
room, its table view, the matches, a match with its replay, the leaderboard, every rules page,
the error page and the API documentation, each of which still does its work (the room's socket
connects, the replay loads, Swagger UI and ReDoc draw the API); and the policy is in force (an
inline script is refused, another page cannot frame a room). The other browser tests run under
the same policy."""

from __future__ import annotations

import pytest

from app.engine import all_games
from tests.e2e.lobby import create_room_in_lobby
from tests.e2e.room_flow import wait_member
from tests.e2e.test_site_pages import _store_matches

pytestmark = pytest.mark.browser

LISTEN = """() => {
  window.__violations = [];
  document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
    `${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
}"""


@pytest.fixture
def guarded_page(new_page):  # type: ignore[no-untyped-def]
    """A page whose every policy violation is recorded from the first byte of each document."""
    page = new_page()
    page.context.add_init_script(f"({LISTEN})()")
    return page


def violations(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.evaluate("() => window.__violations")


def assert_clean(page, label: str, expected_errors: tuple[str, ...] = ()) -> None:  # type: ignore[no-untyped-def]
    assert violations(page) == [], f"{label}: {violations(page)}"
    errors = [e for e in page.errors if not any(x in e for x in expected_errors)]
    assert errors == [], f"{label}: {errors}"
    page.errors.clear()


def test_every_page_works_with_no_policy_violation(live, guarded_page, new_page) -> None:  # type: ignore[no-untyped-def]
    page = guarded_page
    base = live.base_url
    # The lobby creates a room through its dialog; the room's page connects its socket.
    code = create_room_in_lobby(page, base, "panika", "Ann")
    page.wait_for_selector('#conn[data-state="connected"]')
    wait_member(page, "Ann")
    page.wait_for_selector("#qr")
    page.wait_for_function("() => document.querySelector('#qr').naturalWidth > 0")
    assert_clean(page, "the lobby and a room")

    page.goto(f"{base}/r/{code}/table")
    page.wait_for_selector('#conn[data-state="connected"]')
    assert_clean(page, "the table view")

    match_id = _store_matches(live)
    page.goto(f"{base}/matches")
    page.wait_for_selector(f"a[href='/matches/{match_id}']")
    assert_clean(page, "/matches")
    page.goto(f"{base}/matches/{match_id}")
    page.wait_for_function("() => window.panicParty.replay.data !== null")
    assert_clean(page, "a match with its replay")
    page.goto(f"{base}/leaderboard")
    page.wait_for_selector("main h1")
    assert_clean(page, "/leaderboard")

    for game in all_games():
        for lang in ("en", "de"):
            page.goto(f"{base}/lang/{lang}?next=/games/{game.id}/rules")
            page.wait_for_selector("main h1")
            assert_clean(page, f"the rules of {game.id} ({lang})")
    page.goto(f"{base}/lang/en?next=/")

    response = page.goto(f"{base}/no/such/page")
    assert response is not None and response.status == 404
    page.wait_for_selector("main h1")
    assert_clean(page, "the error page", expected_errors=("404 (Not Found)",))

    # The policy is in force: an inline script is refused, and no other page may frame a room.
    page.goto(f"{base}/")
    with pytest.raises(Exception, match="Content Security Policy"):
        page.add_script_tag(content="window.__inline = true")
    assert page.evaluate("() => window.__inline") is None
    assert [v.split(" ")[0] for v in violations(page)] == ["script-src-elem"]
    page.errors.clear()
    framing = new_page()
    framing.set_content(f'<iframe src="{base}/r/{code}"></iframe>')
    assert [frame.url for frame in framing.frames] == ["about:blank",
                                                      "chrome-error://chromewebdata/"]
    assert any("frame-ancestors 'none'" in error for error in framing.errors)

    page.goto(f"{base}/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    page.wait_for_selector(".swagger-ui .opblock")  # the operations, read from /openapi.json
    page.click(".swagger-ui .opblock .opblock-summary")  # one opened, with its parameters
    page.wait_for_selector(".swagger-ui .opblock-body")
    assert_clean(page, "/docs")
    page.goto(f"{base}/redoc")
    page.wait_for_selector("redoc .api-content h1, redoc h1")
    page.wait_for_selector("redoc [role=menuitem], redoc li label")
    assert_clean(page, "/redoc")
