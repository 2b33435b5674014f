"""Panic Lab in a real browser: two phones race for the amoeba; a tap on the right tile wins."""

from __future__ import annotations

import pytest

from tests.e2e.lobby import create_room_in_lobby, join_with_nickname

pytestmark = pytest.mark.browser



def test_two_phones_race_and_the_right_tap_wins_the_match(live, new_page) -> None:  # type: ignore[no-untyped-def]
    host = new_page(phone=True)
    code = create_room_in_lobby(host, live.base_url, "panic_lab", "Ann")

    guest = new_page(phone=True)
    join_with_nickname(guest, f"{live.base_url}/r/{code}", "Bob")
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
