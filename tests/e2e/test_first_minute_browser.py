"""A party's first minute, through the pages' own buttons: the host creates a room (a double
click on Create makes one room, private unless listed: docs/decisions/0056, 0057), a friend's
phone opens the invitation and sees whose room it is, which game and who is in (kept current),
bots marked, and no connection state (in English and German, at 390 x 844, 360 x 640 and 844 x 390), then joins;
the same seat opened in a second tab takes over, the first tab says so, stops acting and takes
the seat back with its button."""

from __future__ import annotations

import pytest

from tests.e2e.axe import assert_accessible
from tests.e2e.layout import assert_fits, assert_touch_targets, settle
from tests.e2e.lobby import press
from tests.e2e.room_flow import no_errors, wait_member

pytestmark = pytest.mark.browser

JOIN_SIZES = ((390, 844), (360, 640), (844, 390))


@pytest.fixture
def live(shared_live):  # type: ignore[no-untyped-def]
    """The tests of this module share one server (each makes its own rooms)."""
    return shared_live


def _rooms_of(live, nickname: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [code for code, room in live.registry.rooms.items()
            if not room.state.closed and room.state.host in room.state.members
            and room.state.members[room.state.host].nickname == nickname]


def _join_page_fits(page, label: str) -> None:  # type: ignore[no-untyped-def]
    """The join form's field and button on screen, 44 px targets, axe clean, at each size."""
    for width, height in JOIN_SIZES:
        page.set_viewport_size({"width": width, "height": height})
        settle(page)
        assert_fits(page, "#join-panel, .room-header", vertical=False)
        assert_touch_targets(page, "#join-panel")
    assert_accessible(page, label)


def test_the_first_minute_of_a_party(live, new_page) -> None:  # type: ignore[no-untyped-def]
    host = new_page()
    host.goto(live.base_url + "/")
    host.wait_for_selector("body[data-ready=lobby]")
    press(host, 'button.create-room[data-game="panika"]')
    assert not host.is_checked("#create-public"), "private unless the host lists it"
    host.fill("#create-nickname", "Nicole")
    host.dblclick("#create-submit")  # a double click: one room
    host.wait_for_url("**/r/*")
    code = host.inner_text("#room-code").strip()
    host.wait_for_selector("#conn[data-state=connected]")
    assert _rooms_of(live, "Nicole") == [code]
    with live.http() as http:
        assert code not in [r["code"] for r in http.get("/api/rooms").json()]
    press(host, "#add-bot-btn")
    host.wait_for_function("() => panicParty.state.room.members.some(m => m.bot)")
    bot = host.evaluate("() => panicParty.state.room.members.find(m => m.bot).nickname")

    # The invitation on a phone, in English then German: whose room, the game, who is in.
    phone = new_page(phone=True)
    phone.goto(f"{live.base_url}/r/{code}")
    phone.wait_for_selector("#join-panel:not([hidden])")
    assert phone.inner_text("#join-title") == "Nicole invites you to play Panika"
    members = phone.locator(".join-members li").all_inner_texts()
    assert members == ["Nicole", f"{bot} (computer player)"]
    assert phone.locator("#conn").is_hidden(), "no connection state before a connection"
    assert "Disconnected" not in phone.inner_text("body")
    _join_page_fits(phone, "the join page")
    phone.context.add_cookies([{"name": "lang", "value": "de", "url": live.base_url}])
    phone.reload()
    phone.wait_for_selector("#join-panel:not([hidden])")
    assert phone.inner_text("#join-title") == "Nicole lädt dich zu Panika ein"
    assert phone.locator(".join-members li").all_inner_texts() == [
        "Nicole", f"{bot} (Computerspieler)"]
    assert "Schon dabei (2)" in phone.inner_text(".join-in")
    assert phone.locator("#conn").is_hidden() and "Getrennt" not in phone.inner_text("body")
    _join_page_fits(phone, "the join page in German")
    # Who is in, kept current while the newcomer types: a second computer player comes in (the
    # page asks again every few seconds, and at once when it comes back into focus).
    press(host, "#add-bot-btn")
    host.wait_for_function("() => panicParty.state.room.members.filter(m => m.bot).length === 2")
    phone.evaluate("() => window.dispatchEvent(new Event('focus'))")
    phone.wait_for_function("() => document.querySelectorAll('.join-members li').length === 3")
    assert "Schon dabei (3)" in phone.inner_text(".join-in")
    assert phone.locator(".join-members li.bot .join-bot").count() == 2
    phone.set_viewport_size({"width": 360, "height": 640})  # the rest on the smallest phone
    phone.fill("#nickname", "Brendon")
    press(phone, "#join-form button")
    phone.wait_for_selector("#conn[data-state=connected]")
    wait_member(host, "Brendon")

    # The same seat in a second tab (same browser, same seat token): it plays, the first stops.
    second = phone.context.new_page()
    second.goto(f"{live.base_url}/r/{code}")
    second.wait_for_selector("#conn[data-state=connected]")
    phone.wait_for_selector("#taken-over-panel:not([hidden])")
    assert phone.inner_text("#taken-over-title") == "Dieser Platz ist in einem anderen Tab offen"
    assert phone.evaluate("() => panicParty.socket.stopped && panicParty.socket.ws === null")
    assert phone.locator("#members").is_hidden() and phone.locator("#game").is_hidden()
    assert phone.locator("#conn").is_hidden(), "the panel says it, no banner over the page"
    assert_accessible(phone, "a seat open in another tab")
    assert_touch_targets(phone, "#taken-over-panel")
    members = host.evaluate("() => panicParty.state.room.members.filter(m => m.nickname === 'Brendon')")
    assert len(members) == 1 and members[0]["connected"]

    # The host's seat too, in English; then each first tab takes its seat back.
    host_again = host.context.new_page()
    host_again.goto(f"{live.base_url}/r/{code}")
    host_again.wait_for_selector("#conn[data-state=connected]")
    host.wait_for_selector("#taken-over-panel:not([hidden])")
    assert host.inner_text("#taken-over-title") == "This seat is open in another tab"
    assert host.inner_text("#take-back-btn") == "Play in this tab"
    host.set_viewport_size({"width": 390, "height": 844})  # the panel on a phone, in English
    settle(host)
    assert_fits(host, "#taken-over-panel, .room-header", vertical=False)
    assert_touch_targets(host, "#taken-over-panel")
    assert_accessible(host, "a seat open in another tab, in English")
    press(host, "#take-back-btn")
    host.wait_for_selector("#conn[data-state=connected]")
    host_again.wait_for_selector("#taken-over-panel:not([hidden])")
    press(phone, "#take-back-btn")
    phone.wait_for_selector("#conn[data-state=connected]")
    second.wait_for_selector("#taken-over-panel:not([hidden])")
    assert phone.locator("#taken-over-panel").is_hidden()
    # The seat plays from the tab that took it back: the host starts, the phone's page deals.
    press(host, "#start-btn")
    phone.wait_for_selector("#panika-count")
    assert second.locator("#panika-count").count() == 0 or second.locator("#game").is_hidden()
    no_errors([host, phone])
