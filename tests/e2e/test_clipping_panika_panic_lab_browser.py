"""No game text cut off at 360 x 640 in English and in German (issue 23) for Panika, its
stand-alone counter and Panic Lab: one phone page per language goes through every state a player
of each game sees and checks, at each, that no text of the room is clipped (``clipped_text``:
an element whose own text overflows a box that hides it) and that no text reaches out of a box
around it that cuts it off (a card, the counter's button, the ring's drawing, the screen).

How each state is reached (docs/testing.md, "Clipped text at 360 x 640"):

- the waiting rooms and the counter are real: the page creates the room in the lobby, adds
  computer players, and the counter is tapped by the page and by a WebSocket client with a long
  name until each bursts;
- the states of a Panika or a Panic Lab match are a seeded match played by a policy through the
  engine in this process, drawn by the page's own game module from the page's seat while the
  server's frames are held (as the Panique phone sweep does), so that every kind of state comes
  in every run within seconds: own turn (a card and a pair chosen), Play Two, another's turn,
  taps owed, another tapping, the Tap! queue, the burst overlay, "Last card!", the end; Panic
  Lab's countdown, the search with each of the 48 rolls' clues, a lockout, a claim in the
  latency-fair comparison, each way a round ends with its path and claims, the end;
- the room's result screen is the room frame the server sends at a match's end (app/realtime/
  room/life.py builds it), made from the played match's outcome and the room's members.

A phone held sideways (844 x 390 and 740 x 360, docs/decisions/0060): the first state of each
kind is checked at those sizes too, the same page resized (no match of its own): nothing cut off,
the page does not scroll and every control of the game (the hand, Play, the counter) lies inside
the screen (``fit_problems``). At every size no word is broken inside itself over two lines
(``broken_words``: "TOM/ATO", "REVERS/E", a player's "(you)"). Panic Lab's lines in the ring's
middle lie between its tiles for each of the 48 rolls, on the phone and at 1920 x 1080 (the
ring's drawing the TV shows); its token count read aloud names the match's target. Panika's
burst, drawn on the table view at 1920 x 1080, says who burst it and the penalty at 32 px or
more; a computer player's mark in the waiting room is the site's drawing, with no emoji text.
Panic Lab's host reads its options in plain words, the expert ones folded under "More options"
(decision 0060).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from app.engine import Move, SeededRng
from app.games.panic_lab import GAME as LAB
from app.games.panika import GAME as PANIKA
from app.games.panika import rules as panika_rules
from app.games.panika.cards import CARD_JSON
from app.realtime.room.frames import event_frame
from tests.e2e.axe import assert_accessible
from tests.e2e.conftest import CONTEXT
from tests.e2e.layout import add_style, broken_words, clipped_text, fit_problems, settle
from tests.e2e.lobby import create_room_in_lobby
from tests.e2e.room_flow import no_errors
from tests.live import Client

pytestmark = pytest.mark.browser

HOST = "Marie-Luise Brandt"
"""A long two-word name (the bots' are "Bot Ada", ...): the players' strips at their widest."""
GUEST = "Hans-Joachim Müller"
"""The counter's second phone, a WebSocket client."""
LOCALES = {"en": "en-US", "de": "de-DE"}


@pytest.fixture
def live(shared_live):  # type: ignore[no-untyped-def]
    return shared_live


CUT_BY_A_BOX = """(scope) => {
  const out = [];
  const hides = (s) => s.overflowX !== "visible" || s.overflowY !== "visible";
  const scrolls = (s) => ["auto", "scroll"].includes(s.overflowX) || ["auto", "scroll"].includes(s.overflowY);
  for (const box of document.querySelectorAll(scope)) {
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode, el = node.parentElement;
      if (!el || !node.textContent.trim()) continue;
      if (el.closest("[aria-hidden=true], .visually-hidden, [hidden], title, style, script")) continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || style.display === "none") continue;
      let r;
      if (el instanceof SVGElement) r = el.getBoundingClientRect();
      else { const range = document.createRange(); range.selectNodeContents(node); r = range.getBoundingClientRect(); }
      if (r.width === 0 && r.height === 0) continue;
      const vw = window.innerWidth, vh = window.innerHeight;
      const fixed = !!el.closest(".pk-burst, .pc-burst");
      let limit = null;
      for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (a !== el.parentElement || true) {
          if (scrolls(s)) break;  // a scrolling area: its text can be scrolled to
          if (hides(s) || a instanceof SVGSVGElement) { limit = a; break; }
        }
      }
      const where = `"${node.textContent.trim().slice(0, 40)}" (${el.tagName.toLowerCase()}.${el.getAttribute("class") || ""})`;
      if (limit) {
        const b = limit.getBoundingClientRect();
        const over = Math.max(b.left - r.left, r.right - b.right, b.top - r.top, r.bottom - b.bottom);
        if (over > 1) out.push(`${where} reaches ${over.toFixed(1)} px out of ${limit.tagName.toLowerCase()}.${limit.getAttribute("class") || limit.id}`);
      }
      if (r.left < -1 || r.right > vw + 1) out.push(`${where} is off the screen sideways`);
      if (fixed && (r.top < -1 || r.bottom > vh + 1)) out.push(`${where} is off the screen`);
    }
  }
  return out;
}"""
"""Text (HTML or SVG) that reaches out of the nearest box that cuts off what overflows it (an
``overflow`` other than visible, or an ``svg``), or off the screen: a card's label, the
counter's hint, a clue in the ring. ``clipped_text`` sees only an element's own overflow."""


def problems(page, state: str, scope: str = "#room") -> list[str]:  # type: ignore[no-untyped-def]
    """What is cut off in ``scope`` now, or broken inside a word, each line naming the state."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    found = clipped_text(page, scope) + page.evaluate(CUT_BY_A_BOX, scope) + broken_words(page, scope)
    return [f"{state}: {p}" for p in found]


PHONE = (360, 640)
SIDEWAYS = {"844x390": (844, 390), "740x360": (740, 360)}
"""A phone held sideways: the sizes of docs/decisions/0060."""


def sideways(page, state: str, scope: str = "#room") -> list[str]:  # type: ignore[no-untyped-def]
    """``problems`` and ``fit_problems`` (no scroll, every control on screen) at each sideways
    size; the page is back at 360 x 640 after."""
    found = []
    try:
        for label, (width, height) in SIDEWAYS.items():
            page.set_viewport_size({"width": width, "height": height})
            settle(page)
            found += problems(page, f"{state} at {label}", scope)
            found += [f"{state} at {label}: {p}" for p in fit_problems(page)]
    finally:
        page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
        settle(page)
    return found


def open_phone(browser, locale: str):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale=locale, **CONTEXT)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
    return context, page


def room_with_bots(page, base_url: str, game: str, bots: int) -> None:  # type: ignore[no-untyped-def]
    create_room_in_lobby(page, base_url, game, HOST)
    page.wait_for_selector("#bots-panel:not([hidden])")
    for n in range(1, bots + 1):
        page.click("#add-bot-btn")
        page.wait_for_function("n => document.querySelectorAll('#members .member.bot').length === n", arg=n)
    # A person joining late or leaving is noted above the game for a few seconds: not what is
    # measured here (tests/e2e/test_room_explains_browser.py covers the note).
    add_style(page, "#away-line { display: none !important; }")


SHOW = """([view, legal, events, timers, version]) => {
  const game = panicParty.state.game;
  if (!game.realUpdate) { game.realUpdate = game.update; game.update = () => {}; }
  game.realUpdate({...panicParty.state.frame, view, legal, events, timers, version});
}"""
"""The page's game draws a frame of the test's match and holds the server's frames meanwhile
(they would draw over it)."""

FINISH = """(result) => panicParty.socket.handlers.onFrame({...panicParty.state.room,
  status: "finished", result: {...result, seed_hash: panicParty.state.room.seed_hash},
  match_id: 7, save_state: "saved"})"""
"""The room frame of a finished match, as the server sends it (the page's own room, its result)."""


def result_of(page, outcome, seed: bytes) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The room's ``result`` for ``outcome`` with the page's members in their seats (as
    app/realtime/room/life.py makes it)."""
    members = page.evaluate("() => panicParty.state.room.members.filter((m) => m.seat !== null)")
    seats = {m["seat"]: m for m in members}
    players = [{"seat": s, "nickname": seats[s]["nickname"], "score": outcome.scores[s],
                "rank": outcome.ranks[s], "winner": s in outcome.winners, "bot": seats[s].get("bot")}
               for s in sorted(seats)]
    return {"ending": str(outcome.ending), "details": dict(outcome.details), "seed": seed.hex(),
            "players": players}


# --- Panika ------------------------------------------------------------------------------------
PANIKA_SEED = b"clipping panika 360"


def panika_key(view: dict[str, Any], events: list[dict[str, Any]], seat: int) -> str | None:
    """The kind of state ``view`` shows its seat (None: a kind not worth drawing again)."""
    if any(e["kind"] == "burst" for e in events):
        return "burst, mine" if view["last_burst"]["seat"] == seat else "burst, another's"
    if view["phase"] == "over":
        return "over, won" if seat in view["winners"] else "over"
    me = view["players"][seat]
    if view["legal"]["last_card_due"]:
        return "Last card! due"
    if view["phase"] == "play":
        if view["turn"] == seat:
            if me["pile"] == 0 and me["hand"] <= 3:
                return "own turn, Last card! to call"
            return "own turn, Play Two" if view["play_two"] == seat else "own turn"
        return "another's turn, Play Two" if view["play_two"] is not None else "another's turn"
    if view["tapping"]["seat"] == seat:
        return "taps owed"
    if len(view["tap_queue"]) > 1:
        return "Tap! queue"
    if any(p["last_card"] for p in view["players"]):
        return "another taps, Last card! called"
    return "another taps"


PANIKA_KINDS = {"own turn", "own turn, Play Two", "another's turn", "another's turn, Play Two",
                "taps owed", "another taps", "Tap! queue", "burst, mine", "burst, another's",
                "own turn, Last card! to call", "Last card! due", "over", "over, won"}
"""The kinds of state every sweep draws."""


def panika_match(players: int, seat: int, seed: bytes, counts: dict[str, int]) -> tuple[list, Any]:
    """A seeded Panika match to the end; the frame before and the frame of the first two states
    of each kind not in ``counts`` twice yet, as ``seat`` sees them. The policy plays a random
    card or pair, taps, calls "Last card!" half the time and otherwise lets the window close;
    the page's seat plays its cheapest card and forgets its first call."""
    chooser = random.Random(seed)
    rng = SeededRng(seed)
    state = PANIKA.setup(players, PANIKA.parse_options({}), rng)

    def frame(events: list) -> dict[str, Any]:
        return {"view": PANIKA.view(state, seat), "legal": PANIKA.legal_actions(state, seat),
                "events": [event_frame(e) for e in events]}

    def taps(cards: list[int]) -> int:
        return sum(c["value"] if c["kind"] == "number" else 5 if c["kind"] == "vegetable" else 0
                   for c in (CARD_JSON[i] for i in cards))  # (a pair of vegetables: 10, no matter)

    windows = 0
    previous = frame([])
    picked: list[tuple[str, dict, dict]] = []
    while state.phase != "over":
        calls = [s for s in range(players) if panika_rules.last_card_counts(state, s)
                 and (s != seat or windows)]
        if calls and chooser.random() < 0.5:
            mover, action = calls[0], {"type": "last_card"}
        elif state.window is not None and chooser.random() < 0.3:
            windows += state.window == seat
            mover, action = None, {"type": "close_last_card"}
        elif state.phase == "play":
            plays = panika_rules.legal_plays(state, state.turn)
            if state.turn == seat:  # the page's seat plays safe, so that it comes to its last card
                plays = [min(plays, key=lambda p: (taps(p), chooser.random()))]
            mover, action = state.turn, {"type": "play", "cards": chooser.choice(plays)}
        else:
            mover, action = state.tapper, {"type": "tap"}
        events = PANIKA.step(state, Move(mover, PANIKA.parse_action(action)), rng)
        current = frame(events)
        key = panika_key(current["view"], current["events"], seat)
        if key is not None and counts.get(key, 0) < 2:
            counts[key] = counts.get(key, 0) + 1
            picked.append((key, previous, current))
        previous = current
    return picked, state


def panika_states(players: int, seat: int) -> tuple[list, Any]:
    """Seeded matches until every kind of state has come (the seeds are fixed: the same
    matches every run); the states picked, and the last match's end."""
    counts: dict[str, int] = {}
    picked: list = []
    for n in range(40):
        more, final = panika_match(players, seat, PANIKA_SEED + b" %d" % n, counts)
        picked += more
        if PANIKA_KINDS <= counts.keys():
            return picked, final
    raise AssertionError(f"no match showed {PANIKA_KINDS - counts.keys()}")


def start_swept(page, base_url: str, game: str, bots: int, ready: str, title: str,  # type: ignore[no-untyped-def]
                failures: list[str], scope: str = "#room", waiting=None) -> int:
    """A room of ``game`` with ``bots`` bots, checked waiting and at its first frame (``ready``
    shown); the page's seat."""
    room_with_bots(page, base_url, game, bots)
    failures += problems(page, f"{title}, waiting room")
    failures += [f"{title}, waiting room: {m}" for m in page.evaluate(EMOJI_BOTS)]
    if waiting is not None:
        waiting(page)
    page.click("#start-btn")
    page.wait_for_selector(ready)
    failures += problems(page, f"{title}, first frame", scope)
    failures += sideways(page, f"{title}, first frame", scope)
    return page.evaluate("() => panicParty.state.seat")


EMOJI_BOTS = """() => [...document.querySelectorAll("#members .member.bot .bot-mark")].flatMap((m) => {
  const r = m.getBoundingClientRect(), mask = getComputedStyle(m).maskImage || getComputedStyle(m).webkitMaskImage;
  return m.textContent.trim() || !mask.includes("robot") || r.width < 8 ? [`a bot's mark "${m.textContent}" (${mask}, ${r.width} px)`] : [];
})"""
"""A computer player's mark that is not the site's robot drawing (an emoji is an empty box where
no emoji font is installed)."""


def sweep_panika(page, base_url: str, lang: str, failures: list[str]) -> None:  # type: ignore[no-untyped-def]
    seat = start_swept(page, base_url, "panika", 5, "#panika-hand button.card", f"Panika {lang}",
                       failures)
    states, final = panika_states(6, seat)
    # The TV first: the room frame its leaving brings must not come after the result's below.
    burst = next(after for key, _, after in states if key.startswith("burst"))
    failures += tv_burst(page, base_url, lang, burst)
    # A short name with the reader's mark ("Cara (you)", cut at 360 px once): whole words only.
    page.evaluate("""() => { const n = document.querySelector('.pk-player.me .pk-name');
      n.textContent = 'Cara' + n.textContent.slice(n.textContent.lastIndexOf(' ')); }""")
    failures += problems(page, f"Panika {lang}, a short own name")
    version = 10_000
    sideways_seen: set[str] = set()
    for key, before, after in states:
        for f in (before, after):
            version += 1
            page.evaluate(SHOW, [f["view"], f["legal"], f["events"], [], version])
        label = f"Panika {lang}, {key}"
        if key == "burst, mine" or key == "burst, another's":
            page.wait_for_selector("#panika-burst:not([hidden])")
        failures += problems(page, label)
        if key not in sideways_seen:
            sideways_seen.add(key)
            failures += sideways(page, label)
        if key.startswith("own turn"):  # choose: the Play button names the cards and the taps
            cards = page.locator("#panika-hand button.card:not([disabled])")
            for i in range(min(2 if "Play Two" in key else 1, cards.count())):
                cards.nth(i).click()
            failures += problems(page, label + ", cards chosen")
    page.evaluate(FINISH, result_of(page, PANIKA.outcome(final), PANIKA_SEED))
    page.wait_for_selector("#result:not([hidden]) #result-rows tr")
    failures += problems(page, f"Panika {lang}, result")


BURST_SIZES = """() => [...document.querySelectorAll("#panika-burst .pk-burst-who, #panika-burst .pk-burst-penalty")]
  .filter((e) => e.textContent.trim()).map((e) => [e.textContent.trim(), parseFloat(getComputedStyle(e).fontSize)])"""


def tv_burst(page, base_url: str, lang: str, frame: dict[str, Any]) -> list[str]:  # type: ignore[no-untyped-def]
    """The room's table view at 1920 x 1080 draws a burst: who burst it and the penalty read
    from the sofa (32 px or more; they were 14-20 px)."""
    code = page.inner_text("#room-code").strip()
    tv = page.context.new_page()
    tv.set_viewport_size({"width": 1920, "height": 1080})
    try:
        tv.goto(f"{base_url}/r/{code}/table")
        tv.wait_for_selector(".panika--table")
        tv.evaluate(SHOW, [frame["view"], frame["legal"], frame["events"], [], 20_000])
        tv.wait_for_selector("#panika-burst:not([hidden])")
        lines = tv.evaluate(BURST_SIZES)
        assert len(lines) == 2, lines
        return [f"Panika {lang}, the TV's burst: {text!r} at {size} px" for text, size in lines if size < 32]
    finally:
        tv.close()


# --- the counter -------------------------------------------------------------------------------
def sweep_counter(page, live, lang: str, failures: list[str]) -> None:  # type: ignore[no-untyped-def]
    create_room_in_lobby(page, live.base_url, "panika_counter", HOST)
    add_style(page, "#away-line { display: none !important; }")
    page.wait_for_selector("#counter-tap:not([disabled])")
    code = page.inner_text("#room-code").strip()
    failures += problems(page, f"counter {lang}, counting at 0")
    guest = Client(live, code)
    try:
        guest.join(GUEST)
        page.wait_for_function("n => panicParty.state.room.members.some((m) => m.nickname === n)", arg=GUEST)
        page.wait_for_selector("body.in-game")
        failures += sideways(page, f"counter {lang}, two players at 0")
        # The guest taps to the burst; the page draws each count.
        state = "() => { const v = panicParty.state.frame.view; return [v.phase, v.counter, v.round]; }"
        while True:
            before = page.evaluate("() => panicParty.state.version")
            guest.action({"type": "tap"})
            guest.drain(0.01)  # and answers the server's pings (a silent client is closed)
            page.wait_for_function("v => panicParty.state.version > v", arg=before)
            phase, counter, _ = page.evaluate(state)
            if phase == "burst":
                page.wait_for_selector("#counter-burst:not([hidden])")
                failures += problems(page, f"counter {lang}, burst by another")
                break
            if counter >= 19:
                failures += problems(page, f"counter {lang}, counting at {counter}")
        guest.drain(0.05)
        page.click("#counter-next")
        page.wait_for_selector("#counter-burst", state="hidden")
        failures += problems(page, f"counter {lang}, next round, last burst shown")
        # The page taps to its own burst.
        while page.evaluate(state)[0] == "counting":
            before = page.evaluate("() => panicParty.state.version")
            page.click("#counter-tap")
            page.wait_for_function("v => panicParty.state.version > v", arg=before)
        page.wait_for_selector("#counter-burst:not([hidden])")
        failures += problems(page, f"counter {lang}, burst by me")
        failures += sideways(page, f"counter {lang}, burst by me")
    finally:
        guest.close()


# --- Panic Lab ---------------------------------------------------------------------------------
def lab_key(view: dict[str, Any], seat: int) -> str | None:
    phase = view["phase"]
    me = view["players"][seat]
    if phase == "countdown":
        return "countdown"
    if phase in ("search", "settling"):
        what = "locked out" if me["locked"] else "claimed" if view["my_claim"] else "searching"
        return f"{phase}, {what}"
    last = view["last_round"]
    if phase == "over":
        return "over, won" if view["winner"] == seat else "over"
    path = {s["kind"] for s in last["path"]} | {last["reason"]}
    ways = "+".join(sorted(path & {"vent", "mutation", "fourth_pass"})) or "straight"
    who = "mine" if last["winner"] == seat else last["ended_by"] if last["winner"] is None else "another's"
    return f"result, {who}, {ways}"


def lab_states(players: int, seat: int, options: dict, seed: bytes) -> tuple[list, Any]:
    """A seeded Panic Lab match to the end; the frame before and the frame of the first state of
    each kind, as ``seat`` sees them. The seats claim in turn, right or wrong, or nobody
    claims and the search times out."""
    chooser = random.Random(seed)
    rng = SeededRng(seed)
    state = LAB.setup(players, LAB.parse_options(options), rng)
    now = 0

    def frame(timers: list) -> dict[str, Any]:
        return {"view": LAB.view(state, seat), "legal": LAB.legal_actions(state, seat), "timers": timers}

    def timers_now() -> list[dict[str, Any]]:
        return [{"key": f"{t.key}", "label": t.label, "remaining_ms": int(t.seconds * 1000),
                 "seats": [], "paused": True} for t in LAB.timers(state) if t.visible]

    previous = frame(timers_now())
    picked, seen = [], set()
    while LAB.outcome(state) is None:
        mode = chooser.random()
        if state.phase in ("search", "settling") and mode < 0.8 and LAB.active_seats(state):
            who = chooser.choice(LAB.active_seats(state))
            right = chooser.random() < 0.45
            tiles = [i for i, t in enumerate(state.ring) if t.type in ("amoeba", "mutation")]
            tile = state.solution.answer if right else chooser.choice(
                [i for i in tiles if i != state.solution.answer])
            now += chooser.randint(50, 400)
            move = Move(who, LAB.parse_action({"type": "claim", "tile": tile}), now, chooser.randint(0, 200))
        else:
            (timer,) = LAB.timers(state)
            now += int(timer.seconds * 1000)
            move = Move(None, LAB.parse_action(dict(timer.action)), now)
        try:
            LAB.step(state, move, rng)
        except Exception:  # noqa: BLE001 - a claim after the settle window: refused, as the room would
            continue
        current = frame(timers_now())
        key = lab_key(current["view"], seat)
        if key is not None and key not in seen:
            seen.add(key)
            picked.append((key, previous, current))
        previous = current
    return picked, state


ROLLS = [{"lab": lab, "arrow": arrow, "step": 1 if arrow == "white" else -1,
          "colour": colour, "shape": shape, "pattern": pattern}
         for lab, arrow, colour, shape, pattern in itertools.product(
             ("blue", "yellow", "red"), ("white", "black"), ("red", "violet"),
             ("tentacled", "crawling"), ("striped", "dotted"))]
"""Every roll of the dice (48): every clue text the centre of the ring can show."""


UNDER_TILES = """() => {
  const tiles = [...document.querySelectorAll(".pl-ring .pl-tile .pl-hl")].map((c) => {
    const r = c.getBoundingClientRect();
    return {x: r.left + r.width / 2, y: r.top + r.height / 2, r: r.width / 2 - 3};
  });
  const out = [];
  for (const t of document.querySelectorAll(".pl-dice-caption, .pl-seek-title, .pl-seek-label")) {
    if (!t.textContent.trim()) continue;
    const b = t.getBoundingClientRect(), top = b.top + b.height * 0.2, bottom = b.bottom - b.height * 0.2;
    for (const c of tiles) {
      const dx = Math.max(b.left - c.x, 0, c.x - b.right), dy = Math.max(top - c.y, 0, c.y - bottom);
      if (dx * dx + dy * dy < c.r * c.r) { out.push(`"${t.textContent}" runs under a tile`); break; }
    }
  }
  return out;
}"""
"""A line of the ring's middle (the dice's caption, the sought amoeba) that reaches under a tile
(its letters' height, a tile's circle)."""

TOKEN_COUNTS = """(word) => {
  const target = panicParty.state.frame.view.target_tokens;
  return [...document.querySelectorAll(".pl-player .pl-tokens .visually-hidden")]
    .map((e) => e.textContent).filter((t) => !t.includes(`${target} ${word}`));
}"""
"""A player's token count read aloud that does not name the match's target ("1 of 1 token" for
one of five)."""
LAB_TOKENS = {"en": "token", "de": "Marker"}


OPTIONS = {
    "en": (["Tiles on the ring", "Tokens to win"], "More options", "Make up for slow connections"),
    "de": (["Plättchen im Ring", "Marker zum Sieg"], "Weitere Optionen", "Langsame Verbindungen ausgleichen"),
}
"""Panic Lab's options as its host reads them (its package's catalogs): the plain ones, the
fold's summary, and an expert one under it."""
SHOWN_LABELS = """() => [...document.querySelectorAll("#options-form label.option")]
  .filter((l) => l.checkVisibility()).map((l) => l.firstChild.textContent)"""


def plain_options(lang: str):  # type: ignore[no-untyped-def]
    """The host's options in plain words (decision 0060): the plain ones shown, the expert ones
    (the countdown, the search time, the latency rule) folded under "More options"; opened by a
    tap, they show, and they stay open while a change redraws the form."""
    plain, summary, expert = OPTIONS[lang]

    def check(page) -> None:  # type: ignore[no-untyped-def]
        shown = page.evaluate(SHOWN_LABELS)
        assert sorted(shown) == sorted(plain), shown
        assert page.inner_text("#more-options > summary") == summary
        assert not page.locator('#options-form [name="countdown_seconds"]').is_visible()
        page.tap("#more-options > summary")
        page.wait_for_selector('#options-form [name="countdown_seconds"]', state="visible")
        assert expert in page.evaluate(SHOWN_LABELS)
        page.fill('#options-form [name="countdown_seconds"]', "4")
        page.dispatch_event('#options-form [name="countdown_seconds"]', "change")
        page.wait_for_function("() => panicParty.state.room.options.countdown_seconds === 4")
        assert page.locator('#options-form [name="countdown_seconds"]').is_visible()
        text = page.inner_text("#options-form").lower()
        assert "latenc" not in text and "latenz" not in text and "ping" not in text, text
        assert_accessible(page, f"Panic Lab's host's options, more options open ({lang})")
        page.tap("#more-options > summary")

    return check


def sweep_lab(page, base_url: str, lang: str, failures: list[str]) -> None:  # type: ignore[no-untyped-def]
    seat = start_swept(page, base_url, "panic_lab", 3, ".pl-root .pl-tile", f"Panic Lab {lang}",
                       failures, waiting=plain_options(lang))
    version = 10_000
    final = None
    seen: set[str] = set()
    for options, seed in (({}, b"clipping lab 1"), ({"latency_fair": True}, b"clipping lab 2"),
                          ({"variant": "no_mutations"}, b"clipping lab 3")):
        states, final = lab_states(4, seat, options, seed)
        for key, before, after in states:
            if key.startswith("result") and before["view"]["phase"] != "countdown":
                # the result after the countdown: the path drawn at once (no animation to wait for)
                countdown = {**before, "view": {**before["view"], "phase": "countdown", "dice": None,
                                                "round": after["view"]["round"]}}
                before = countdown
            for f in (before, after):
                version += 1
                page.evaluate(SHOW, [f["view"], f["legal"], [], f["timers"], version])
            if key.startswith("result") or key.startswith("over"):
                page.wait_for_selector(".pl-root[data-path=done]")
            label = f"Panic Lab {lang} {options or ''}, {key}"
            failures += problems(page, label)
            failures += [f"{label}: {m}" for m in page.evaluate(TOKEN_COUNTS, LAB_TOKENS[lang])]
            if key not in seen:
                failures += sideways(page, label)
            seen.add(key)
            if key == "search, searching" and not options:
                for size in (PHONE, (1920, 1080)):
                    page.set_viewport_size({"width": size[0], "height": size[1]})
                    for roll in ROLLS:  # every clue
                        version += 1
                        view = {**after["view"], "dice": roll}
                        page.evaluate(SHOW, [view, after["legal"], [], after["timers"], version])
                        if size == PHONE:
                            failures += problems(page, f"Panic Lab {lang}, clue {roll}")
                        failures += [f"Panic Lab {lang} at {size}, clue {roll}: {m}"
                                     for m in page.evaluate(UNDER_TILES)]
                page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
                settle(page)
    assert {"countdown", "search, searching", "search, locked out", "settling, claimed",
            "over", "over, won"} <= seen, seen
    assert any(k.startswith("result, timeout") for k in seen), seen
    assert any("fourth_pass" in k for k in seen) and any("vent" in k for k in seen), seen
    page.evaluate(FINISH, result_of(page, LAB.outcome(final), b"clipping lab 3"))
    page.wait_for_selector("#result:not([hidden]) #result-rows tr")
    failures += problems(page, f"Panic Lab {lang}, result")


# --- Panik Pilze and Panique: their first screen (their own sweeps play on) --------------------
WIDER_THAN_ITS_CELL = """() => [...document.querySelectorAll("#pilze-board > .pp-corner, #pilze-board > .pp-total-head")]
  .flatMap((e) => {
    const cell = e.closest("#pilze-board > *").getBoundingClientRect();
    const range = document.createRange(); range.selectNodeContents(e);
    const text = range.getBoundingClientRect();
    return text.width > cell.width + 2 ? [`"${e.textContent.trim()}" is ${text.width.toFixed(1)} px in a ${cell.width.toFixed(1)} px column`] : [];
  })"""
"""A heading of Panik Pilze's baskets' first or last column wider than its column and the gap
beside it ("Punkte", 42 px in 36). (A mushroom's name over its column may reach into the gaps
beside it, centred over a shorter neighbour's: it is not cut.)"""


def sweep_pilze_and_panique(page, base_url: str, lang: str, failures: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Five players' Panik Pilze and five heirs' Panique at their first frame: nothing cut off or
    broken at 360 x 640 (the baskets' headings within their columns), and held sideways the
    hand and Play on screen without a scroll."""
    # (During a match its room keeps the members' chips to one line, cut at the screen's edge:
    # the baskets name every player. Its game and header are what is checked.)
    start_swept(page, base_url, "panik_pilze", 4, '.pilze[data-phase="play"] #pilze-hand button',
                f"Panik Pilze {lang}", failures, "#game, .room-header, #timers")
    failures += [f"Panik Pilze {lang}, 360 x 640: {m}" for m in page.evaluate(WIDER_THAN_ITS_CELL)]
    start_swept(page, base_url, "panique", 4, ".pq-root .pq-heir", f"Panique {lang}", failures)


@pytest.mark.long(40)
@pytest.mark.parametrize("lang", sorted(LOCALES))
def test_no_text_cut_off_at_360_in_panika_the_counter_and_panic_lab(browser, live, lang) -> None:  # type: ignore[no-untyped-def]
    context, page = open_phone(browser, LOCALES[lang])
    try:
        failures: list[str] = []
        sweep_panika(page, live.base_url, lang, failures)
        sweep_counter(page, live, lang, failures)
        sweep_lab(page, live.base_url, lang, failures)
        sweep_pilze_and_panique(page, live.base_url, lang, failures)
        assert not failures, "\n".join(dict.fromkeys(failures))
        no_errors([page])
    finally:
        context.close()
