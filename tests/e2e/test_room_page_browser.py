"""The room page's own behaviour, around any game: the protocol's close codes (the WebSocket is
routed through Playwright so the test can close it with any code), engine texts with `{seat:N}`
markers, a late joiner told why they watch, the host's tools in a menu, and the rules pages."""

from __future__ import annotations

import copy

import pytest

from app.engine import all_games
from app.games import load_all
from tests.e2e.axe import assert_accessible
from tests.e2e.layout import assert_touch_targets
from tests.e2e.lobby import create_room_in_lobby, join_with_nickname
from tests.e2e.room_flow import no_errors, wait_member

pytestmark = pytest.mark.browser


@pytest.fixture
def live(shared_live):  # type: ignore[no-untyped-def]
    """The tests of this module share one server (each makes its own rooms)."""
    return shared_live

load_all()
GAME_IDS = sorted(g.id for g in all_games())

STATE = "#conn[data-state='{}']"


def _routed(page):  # type: ignore[no-untyped-def]
    """Every WebSocket of ``page`` passes through the test, which can close it with a code."""
    sockets: list = []

    def handler(ws) -> None:  # type: ignore[no-untyped-def]
        ws.connect_to_server()
        sockets.append(ws)

    page.route_web_socket("**/ws/*", handler)
    return sockets


@pytest.mark.parametrize(("code", "state", "reconnects", "text"), [
    (1012, "restarting", True, "Server restarting"),
    (4001, "connected", True, "Connected"),
    (4000, "removed", False, "The host removed you"),
    (4003, "roomClosed", False, "This room has closed"),
    (4429, "throttled", True, "Too many attempts"),
])
def test_each_close_code_gets_its_own_reaction(live, new_page, code, state, reconnects, text) -> None:  # type: ignore[no-untyped-def]
    host = new_page()
    room_code = create_room_in_lobby(host, live.base_url, "panika", "Nicole")
    phone = new_page(phone=True)
    sockets = _routed(phone)
    join_with_nickname(phone, f"{live.base_url}/r/{room_code}", "Brendon")
    phone.wait_for_selector(STATE.format("connected"))
    assert phone.evaluate("c => localStorage.getItem('pp:token:' + c)", room_code)

    sockets[-1].close(code=code, reason="test")
    phone.wait_for_selector(STATE.format(state), timeout=10_000)
    assert text in phone.inner_text("#conn")
    if code == 1012:
        phone.wait_for_selector(STATE.format("connected"), timeout=15_000)
        assert len(sockets) == 2
    if not reconnects:
        # The page has given up: its socket is stopped, with no reconnection pending.
        assert phone.evaluate("() => panicParty.socket.stopped && panicParty.socket.ws === null")
        assert len(sockets) == 1
    if code == 4000:
        assert phone.evaluate("c => localStorage.getItem('pp:token:' + c)", room_code) is None
    no_errors([host])


def test_texts_markers_a_late_joiner_and_the_host_menu(live, new_page) -> None:  # type: ignore[no-untyped-def]
    host = new_page()
    code = create_room_in_lobby(host, live.base_url, "panika", "Nicole")
    phone = new_page(phone=True)
    join_with_nickname(phone, f"{live.base_url}/r/{code}", "<b>Bob</b>")
    wait_member(host, "<b>Bob</b>")

    # Engine texts: markers become nicknames as plain text; the reader's own marker reads "You".
    texts = phone.evaluate("""async () => {
      const { eventText } = await import('/static/js/texts.js');
      const names = (s) => ['Nicole', '<b>Bob</b>'][s];
      return [
        eventText('{seat:0} takes 2 penalty cards', names, 1),
        eventText('{seat:1} takes 1 penalty card', names, 1),
        eventText("{seat:1}'s play is void: a card went as a penalty", names, 1),
        eventText('Round 2: {seat:1} begins', names, 1),
        eventText('{seat:1} must play two cards', names, null),
      ];
    }""")
    assert texts == [
        "Nicole takes 2 penalty cards", "You take 1 penalty card",
        "Your play is void: a card went as a penalty", "Round 2: you begin",
        "<b>Bob</b> must play two cards",
    ]

    # The host's tools sit in a menu per member, with 44 px targets; a guest has none.
    assert phone.locator(".host-menu").count() == 0
    menu = host.locator('#members .member:has-text("Bob") .host-menu')
    menu.locator("summary").click()
    assert_touch_targets(host, "#members")
    assert_accessible(host, "host menu open")
    menu.get_by_role("button", name="Make host").click()
    phone.wait_for_selector("#start-btn:not([hidden])")
    assert "You're in, Nicole — <b>Bob</b> starts the match" in host.inner_text("#waiting-note")
    assert phone.locator("#members b").count() == 0  # the nickname was never parsed as HTML

    # The match starts; a latecomer is told they watch, and why.
    host.wait_for_selector("#options-text:not([hidden])")
    phone.click("#start-btn")
    host.wait_for_selector("#panika-count")
    late = new_page(phone=True)
    join_with_nickname(late, f"{live.base_url}/r/{code}", "Carla")
    late.wait_for_selector("#panika-count")
    late.wait_for_function("() => document.querySelector('#status-line').textContent.includes('watching')")
    assert_accessible(late, "a spectator's page")
    no_errors([host, phone, late])


