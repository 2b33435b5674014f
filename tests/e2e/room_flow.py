"""What a group does around any game, for the browser tests: create a room in the lobby on a
laptop, join through the invite's link on two phones, open the table view, check every screen
(accessibility, fit), and after the match compare the results, play again and find the match
on /matches. A new game's test reuses these with its own "play" step."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e.axe import assert_accessible
from tests.e2e.conftest import PHONE_SIZE, TV_SIZE
from tests.e2e.layout import (
    assert_fits, assert_fits_everywhere, assert_not_clipped, assert_readable, assert_touch_targets,
    settle,
)
from tests.e2e.lobby import create_room_in_lobby, join_with_nickname


@dataclass
class Group:
    code: str
    host: object
    phones: list = field(default_factory=list)
    table: object | None = None

    @property
    def players(self) -> list:
        return [self.host, *self.phones]

    @property
    def everyone(self) -> list:
        return [*self.players, *([self.table] if self.table is not None else [])]


def gather(base_url: str, new_page, game: str, names=("Brendon", "Ryan"), table: bool = True,  # type: ignore[no-untyped-def]
           link_base: str | None = None) -> Group:
    """A laptop host creates the room; phones join with the invite panel's link (rewritten to
    ``link_base`` when the phones go through a proxy); a TV opens the table view."""
    host = new_page()
    code = create_room_in_lobby(host, base_url, game, "Nicole")
    host.wait_for_selector("#invite:not([hidden])")  # up front while the room waits
    link = host.input_value("#join-link")
    assert link.endswith(f"/r/{code}"), link
    assert host.locator("#qr").evaluate("img => img.complete && img.naturalWidth > 0")
    if link_base:
        link = link_base + f"/r/{code}"
    group = Group(code, host)
    for name in names:
        phone = new_page(phone=True)
        join_with_nickname(phone, link, name)
        group.phones.append(phone)
    for name in names:
        wait_member(host, name)
    if table:
        group.table = new_page(size=TV_SIZE)
        group.table.goto(base_url + f"/r/{code}/table")
        group.table.wait_for_selector('#conn[data-state="connected"]')
    return group


def wait_member(page, nickname: str) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "n => (window.panicParty && window.panicParty.state.room || {members: []}).members.some(m => m.nickname === n)",
        arg=nickname,
    )


def check_screen(page, label: str, *, fits: bool = True) -> None:  # type: ignore[no-untyped-def]
    """axe-core finds no serious or critical problem, every control of the room is at least
    44 px square, and during play the game fits the screen."""
    assert_accessible(page, label)
    assert_touch_targets(page, "#room")
    if fits:
        assert_fits(page)


def check_everywhere(page, label: str, screenshots: Path | None = None) -> None:  # type: ignore[no-untyped-def]
    """The game screen at the five sizes; at 360 x 640 the touch targets and the text size."""
    assert_fits_everywhere(page, screenshots=screenshots, name=label)
    original = page.viewport_size
    page.set_viewport_size({"width": 360, "height": 640})
    settle(page)
    try:
        assert_touch_targets(page)
        assert_readable(page, "#room")
        assert_not_clipped(page)
    finally:
        page.set_viewport_size(original)


def shoot(page, screenshots: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    page.screenshot(path=str(screenshots / f"{name}.png"))


def results_text(page) -> str:  # type: ignore[no-untyped-def]
    page.wait_for_selector("#result:not([hidden]) #result-rows tr")
    return page.inner_text("#result-rows")


def wait_all(pages, selector: str, timeout: float = 15_000) -> None:  # type: ignore[no-untyped-def]
    for page in pages:
        page.wait_for_selector(selector, timeout=timeout)


def saved_match_id(page, timeout: float = 15_000) -> int:  # type: ignore[no-untyped-def]
    link = page.wait_for_selector("#result-link a[href^='/matches/']", timeout=timeout)
    return int(link.get_attribute("href").rsplit("/", 1)[1])


def play_again(group: Group, body_class: str = "in-game") -> None:
    """Only the host has the button; the other players are told they wait for the host; after
    the click every page leaves the results and shows the new match (its body gets
    ``body_class``: ``in-game`` for a game that fills the screen, ``playing`` for the others)."""
    host = group.host
    for phone in group.phones:
        assert not phone.locator("#rematch-btn").is_visible()
        assert "Waiting for Nicole" in phone.inner_text("#rematch-note")
    host.click("#rematch-btn")
    for page in group.everyone:
        page.wait_for_selector("#result", state="hidden", timeout=15_000)
        page.wait_for_function("c => document.body.classList.contains(c)", arg=body_class, timeout=15_000)


def match_listed(page, base_url: str, match_id: int) -> None:  # type: ignore[no-untyped-def]
    page.goto(base_url + "/matches")
    page.wait_for_selector(f"a[href='/matches/{match_id}']")
    assert_accessible(page, "/matches")


def no_errors(pages) -> None:  # type: ignore[no-untyped-def]
    for page in pages:
        assert page.errors == [], page.errors


def until(condition, timeout: float, step: float = 0.1) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())


__all__ = ["PHONE_SIZE", "Group", "gather"]
