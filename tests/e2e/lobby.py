"""What a person does in the lobby and on a room's link, for the browser tests."""

from __future__ import annotations


def press(target, selector: str | None = None, **options) -> None:  # type: ignore[no-untyped-def]
    """Press a button as its device's person would: a phone's page (``new_page(phone=True)``)
    is tapped, any other clicked. A page that was clicked has a mouse pointer over it, and
    Chromium then hit-tests it again after every change of its layout to update what is
    hovered (about a fifth of a game page's work while frames arrive, docs/testing.md); a
    phone has no pointer. ``target`` is a page with a ``selector``, or a locator."""
    page = target if selector is not None else target.page
    touch = getattr(page, "touch", False)
    if selector is None:
        target.tap(**options) if touch else target.click(**options)
    else:
        page.tap(selector, **options) if touch else page.click(selector, **options)


def create_room_in_lobby(page, base_url: str, game: str, nickname: str) -> str:  # type: ignore[no-untyped-def]
    """Create a room through the lobby's dialog, as a person would; returns its code."""
    page.goto(base_url + "/")
    page.wait_for_selector("body[data-ready=lobby]")  # lobby.js has wired the buttons
    press(page, f'button.create-room[data-game="{game}"]')
    page.fill("#create-nickname", nickname)
    press(page, "#create-submit")
    page.wait_for_url("**/r/*")
    return page.inner_text("#room-code").strip()


def join_with_nickname(page, url: str, nickname: str) -> None:  # type: ignore[no-untyped-def]
    """Open a room's link and join it with a nickname."""
    page.goto(url)
    page.fill("#nickname", nickname)
    press(page, "#join-form button")
