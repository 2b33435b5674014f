"""What a person does in the lobby and on a room's link, for the browser tests."""

from __future__ import annotations


def create_room_in_lobby(page, base_url: str, game: str, nickname: str) -> str:  # type: ignore[no-untyped-def]
    """Create a room through the lobby's dialog, as a person would; returns its code."""
    page.goto(base_url + "/")
    page.wait_for_selector("body[data-ready=lobby]")  # lobby.js has wired the buttons
    page.click(f'button.create-room[data-game="{game}"]')
    page.fill("#create-nickname", nickname)
    page.click("#create-submit")
    page.wait_for_url("**/r/*")
    return page.inner_text("#room-code").strip()


def join_with_nickname(page, url: str, nickname: str) -> None:  # type: ignore[no-untyped-def]
    """Open a room's link and join it with a nickname."""
    page.goto(url)
    page.fill("#nickname", nickname)
    page.click("#join-form button")