@pytest.mark.parametrize("game", GAME_IDS)
def test_rules_pages_are_accessible(live, new_page, game) -> None:  # type: ignore[no-untyped-def]
    """axe-core on every registered game's rules page, on a phone."""
    page = new_page(phone=True)
    response = page.goto(f"{live.base_url}/games/{game}/rules")
    assert response is not None and response.status == 200
    assert_accessible(page, f"{game} rules")


FEED = "frame => panicParty.socket.handlers.onFrame(frame)"


def test_the_page_reads_the_agreed_frame_fields(live, new_page) -> None:  # type: ignore[no-untyped-def]
    """The fields of the protocol agreement, fed to a live page as the server will send them:
    `left` members, `save_state`, and `match` numbers that restart `version`."""
    host = new_page()
    code = create_room_in_lobby(host, live.base_url, "panika", "Nicole")
    phone = new_page(phone=True)
    join_with_nickname(phone, f"{live.base_url}/r/{code}", "Brendon")
    wait_member(host, "Brendon")

    room = host.evaluate("() => structuredClone(panicParty.state.room)")
    leaving = copy.deepcopy(room)
    brendon = next(m for m in leaving["members"] if m["nickname"] == "Brendon")
    brendon["left"] = True
    host.evaluate(FEED, {**leaving, "type": "room"})
    chip = host.locator(f'#members [data-member="{brendon["id"]}"]')
    assert "left" in chip.get_attribute("class")
    assert "(left)" in chip.inner_text()
    assert "1 player in the room" in host.inner_text("#waiting-note")  # a leaver is not counted

    result = {"ending": "cards_gone", "details": {}, "seed": "ab" * 32, "seed_hash": "cd" * 32, "players": [
        {"seat": 0, "nickname": "Nicole", "score": 0, "rank": 1, "winner": True},
        {"seat": 1, "nickname": "Brendon", "score": -3, "rank": 2, "winner": False}]}
    finished = {**room, "type": "room", "status": "finished", "result": result, "match_id": None}
    host.evaluate(FEED, {**finished, "save_state": "retrying"})
    assert "busy" in host.inner_text("#result-link")
    host.evaluate(FEED, {**finished, "save_state": "saved", "match_id": 7})
    assert host.get_attribute("#result-link a", "href") == "/matches/7"
    assert host.is_visible("#rematch-btn")
    host.evaluate(FEED, {**room, "type": "room"})  # back to the real room

    # A real match; then frames of a next match (version back at 0) are taken, older ones not.
    host.click("#start-btn")
    phone.wait_for_selector("#panika-hand button.card")
    frame = phone.evaluate("() => structuredClone(panicParty.state.frame)")
    first = frame.get("match", phone.evaluate("() => panicParty.state.match") or 1)
    phone.evaluate(FEED, {**frame, "match": first + 1, "version": 0, "events": []})
    assert phone.evaluate("() => [panicParty.state.match, panicParty.state.version]") == [first + 1, 0]
    phone.evaluate(FEED, {**frame, "match": first, "version": 99, "events": []})
    assert phone.evaluate("() => [panicParty.state.match, panicParty.state.version]") == [first + 1, 0]
    phone.wait_for_selector("#panika-hand button.card")
    no_errors([host, phone])


def test_the_table_view_shows_a_paused_match_and_its_timers_standing_still(live, new_page) -> None:  # type: ignore[no-untyped-def]
    """Issue 25, item 4: the players' pages all close during a match; the table view says the
    match is paused and its turn timer stands still; a player back with their token: the note
    goes and the timer runs again."""
    from tests.live import ClientPool

    created = live.create_room("panika", "Ann")
    code = created["code"]
    table = new_page(size=(1366, 768))
    with ClientPool() as pool:
        ann, bob = pool(live, code), pool(live, code)
        ann.join(token=created["token"])
        bob.join(nickname="Bob")
        table.goto(live.base_url + f"/r/{code}/table")
        table.wait_for_selector(STATE.format("connected"))
        ann.send({"type": "start"})
        table.wait_for_selector("#timers .timer")
        token = ann.token
    # Both sockets closed: the match pauses.
    table.wait_for_function(
        "() => document.querySelector('#status-line').dataset.kind === 'paused'")
    assert "Paused" in table.inner_text("#status-line")
    table.wait_for_selector("#timers .timer[data-paused='true']")  # it does not count down
    assert_accessible(table, "table view of a paused match")
    with ClientPool() as pool:
        back = pool(live, code)
        back.join(token=token)
        table.wait_for_function(
            "() => document.querySelector('#status-line').dataset.kind !== 'paused'")
        table.wait_for_selector("#timers .timer:not([data-paused])")
    no_errors([table])
