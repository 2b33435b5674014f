"""A phone's connection is cut and stalled between the page and the real server (a TCP proxy,
tests/e2e/proxy.py): the page shows it at once, always on screen, and recovers by itself with
the state it missed. A stall (dead Wi-Fi: the socket stays open, nothing arrives) is caught by
the heartbeat: nothing heard for 2.5 ping intervals."""

from __future__ import annotations

import re

import pytest

from tests.e2e.layout import assert_fits
from tests.e2e.lobby import create_room_in_lobby, join_with_nickname
from tests.e2e.proxy import TcpProxy
from tests.e2e.room_flow import no_errors, wait_member

pytestmark = pytest.mark.browser

STATE = "#conn[data-state='{}']"


def _shows(page, value: int, timeout: float = 10_000) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "v => document.querySelector('#counter-value').textContent.trim() === v", arg=str(value),
        timeout=timeout,
    )


def _pill_on_screen(page) -> None:  # type: ignore[no-untyped-def]
    box = page.locator("#conn").bounding_box()
    size = page.viewport_size
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= size["height"], box


COVERED = """() => {
  const bar = document.querySelector("#conn").getBoundingClientRect();
  return [...document.querySelectorAll(".room-header > .room-title, #timers, #game")].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top < bar.bottom - 1 && r.bottom > bar.top + 1 && r.left < bar.right && r.right > bar.left;
  }).map((el) => el.id || el.className);
}"""
"""What the offline bar covers of the room's header, the turn clock and the game (nothing: during a
match it has a strip of its own at the top of a phone's screen)."""


def _bar_covers_nothing(page) -> None:  # type: ignore[no-untyped-def]
    assert page.evaluate(COVERED) == [], page.evaluate(COVERED)
    # the wait in whole seconds, or no number at all ("reconnecting in 0.3 s" read as a glitch)
    text = page.inner_text("#conn")
    assert not re.search(r"\d[.,]\d", text), text


def test_a_cut_and_a_stalled_connection_show_and_recover(live, new_page) -> None:  # type: ignore[no-untyped-def]
    with TcpProxy(live.port) as proxy:
        host = new_page()
        code = create_room_in_lobby(host, live.base_url, "panika_counter", "Nicole")
        phone = new_page(phone=True)
        join_with_nickname(phone, f"{proxy.base_url}/r/{code}", "Brendon")
        wait_member(host, "Brendon")
        phone.wait_for_selector(STATE.format("connected"))
        phone.wait_for_selector("#counter-tap")
        host.wait_for_selector("#counter-tap")

        # Cut: both ends closed, new connections refused for now.
        proxy.cut()
        phone.wait_for_selector(STATE.format("lost"), timeout=5_000)
        assert "reconnecting" in phone.inner_text("#conn").lower()
        _pill_on_screen(phone)
        _bar_covers_nothing(phone)
        assert_fits(phone)
        for _ in range(3):
            host.click("#counter-tap")
        _shows(host, 3)
        proxy.resume()
        phone.wait_for_selector(STATE.format("connected"), timeout=15_000)
        _shows(phone, 3)

        # Stall: the socket stays open and carries nothing; the heartbeat notices.
        proxy.stall()
        host.click("#counter-tap")
        _shows(host, 4)
        ping_ms = phone.evaluate("() => panicParty.socket.pingMs")
        phone.wait_for_selector(STATE.format("lost"), timeout=2.5 * ping_ms + 5_000)
        assert phone.inner_text("#counter-value").strip() == "3"
        _pill_on_screen(phone)
        _bar_covers_nothing(phone)
        proxy.resume()
        phone.wait_for_selector(STATE.format("connected"), timeout=20_000)
        _shows(phone, 4)
        phone.click("#counter-tap")
        _shows(host, 5)
        no_errors([host])
        # The phone's console may log the failed WebSocket handshakes while the network was down.
        assert all("WebSocket" in e for e in phone.errors), phone.errors

