"""The stand-alone Panika counter in real browsers: two phones share one counter."""

from __future__ import annotations

import pytest

from tests.e2e.lobby import create_room_in_lobby, join_with_nickname

pytestmark = pytest.mark.browser



def _shows(page, value: int) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "v => document.querySelector('#counter-value').textContent.trim() === v", arg=str(value)
    )


def test_two_phones_tap_one_counter_and_both_see_every_tap(live, new_page) -> None:  # type: ignore[no-untyped-def]
    first = new_page(phone=True)
    code = create_room_in_lobby(first, live.base_url, "panika_counter", "Nicole")
    first.wait_for_selector("#counter-tap")

    second = new_page(phone=True)
    join_with_nickname(second, f"{live.base_url}/r/{code}", "Brendon")
    second.wait_for_selector("#counter-tap")

    # Six taps each, interleaved: twelve, below any burst number (21 to 30).
    for _ in range(6):
        first.click("#counter-tap")
        second.click("#counter-tap")
    for page in (first, second):
        _shows(page, 12)
    room = live.registry.get(code)
    assert room.match.state.counter == 12

    second.click("#counter-back")  # red: back one
    for page in (first, second):
        _shows(page, 11)
    first.click("#counter-reset")  # green: back to zero
    for page in (first, second):
        _shows(page, 0)
    for page in (first, second):
        assert page.errors == [], page.errors
