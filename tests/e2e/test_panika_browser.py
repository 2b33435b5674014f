"""The first real-browser test: a room made in the lobby, two phones join through the join link,
the host starts, and the three pages play Panika turns through their buttons."""

from __future__ import annotations

import time

import pytest

from tests.e2e.lobby import create_room_in_lobby, join_with_nickname

pytestmark = pytest.mark.browser



def _play_step(page) -> bool:  # type: ignore[no-untyped-def]
    """Do what this page's player can do now (tap, or choose and play cards); True if it acted."""
    tap = page.locator("#panika-tap")
    if tap.count() and tap.is_visible() and tap.is_enabled():
        tap.click()
        return True
    play = page.locator("#panika-play")
    cards = page.locator("button.card[data-card-id]:not([disabled])")
    if not (play.count() and play.is_visible()) or cards.count() == 0:
        return False
    for i in range(min(2, cards.count())):
        if play.is_enabled():
            break
        cards.nth(i).click()
    if play.is_enabled():
        play.click()
        return True
    return False


def test_lobby_room_two_phones_play_panika_turns(live, new_page) -> None:  # type: ignore[no-untyped-def]
    host = new_page()
    code = create_room_in_lobby(host, live.base_url, "panika", "Nicole")
    host.click("#share-toggle")
    join_link = host.input_value("#join-link")
    assert join_link.endswith(f"/r/{code}")
    assert host.locator("#qr").evaluate("img => img.naturalWidth") > 0

    phones = []
    for name in ("Brendon", "Ryan"):
        phone = new_page(phone=True)
        join_with_nickname(phone, join_link, name)
        phones.append(phone)
    host.wait_for_selector('.member:has-text("Ryan")')
    host.wait_for_selector('.member:has-text("Brendon")')
    host.click("#start-btn")

    pages = [host, *phones]
    for page in pages:
        page.wait_for_selector("#panika-counter")
    room = live.registry.get(code)

    def plays() -> int:
        return sum(1 for m in room.match.log if m.action["type"] == "play")

    deadline = time.monotonic() + 60
    while plays() < 4 and time.monotonic() < deadline:
        acted = any(_play_step(page) for page in pages)
        if not acted:
            time.sleep(0.1)
    assert plays() >= 4, "the pages did not manage four plays through their buttons"

    # Every page shows the server's counter once the last frame has arrived.
    time.sleep(0.5)
    counter = str(room.match.state.counter)
    for page in pages:
        page.wait_for_function(
            "c => document.querySelector('#panika-counter').textContent.trim() === c", arg=counter
        )
    # A refresh (or a phone waking up) brings the player back to the same seat and hand.
    phone = phones[0]
    hand_ids = "() => [...document.querySelectorAll('#panika-hand button.card')].map(b => b.dataset.cardId).sort()"
    before = phone.evaluate(hand_ids)
    phone.reload()
    phone.wait_for_selector("#panika-hand button.card")
    assert phone.evaluate(hand_ids) == before
    brendon = next(m for m in room.members.values() if m.nickname == "Brendon")
    assert sorted(str(c) for c in room.match.state.hands[brendon.seat]) == sorted(before)

    for page in pages:
        assert page.errors == [], page.errors
