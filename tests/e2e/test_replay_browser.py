"""Watching a finished match again on its own board (issue 24), in headless Chromium, for every
game and the stand-alone counter: the match page opens on the game's board at the end, with the
stored result beside it; the step buttons, the slider, the move list and the arrow keys move the
board and the move counter, and play runs by itself; ``?move=N`` opens at move N; "whose eyes"
switches between every secret and one seat's view; the link to the move is copied; on a phone
(390 x 844) and a laptop, in English and German; axe finds nothing serious or critical. The
finished matches are made by bots in-process and stored as a room stores them (one server and
one browser for the module); one room plays a short Panic Lab to its end to show the result
screen's "Watch it again"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app import games
from app.api.finished.story import summary_text
from app.db.models import Match
from app.engine import Move, get_game, registry
from tests.e2e.axe import assert_accessible
from tests.e2e.conftest import CONTEXT, LAPTOP_SIZE, PHONE_SIZE
from tests.e2e.layout import settle
from tests.e2e.lobby import create_room_in_lobby
from tests.e2e.test_panic_lab_browser import SEARCH, answer_on_screen
from tests.finished_matches import NAMES, finished_match, store
from tests.live import LiveServer

pytestmark = pytest.mark.browser

games.load_all()
GAMES = sorted(g.id for g in registry.all_games())
BOARD = "#replay-board > *"
"""The game's own drawing (its package's page/page.js), as the live room mounts it."""
OPTIONS = {"panic_lab": {"target_tokens": 3}}

SHOWN = "(window.panicParty ? window.panicParty.replay.shown : null)"
"""The move the board shows (static/js/replay.js's test hook), as a JavaScript expression."""
COUNTER = "#replay-counter"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[tuple[LiveServer, dict[str, tuple[int, int, object]]]]:
    """The server, and a finished match of every game: game -> (match id, moves, outcome)."""
    with LiveServer(tmp_path_factory.mktemp("replay") / "var", ping_interval_seconds=0.5) as live:
        matches = {}
        for n, game_id in enumerate(GAMES):
            seed = bytes([60 + n]) * 32
            options = OPTIONS.get(game_id)
            players, log, outcome = finished_match(game_id, seed, options)
            match_id = store(live.app.state.db, game_id, seed, players, log, outcome, options)
            matches[game_id] = (match_id, len(log), outcome)
        yield live, matches


@pytest.fixture
def open_page(browser) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """A page in a fresh context (a phone by default: any size under 500 px one way, upright or
    on its side), its errors collected."""
    contexts = []

    def make(size: tuple[int, int] = PHONE_SIZE, **options):  # type: ignore[no-untyped-def]
        phone = min(size) < 500
        context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                      is_mobile=phone, has_touch=phone, **{**CONTEXT, **options})
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
        return page

    yield make
    for context in contexts:
        context.close()


def open_match(page, base_url: str, match_id: int, move: int | None = None) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/matches/{match_id}" + ("" if move is None else f"?move={move}"))
    page.wait_for_function(f"() => {SHOWN} !== null")


def shown(page) -> int:  # type: ignore[no-untyped-def]
    return page.evaluate(f"() => {SHOWN}")


BOARD_STILL = """() => !document.querySelector('#replay-board .revealed, #replay-board .rolling,'
  + ' #replay-board [data-path="playing"], #replay-board .flipping')"""
"""The board's own timed effects are over: Panic Lab's reveal flash, dice roll and path, Panik
Pilze's flips (each ends on a timer of the page's, whatever the machine's speed)."""


def board(page) -> str:  # type: ignore[no-untyped-def]
    """The board's drawing once it is still (so two drawings of one move compare equal)."""
    page.wait_for_function(BOARD_STILL)
    settle(page)
    return page.inner_html("#replay-board")


def plays(page) -> list[int]:  # type: ignore[no-untyped-def]
    """The moves where a play ends (0 first), from the replay's steps: every move whose next
    move does not join it (``Game.replay_step``)."""
    steps = page.evaluate("() => window.panicParty.replay.data.steps.map(s => s.joins)")
    return [0] + [k for k in range(1, len(steps)) if k + 1 >= len(steps) or not steps[k + 1]]


