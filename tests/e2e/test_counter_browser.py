"""The stand-alone Panika counter in real browsers: a laptop host (its invite up front while it is
alone), two phones that joined through the link, a TV; everyone taps the one counter through the
buttons until it bursts, every screen shows the burst, and the next round starts from any phone.
The counter never ends (it has no match result): there is no "Play again" or saved match here."""

from __future__ import annotations

import pytest

from tests.e2e.lobby import press
from tests.e2e.room_flow import check_everywhere, check_screen, gather, no_errors, shoot, wait_all

pytestmark = pytest.mark.browser


def _shows(page, value: int) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "v => document.querySelector('#counter-value').textContent.trim() === v", arg=str(value)
    )


def test_a_group_shares_one_counter_until_it_bursts(live, new_page, screenshots) -> None:  # type: ignore[no-untyped-def]
    group = gather(live.base_url, new_page, "panika_counter")
    host, first, second = group.players
    wait_all(group.everyone, "#counter-tap")
    for page in group.players:
        page.wait_for_function("() => document.body.classList.contains('in-game')")
    for page, label in ((first, "counter phone"), (host, "counter laptop"), (group.table, "counter table")):
        check_screen(page, label)

    # Six taps each, interleaved: twelve, below any burst number (21 to 30).
    for _ in range(6):
        press(first, "#counter-tap")
        press(second, "#counter-tap")
    for page in group.everyone:
        _shows(page, 12)
    room = live.registry.get(group.code)
    assert room.state.match.state.counter == 12
    shoot(first, screenshots, "panika_counter-phone")
    shoot(host, screenshots, "panika_counter-laptop")
    shoot(group.table, screenshots, "panika_counter-tv")
    check_everywhere(first, "panika_counter-phone")
    check_everywhere(group.table, "panika_counter-table")

    press(second, "#counter-back")  # red: back one
    for page in group.everyone:
        _shows(page, 11)
    press(first, "#counter-reset")  # green: back to zero
    for page in group.everyone:
        _shows(page, 0)

    # Tap on until it bursts (at 21 to 30): every screen shows the burst.
    for _ in range(30):
        if room.state.match.state.phase == "burst" or room.state.match.state.round > 1:
            break
        press(first, "#counter-tap")
        # The page has caught up with the room (its value, or the burst and the round after it:
        # a loaded machine can take the 3 s of the burst screen between two looks).
        first.wait_for_function("v => panicParty.state.version >= v", arg=room.state.match.version)
        assert first.evaluate("() => document.querySelector('#counter-value').textContent.trim()"
                              " === String(panicParty.state.frame.view.counter)")
    number = str(room.state.match.state.last_burst["number"])
    # Every screen shows the burst: the burst screen, or (the next round starts by itself after
    # 3 s, and a loaded machine may be slower) the next round's "Last burst ... at N".
    shown = """n => {
      const burst = document.querySelector('#counter-burst');
      if (!burst.hidden) return document.querySelector('#counter-burst-number').textContent.trim() === n;
      return document.querySelector('.pc-last').textContent.endsWith(`at ${n}`);
    }"""
    for page in group.everyone:
        page.wait_for_function(shown, arg=number)
    if first.is_visible("#counter-burst"):
        assert "You burst it!" in first.text_content("#counter-burst")
    if room.state.match.state.phase == "burst":
        press(second, "#counter-next", timeout=5_000)
    for page in group.everyone:
        page.wait_for_selector("#counter-burst", state="hidden")
        page.wait_for_function("() => document.querySelector('#counter-round').textContent === 'Round 2'")
    check_screen(second, "counter, the round after a burst")
    no_errors(group.everyone)
