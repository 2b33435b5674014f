"""Panic Lab in a real browser: two phones race for the amoeba; a tap on the right tile wins."""

from __future__ import annotations

import pytest

from tests.live import LiveServer

pytestmark = pytest.mark.browser


@pytest.fixture
def live(tmp_path):
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.5) as server:
        yield server


def test_two_phones_race_and_the_right_tap_wins_the_match(live, new_page) -> None:  # type: ignore[no-untyped-def]
    host = new_page(phone=True)
    host.goto(live.base_url + "/")
    host.click('button.create-room[data-game="panic_lab"]')
    host.fill("#create-nickname", "Ann")
    host.click("#create-submit")
    host.wait_for_url("**/r/*")
    code = host.inner_text("#room-code").strip()

    guest = new_page(phone=True)
    guest.goto(f"{live.base_url}/r/{code}")
    guest.fill("#nickname", "Bob")
    guest.click("#join-form button")
    host.wait_for_selector('.member:has-text("Bob")')

    # The host sets a one-token match and the shortest countdown through the options form.
    host.fill('#options-form input[name="target_tokens"]', "1")
    host.dispatch_event('#options-form input[name="target_tokens"]', "change")
    host.fill('#options-form input[name="countdown_seconds"]', "2")
    host.dispatch_event('#options-form input[name="countdown_seconds"]', "change")
    guest.wait_for_function(
        "() => document.querySelector('#options-form input[name=target_tokens]').value === '1'"
    )
    host.click("#start-btn")

    for page in (host, guest):
        page.wait_for_selector('.pl-root[data-phase="search"]', timeout=10_000)
    room = live.registry.get(code)
    answer = room.match.state.solution.answer
    # The dice are on both screens now; Bob taps the answer.
    guest.click(f'.pl-tile[data-index="{answer}"]')

    for page in (host, guest):
        page.wait_for_selector('.pl-root[data-phase="over"]', timeout=10_000)
    bob_seat = next(m.seat for m in room.members.values() if m.nickname == "Bob")
    tokens = guest.locator(f'.pl-player[data-seat="{bob_seat}"] .pl-tokens')
    assert tokens.get_attribute("data-tokens") == "1"
    host.wait_for_selector("#result:not([hidden])")
    assert "Bob" in host.inner_text("#result-rows tr.winner")
    for page in (host, guest):
        assert page.errors == [], page.errors