def wait_move(page, n: int, total: int) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(f"() => {SHOWN} === {n}")
    assert page.inner_text(COUNTER) == f"Move {n} of {total}"
    assert page.url.endswith(f"?move={n}")
    assert page.input_value("#replay-slider") == str(n)


@pytest.mark.parametrize("game_id", GAMES)
def test_the_match_page_replays_the_game_on_its_own_board(site, open_page, game_id) -> None:  # type: ignore[no-untyped-def]
    live, matches = site
    match_id, total, outcome = matches[game_id]
    page = open_page()
    open_match(page, live.base_url, match_id)
    # At the end: the game's own board, the stored result beside it.
    assert page.locator(BOARD).first.is_visible()
    assert page.eval_on_selector("#replay-board", "b => b.querySelectorAll('*').length") > 5
    wait_move(page, total, total)
    result = page.inner_text("#replay-result")
    assert page.locator("#replay-result").is_visible()
    best = max(range(len(outcome.scores)), key=lambda s: (outcome.ranks[s] == 1, outcome.scores[s]))
    assert NAMES[best] in result and f"{outcome.scores[best]} point" in result, result
    assert f"Move {total} of {total}" in page.title()
    assert page.get_attribute("#replay-last", "disabled") is not None
    assert_accessible(page, f"{game_id} replay at the end")

    # ?move=N opens at move N; the buttons step a play at a time (a move, unless the game
    # groups its moves into plays: Panika's taps), and the board changes with the counter.
    one, two = plays(page)[1:3]
    open_match(page, live.base_url, match_id, move=one)
    wait_move(page, one, total)
    assert page.locator("#replay-result").is_hidden()
    before = board(page)
    page.click("#replay-forward")
    wait_move(page, two, total)
    assert board(page) != before, "the board did not change with the move"
    title = get_game(game_id).title
    assert page.title() == f"{title} · match {match_id} · Move {two} of {total} · Panic Party"
    page.click("#replay-back")
    wait_move(page, one, total)
    assert board(page) == before  # the same move, the same drawing
    page.click("#replay-first")
    wait_move(page, 0, total)
    assert page.inner_text("#replay-text") == "The match begins"

    # The arrow keys step (not while a field has the focus); Home and End go to the ends.
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("ArrowRight")
    wait_move(page, one, total)
    page.keyboard.press("ArrowRight")
    wait_move(page, two, total)
    page.keyboard.press("ArrowLeft")
    wait_move(page, one, total)
    page.keyboard.press("End")
    wait_move(page, total, total)
    page.keyboard.press("Home")
    wait_move(page, 0, total)

    # The slider and the move list jump anywhere.
    middle = total // 2
    page.locator("#replay-slider").fill(str(middle))
    wait_move(page, middle, total)
    third = min(3, total)
    page.click(f'.move-list li[data-move="{third}"] a.move-time')
    wait_move(page, third, total)
    assert page.get_attribute(f'.move-list li[data-move="{third}"]', "aria-current") == "step"
    assert page.inner_text("#replay-text").endswith(
        page.inner_text(f'.move-list li[data-move="{third}"] .move-text'))

    # Play runs the moves by itself at the chosen speed, and pauses.
    page.select_option("#replay-speed", "fast")
    page.click("#replay-play")
    assert page.get_attribute("#replay-play", "aria-pressed") == "true"
    page.wait_for_function(f"() => {SHOWN} >= {min(third + 2, total)}")
    page.click("#replay-play")
    assert page.get_attribute("#replay-play", "aria-pressed") == "false"
    paused = shown(page)
    assert page.inner_text(COUNTER) == f"Move {paused} of {total}"
    assert_accessible(page, f"{game_id} replay in the middle")
    assert page.errors == [], page.errors


def test_whose_eyes_shows_every_secret_or_one_seats_view(site, open_page) -> None:  # type: ignore[no-untyped-def]
    """Panika: everything shows every hand and the burst number; a seat's eyes show that seat's
    own hand as its page did, and nobody else's."""
    live, matches = site
    match_id, total, _ = matches["panika"]
    page = open_page(size=LAPTOP_SIZE)
    open_match(page, live.base_url, match_id, move=4)
    assert page.locator(".pk-open-hand").count() == 3
    secret = page.inner_text("#panika-secret")
    assert secret.startswith("Bursts at ") and 21 <= int(secret.split()[-1]) <= 30
    step = page.evaluate("() => window.panicParty.replay.data.steps[4].view.revealed.hands[1]")
    page.select_option("#replay-eyes", "1")
    page.wait_for_function("() => window.panicParty.replay.eyes === '1'")
    wait_move(page, 4, total)
    hand = page.eval_on_selector_all("#panika-hand [data-card-id]", "cs => cs.map(c => Number(c.dataset.cardId))")
    assert hand == [card["id"] for card in step]
    assert page.locator(".pk-open-hand").count() == 0 and page.locator("#panika-secret").is_hidden()
    # A replay offers no action: the cards are not playable and there is no Play button.
    assert page.locator("#panika-hand button:not([disabled])").count() == 0
    assert page.locator("#panika-play").is_hidden()
    page.keyboard.press("ArrowRight")  # the eyes stay as the board moves
    wait_move(page, min(e for e in plays(page) if e > 4), total)
    assert page.locator(".pk-open-hand").count() == 0
    page.select_option("#replay-eyes", "all")
    page.wait_for_function("() => document.querySelectorAll('.pk-open-hand').length === 3")
    assert_accessible(page, "panika replay through a seat's eyes")
    assert page.errors == [], page.errors


def test_the_link_to_the_move_is_copied_and_opens_there(site, open_page) -> None:  # type: ignore[no-untyped-def]
    live, matches = site
    match_id, total, _ = matches["panik_pilze"]
    page = open_page(size=LAPTOP_SIZE)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live.base_url)
    open_match(page, live.base_url, match_id, move=7)
    page.click("#replay-copy")
    page.wait_for_function("() => document.getElementById('replay-copied').textContent !== ''")
    assert page.inner_text("#replay-copied") == "Link copied"
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert link == f"{live.base_url}/matches/{match_id}?move=7"
    assert page.get_attribute("#replay-link", "href") == f"/matches/{match_id}?move=7"
    other = open_page()
    other.goto(link)
    wait_move(other, 7, total)
    # The revealed view of Panik Pilze: every hand under the board, every down side.
    assert other.locator("#pilze-open-hands .pp-open-hand").count() == 3
    assert other.locator("#pilze-display .pp-down").count() == other.locator(
        "#pilze-display .pp-card").count()


def test_every_board_fits_a_laptop_and_a_phone_without_overflow(site, open_page) -> None:  # type: ignore[no-untyped-def]
    live, matches = site
    for size in (LAPTOP_SIZE, PHONE_SIZE):
        page = open_page(size=size)
        for game_id in GAMES:
            match_id, total, _ = matches[game_id]
            open_match(page, live.base_url, match_id, move=total // 3)
            wide = page.evaluate("() => document.scrollingElement.scrollWidth")
            assert wide <= size[0], (game_id, size, wide)
            # The controls, the move's text and the board's top are on the first screen (the
            # controls at the bottom of a phone's, above the board on a laptop's).
            for control in ("#replay-play", "#replay-forward", "#replay-back", "#replay-text", "#replay-board"):
                box = page.locator(control).bounding_box()
                assert box and box["y"] + min(box["height"], 100) <= size[1], (game_id, size, control, box)
        assert page.errors == [], page.errors


def test_the_replay_speaks_german(site, open_page) -> None:  # type: ignore[no-untyped-def]
    live, matches = site
    match_id, total, outcome = matches["panique"]
    page = open_page(locale="de-DE")
    open_match(page, live.base_url, match_id, move=2)
    assert page.inner_text(COUNTER) == f"Zug 2 von {total}"
    assert page.inner_text("#replay-play-text") == "Abspielen"
    assert page.get_attribute("#replay-back", "aria-label") == "Einen Zug zurück"
    page.keyboard.press("End")
    page.wait_for_function(f"() => {SHOWN} === {total}")
    # The result's sentence is the ending's, in German (docs/decisions/0058).
    assert summary_text({"game": "panique", "ending": str(outcome.ending),
                         "details": outcome.details,
                         "players": [{"seat": s, "nickname": NAMES[s], "winner": s in outcome.winners}
                                     for s in range(len(outcome.scores))]},
                        "de") in page.inner_text("#replay-result")
    assert "gewinnt" in page.inner_text("#replay-result") or outcome.ending == "dawn"
    assert page.title().startswith(f"Panique · Partie {match_id} · Zug {total} von {total}")
    assert_accessible(page, "the German replay")
    assert page.errors == [], page.errors


def test_a_rooms_result_screen_has_one_tap_to_watch_the_match_again(site, open_page) -> None:  # type: ignore[no-untyped-def]
    """A Panic Lab to one token against a bot: the result screen's "Watch it again" opens the
    saved match's board at its first move; the match list links there too."""
    live, _ = site
    page = open_page()
    create_room_in_lobby(page, live.base_url, "panic_lab", "Nicole")
    page.wait_for_selector("#options-form [name=target_tokens]")
    page.fill("#options-form [name=target_tokens]", "1")
    page.dispatch_event("#options-form [name=target_tokens]", "change")
    page.wait_for_function("() => panicParty.state.room.options.target_tokens === 1")
    page.click("#add-bot-btn")
    page.wait_for_selector("#members .member.bot")
    page.click("#start-btn")
    page.wait_for_selector(SEARCH, timeout=15_000)
    page.click(f'.pl-tile[data-index="{answer_on_screen(page)}"]', timeout=5_000)
    again = page.wait_for_selector("#watch-again", timeout=15_000)
    assert again.inner_text() == "Watch it again"
    href = again.get_attribute("href")
    match_id = int(href.split("/")[2].split("?")[0])
    assert href == f"/matches/{match_id}?move=0"
    again.click()
    page.wait_for_url(f"**/matches/{match_id}?move=0")
    page.wait_for_function(f"() => {SHOWN} === 0")
    assert page.locator("#replay-board .pl-root").is_visible()
    page.goto(live.base_url + "/matches")
    assert page.locator(f'.match-card-watch a[href="/matches/{match_id}?move=0"]').count() == 1
    assert page.errors == [], page.errors


def test_a_match_todays_rules_cannot_replay_says_so_and_keeps_its_moves(site, open_page) -> None:  # type: ignore[no-untyped-def]
    """A match whose game is gone: no board, a clear notice, the move list still there. A match
    the rules refuse part-way: the board up to the move before, and a notice naming the move."""
    live, matches = site
    db = live.app.state.db
    seed = bytes([90]) * 32
    players, log, outcome = finished_match("panika", seed)
    gone = store(db, "panika", seed, players, log[:6], outcome)
    with db.engine.begin() as connection:
        connection.execute(Match.__table__.update().where(Match.id == gone).values(game="pinball"))
    page = open_page()
    page.goto(f"{live.base_url}/matches/{gone}")
    page.wait_for_selector("#replay-notice:not([hidden])")
    assert page.inner_text("#replay-notice") == (
        "This match cannot be shown on its board: its game is no longer on this site. "
        "Its moves are listed below.")
    assert page.locator("#replay").is_hidden() and page.locator(".move-list li").count() == 6
    assert_accessible(page, "a match that does not replay")

    broken = [*log[:5], Move(log[5].seat, {"type": "last_card"}, log[5].at_ms, 0), *log[5:8]]
    partial = store(db, "panika", seed, players, broken, outcome, seed_hash="1" * 64)
    open_match(page, live.base_url, partial)
    assert page.inner_text("#replay-notice") == (
        "Today's rules refuse move 6 of this match: the board shows it up to move 5.")
    page.wait_for_function(f"() => {SHOWN} === 5")
    assert page.inner_text(COUNTER) == "Move 5 of 9"
    assert page.get_attribute("#replay-forward", "disabled") is not None
    assert page.locator("#replay-result").is_hidden()
    # Chromium logs the 409 answer itself as a console error; nothing else went wrong.
    assert [e for e in page.errors if "409 (Conflict)" not in e] == [], page.errors


def test_a_move_on_another_page_of_the_move_list_is_told_in_the_lists_own_words(site, open_page) -> None:  # type: ignore[no-untyped-def]
    """The move list holds one page of a long match's moves (the page of the move the board
    opened at); the board goes anywhere. A move on another page is told from its step, in the
    very words the list gives it on its own page, in English and in German."""
    import re
    from html import unescape

    live, matches = site
    match_id, total, _ = matches["panika"]
    assert total > 100
    for locale, lang in (("en-US", "en"), ("de-DE", "de")):
        with live.http() as http:
            last_page = http.get(f"/matches/{match_id}", headers={"Accept-Language": lang}).text
        found = re.search(
            rf'<li data-move="{total}">.*?<span class="move-who( system)?">(.*?)</span>\s*'
            r'<span class="move-text">(.*?)</span>', last_page, re.S)
        assert found, lang
        system, who, text = found.group(1), unescape(found.group(2)), unescape(found.group(3))
        page = open_page(locale=locale)
        open_match(page, live.base_url, match_id, move=1)
        assert page.locator(".move-list li").count() == 100
        assert page.locator(f'.move-list li[data-move="{total}"]').count() == 0
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.keyboard.press("End")
        page.wait_for_function(f"() => {SHOWN} === {total}")
        assert page.inner_text("#replay-text") == (text if system else f"{who}: {text}"), lang
        assert page.errors == [], page.errors


def _played(game_id: str, seed: bytes, players: int, choose) -> tuple[list[Move], object]:  # type: ignore[no-untyped-def]
    """A match of ``game_id`` played through its rules by ``choose(state)`` -> (seat, action)
    to its end; its log and outcome."""
    from app.engine import SeededRng

    game = get_game(game_id)
    rng = SeededRng(seed)
    state = game.setup(players, game.parse_options({}), rng)
    log: list[Move] = []
    while game.outcome(state) is None:
        seat, action = choose(state)
        move = Move(seat, action, 1000 * (len(log) + 1))
        game.step(state, Move(seat, game.parse_action(action), move.at_ms), rng)
        log.append(move)
    return log, game.outcome(state)


def test_a_match_ended_by_its_games_bound_says_so_on_its_board(site, open_page) -> None:  # type: ignore[no-untyped-def]
    """Panic Lab's last round (nobody found anything in 250 rounds) and Panik Pilze's last
    turn (300 swaps): each board, at the end, says why the match is over."""
    live, _ = site
    db = live.app.state.db

    def lab(state):  # type: ignore[no-untyped-def]
        step = {"countdown": "reveal", "search": "timeout", "result": "next_round"}
        return None, {"type": step[state.phase]}

    def pilze(state):  # type: ignore[no-untyped-def]
        return state.turn, {"type": "swap", "cards": [state.hands[state.turn][0]]}

    page = open_page(size=LAPTOP_SIZE)
    for game_id, choose, selector, words in (
            ("panic_lab", lab, ".pl-banner", "The last round is over: the most tokens win."),
            ("panik_pilze", pilze, "#pilze-pad .pp-pad-note", "The game reached its limit of turns.")):
        seed = bytes([91 + len(game_id)]) * 32
        log, outcome = _played(game_id, seed, 2, choose)
        match_id = store(db, game_id, seed, 2, log, outcome)
        open_match(page, live.base_url, match_id)
        wait_move(page, len(log), len(log))
        assert words in page.inner_text(selector), game_id
    assert page.errors == [], page.errors


LAYOUT_SHIFT = """() => {
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts.push(e.value);
  }).observe({ type: "layout-shift", buffered: true });
}"""
"""Collects every layout shift of the page from its first paint (PerformanceObserver's
``layout-shift`` entries, as Lighthouse sums them), set before the page's own scripts run."""
SHIFT = "() => window.__shifts.reduce((a, b) => a + b, 0)"
FIRST_VISIT = """() => performance.getEntriesByType('navigation').concat(
  performance.getEntriesByType('resource')).reduce((a, e) => a + e.transferSize, 0)"""
"""The bytes a first visit took off the network (each answer as it travelled, compressed)."""


def test_a_long_matchs_page_keeps_its_place_as_it_loads_and_stays_light(site, open_page) -> None:  # type: ignore[no-untyped-def]
    """The Panika match (over 100 moves), opened as a shared link opens it (at the end) on a
    phone and a laptop: its layout shifts add up to under 0.1 while the board and the move list
    load (the board's place is kept, the result is there from the start), the page holds well
    under a thousand elements, and a first visit takes at most 250 KB."""
    live, matches = site
    match_id, total, _ = matches["panika"]
    assert total > 100
    for size in (PHONE_SIZE, LAPTOP_SIZE):
        page = open_page(size=size)
        page.add_init_script(f"({LAYOUT_SHIFT})()")
        open_match(page, live.base_url, match_id)
        page.wait_for_function(BOARD_STILL)
        settle(page)
        shift = page.evaluate(SHIFT)
        assert shift < 0.1, (size, shift)
        elements = page.evaluate("() => document.getElementsByTagName('*').length")
        assert elements < 1000, (size, elements)
        assert page.evaluate(FIRST_VISIT) <= 250_000, size
        assert page.errors == [], page.errors


def test_the_replay_on_a_phone_steps_a_play_at_a_time_with_the_controls_at_the_thumb(site, open_page) -> None:  # type: ignore[no-untyped-def]
    """Panika on a phone upright (English) and on its side (German): the controls in a bar at the
    bottom of the screen and the board above it, both in view; a step goes from the end of one
    play (a card and the taps it owes) to the end of the next; the bursts are ticks on the
    slider's track, and "Next burst" lands on the move that bursts the counter; axe finds
    nothing."""
    live, matches = site
    match_id, total, _ = matches["panika"]
    for size, locale, jump in (((390, 844), "en-US", "Next burst"),
                               ((844, 390), "de-DE", "Nächstes Platzen")):
        page = open_page(size=size, locale=locale)
        open_match(page, live.base_url, match_id, move=0)
        width, height = size
        bar = page.locator(".replay-bar").bounding_box()
        assert bar and bar["y"] + bar["height"] <= height + 0.5 and bar["y"] >= height / 2, (size, bar)
        for control in ("#replay-play", "#replay-forward", "#replay-back", ".replay-jump"):
            box = page.locator(control).bounding_box()
            assert box and box["y"] >= bar["y"] and box["y"] + box["height"] <= height + 0.5, (size, control)
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, (size, control)
        board_box = page.locator("#replay-board").bounding_box()
        assert board_box and board_box["y"] < bar["y"] - 60, (size, board_box)  # the board shows above the bar
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= width
        steps = page.evaluate("() => window.panicParty.replay.data.steps.map(s => [s.joins, s.marks])")
        ends = [0] + [k for k in range(1, len(steps)) if k + 1 >= len(steps) or not steps[k + 1][0]]
        joined = next(k for k in range(1, len(steps)) if steps[k][0])  # a play with its taps
        start = max(e for e in ends if e < joined)
        after = min(e for e in ends if e > start)
        assert after - start >= 2, (start, after)
        open_match(page, live.base_url, match_id, move=start)
        page.tap("#replay-forward")
        page.wait_for_function(f"() => {SHOWN} === {after}")
        page.tap("#replay-back")
        page.wait_for_function(f"() => {SHOWN} === {start}")
        # Every burst is a tick on the slider's track.
        ticks = page.eval_on_selector_all("#replay-marks option", "os => os.map(o => Number(o.value))")
        assert ticks == [k for k in range(len(steps)) if steps[k][1]] and ticks
        assert page.get_attribute("#replay-slider", "list") == "replay-marks"
        burst = next(k for k in range(start + 1, len(steps)) if "burst" in steps[k][1])
        assert page.inner_text(".replay-jump") == jump
        page.tap(".replay-jump")
        page.wait_for_function(f"() => {SHOWN} === {burst}")
        assert page.url.endswith(f"?move={burst}")
        assert_accessible(page, f"the replay on a phone at {size}")
        assert page.errors == [], page.errors
