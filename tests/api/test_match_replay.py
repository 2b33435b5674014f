"""Watching a match again, the API (docs/protocol.md, "Watching a match again"):
``GET /api/matches/{id}/replay`` serves the stored match move by move from its seed, options
and log, through every secret or one seat's eyes; a match the rules refuse part-way replays up
to that move, one they cannot replay at all answers 409; answers are built once and kept in a
bounded cache. And the match page's title and Open Graph tags name the game and the move."""

from __future__ import annotations

import asyncio
import re
from html import unescape

import orjson
import pytest
from app.api.finished.answers import AnswerCache
from app.db.models import Match
from app.engine import EngineError, Move, get_game
from app.engine.registry import all_games
from app.engine.replay import Replay
from app.realtime.room.frames import event_frame
from tests.finished_matches import NAMES, bot_match, finished_match, store
from tests.live import LiveServer, run_async

SEED = bytes(range(7, 39))


@pytest.fixture(scope="module")
def live(tmp_path_factory):  # type: ignore[no-untyped-def]
    with LiveServer(tmp_path_factory.mktemp("replay") / "var") as server:
        yield server


@pytest.fixture(scope="module")
def panika(live):  # type: ignore[no-untyped-def]
    """A whole Panika match of three bots, stored: (match id, its log, its outcome)."""
    log, outcome = bot_match("panika", SEED, 3)
    return store(live.app.state.db, "panika", SEED, 3, log, outcome), log, outcome


def get_replay(live, match_id: int, **params) -> dict:  # type: ignore[no-untyped-def]
    with live.http() as http:
        response = http.get(f"/api/matches/{match_id}/replay", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def jsonish(value):  # type: ignore[no-untyped-def]
    return orjson.loads(orjson.dumps(value))


def test_the_replay_is_every_step_of_the_match_with_every_secret_shown(live, panika):
    match_id, log, _ = panika
    body = get_replay(live, match_id)
    assert (body["match"], body["game"], body["eyes"]) == (match_id, "panika", "all")
    assert body["moves"] == len(log) and body["complete"] and body["refused"] is None
    assert [p["nickname"] for p in body["players"]] == NAMES[:3]
    steps = body["steps"]
    assert [s["move"] for s in steps] == list(range(len(log) + 1))
    # Each step is the engine's own, re-derived here move by move from the same record.
    game = get_game("panika")
    run = Replay(game, 3, {}, SEED)
    assert steps[0]["view"] == jsonish(game.revealed_view(run.state))
    assert (steps[0]["seat"], steps[0]["at_ms"], steps[0]["events"]) == (None, 0, [])
    for move, step in zip(log, steps[1:], strict=True):
        events = run.step(move)
        assert (step["seat"], step["at_ms"]) == (move.seat, move.at_ms)
        assert step["events"] == jsonish([event_frame(e) for e in events])
        assert step["active"] == game.active_seats(run.state)
        assert step["view"] == jsonish(game.revealed_view(run.state)), step["move"]
    # Every hand and the burst number, which no seat's frames showed.
    assert steps[1]["view"]["revealed"]["burst_at"] in range(21, 31)
    assert [len(h) for h in steps[1]["view"]["revealed"]["hands"]] == [
        p["hand"] for p in steps[1]["view"]["players"]]
    assert steps[-1]["view"]["phase"] == "over" and steps[-1]["timers"] == []


def test_panikas_taps_join_the_play_they_pay_for_and_its_bursts_are_marked(live, panika):
    """Each step says whether its move joins the play before it (a tap, a player's or the
    system's ``auto_tap``, pays for the card played) and which marks it carries (the move that
    bursts the counter: ``burst``); the answer names the marks the game has. The set-up joins
    nothing and carries nothing."""
    match_id, log, _ = panika
    body = get_replay(live, match_id)
    assert body["marks"] == ["burst"]
    steps = body["steps"]
    assert (steps[0]["joins"], steps[0]["marks"]) == (False, [])
    for move, step in zip(log, steps[1:], strict=True):
        assert step["joins"] == (move.action["type"] in ("tap", "auto_tap")), step["move"]
        bursts = any(e["kind"] == "burst" for e in step["events"])
        assert step["marks"] == (["burst"] if bursts else []), step["move"]
    assert any(s["joins"] for s in steps) and any(s["marks"] for s in steps)
    plays = sum(1 for s in steps[1:] if not s["joins"])
    assert plays < len(log) * 2 / 3  # far fewer steps than moves


def test_a_game_that_groups_nothing_steps_move_by_move_without_marks(live):
    """The default (``Game.replay_step``): every move a play of its own, no marks (the
    test-only Higher or Lower)."""
    seed = bytes([77]) * 32
    players, log, outcome = finished_match("higher_lower", seed)
    match_id = store(live.app.state.db, "higher_lower", seed, players, log, outcome)
    body = get_replay(live, match_id)
    assert body["marks"] == []
    assert all(s["joins"] is False and s["marks"] == [] for s in body["steps"])


def test_panik_pilzes_parties_and_steals_are_marked(live):
    """Panik Pilze steps turn by turn and marks the turns that threw a Mushroom Party or stole."""
    seed = bytes([71]) * 32  # every stored match has a seed of its own
    players, log, outcome = finished_match("panik_pilze", seed)
    match_id = store(live.app.state.db, "panik_pilze", seed, players, log, outcome)
    body = get_replay(live, match_id)
    assert body["marks"] == ["party", "steal"]
    steps = body["steps"]
    assert not any(s["joins"] for s in steps)
    for mark in ("party", "steal"):
        marked = [s["move"] for s in steps if mark in s["marks"]]
        assert marked == [s["move"] for s in steps if any(_is(mark)(e) for e in s["events"])]
    assert any(s["marks"] for s in steps)


def _is(kind: str, purpose: str | None = None):  # type: ignore[no-untyped-def]
    """Whether an event frame is of ``kind`` (and, given one, of that ``data.purpose``)."""
    return lambda e: e["kind"] == kind and (purpose is None or e.get("data", {}).get("purpose") == purpose)


@pytest.mark.parametrize(("game_id", "mark", "marked_event"), [
    ("panic_lab", "round", _is("reveal")), ("panika_counter", "burst", _is("burst")),
    ("panique", "turn", _is("roll", "move"))])
def test_panic_labs_rounds_the_counters_bursts_and_paniques_turns_are_marked(
        live, game_id, mark, marked_event):  # type: ignore[no-untyped-def]
    """Panic Lab marks each reveal (a round's search begins), the stand-alone counter each
    burst, Panique each heir's movement roll (a turn); none groups its moves."""
    seed = bytes([78 + len(game_id)]) * 32
    players, log, outcome = finished_match(game_id, seed)
    match_id = store(live.app.state.db, game_id, seed, players, log, outcome)
    body = get_replay(live, match_id)
    assert body["marks"] == [mark]
    steps = body["steps"]
    assert not any(s["joins"] for s in steps)
    marked = [s["move"] for s in steps if s["marks"] == [mark]]
    assert marked and marked == [s["move"] for s in steps if any(map(marked_event, s["events"]))]


def test_a_seats_eyes_see_exactly_that_seats_view_of_each_moment(live, panika):
    match_id, log, _ = panika
    steps = get_replay(live, match_id, eyes="1")["steps"]
    game = get_game("panika")
    run = Replay(game, 3, {}, SEED)
    assert steps[0]["view"] == jsonish(game.view(run.state, 1))
    for move, step in zip(log, steps[1:], strict=True):
        run.step(move)
        assert step["view"] == jsonish(game.view(run.state, 1))
        assert "revealed" not in step["view"] and step["view"]["you"] == 1


def test_the_timers_are_those_that_stood_just_after_each_move(live):
    """Panic Lab: the countdown from the set-up, the search from the reveal, each with the time
    it had left on the match's clock, as the room ran it."""
    options = {"target_tokens": 2, "countdown_seconds": 3, "search_seconds": 20}
    seed = bytes(range(50, 82))  # every stored match has a seed of its own (its hash is its key)
    log, outcome = bot_match("panic_lab", seed, 3, options)
    match_id = store(live.app.state.db, "panic_lab", seed, 3, log, outcome, options)
    steps = get_replay(live, match_id)["steps"]
    assert [(t["key"], t["remaining_ms"]) for t in steps[0]["timers"]] == [("countdown:1", 3000)]
    reveal = next(s for s in steps if any(e["kind"] == "reveal" for e in s["events"]))
    assert [(t["key"], t["remaining_ms"]) for t in reveal["timers"]] == [("search:1", 20_000)]
    after = steps[reveal["move"] + 1]
    if after["timers"] and after["timers"][0]["key"] == "search:1":  # a wrong claim: still on
        assert after["timers"][0]["remaining_ms"] == 20_000 - (after["at_ms"] - reveal["at_ms"])
    # The round's answer shows from the reveal on (the end of the round names the same tile);
    # nobody's frame had it before.
    assert steps[0]["view"]["revealed"]["answer"] is None
    decided = next(s for s in steps if any("answer" in e.get("data", {}) for e in s["events"]))
    answer = next(e["data"]["answer"] for e in decided["events"] if "answer" in e.get("data", {}))
    assert reveal["view"]["revealed"]["answer"] == answer


def test_answers_come_compressed_to_a_client_that_takes_gzip(live, panika):
    match_id, _, _ = panika
    with live.http() as http:
        plain = http.get(f"/api/matches/{match_id}/replay",
                         headers={"Accept-Encoding": "identity"})
        packed = http.get(f"/api/matches/{match_id}/replay", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert int(packed.headers["content-length"]) * 10 < len(plain.content)
    assert packed.json() == plain.json()


def test_a_match_the_rules_refuse_part_way_replays_up_to_that_move(live, panika):
    _, log, outcome = panika
    game = get_game("panika")
    run = Replay(game, 3, {}, SEED)
    for move in log[:10]:
        run.step(move)
    waiting = (run.state.turn + 1) % 3  # a play from a seat whose turn it is not
    card = run.state.hands[waiting][0]
    bad = Move(waiting, {"type": "play", "cards": [card]}, log[9].at_ms + 500, 20)
    with pytest.raises(EngineError) as refusal:  # what the rules say to that move
        run.step(bad)
    stored = store(live.app.state.db, "panika", SEED, 3, [*log[:10], bad, *log[10:12]],
                   outcome, seed_hash="0" * 64)
    body = get_replay(live, stored)
    assert not body["complete"] and body["moves"] == 13
    assert body["refused"] == {"move": 11, "code": refusal.value.code,
                               "reason": str(refusal.value)}
    assert [s["move"] for s in body["steps"]] == list(range(11))


def test_a_match_todays_rules_cannot_replay_at_all_answers_409(live, panika):
    _, log, outcome = panika
    db = live.app.state.db
    gone = store(db, "panika", bytes(range(2, 34)), 3, log, outcome)
    with db.engine.begin() as connection:
        connection.execute(Match.__table__.update().where(Match.id == gone).values(game="pinball"))
    refused = store(db, "panic_lab", bytes(range(3, 35)), 3, [], outcome,
                    options={"target_tokens": "lots"})
    with live.http() as http:
        for match_id, code in ((gone, "unknown_game"), (refused, "setup_refused")):
            response = http.get(f"/api/matches/{match_id}/replay")
            assert response.status_code == 409, response.text
            assert response.json()["code"] == code and response.json()["detail"]


def test_unknown_matches_and_eyes_that_are_no_seat_are_refused(live, panika):
    match_id, _, _ = panika
    with live.http() as http:
        for path in ("/api/matches/abc/replay", "/api/matches/0/replay",
                     "/api/matches/2147483648/replay", "/api/matches/424242/replay"):
            assert http.get(path).status_code == 404, path
        for eyes in ("x", "-1", "1.0", "3", "999", "all "):
            response = http.get(f"/api/matches/{match_id}/replay", params={"eyes": eyes})
            assert response.status_code == 422, eyes
        assert http.get(f"/api/matches/{match_id}/replay", params={"eyes": "2"}).status_code == 200


def test_a_replay_is_built_once_then_served_from_memory(live):
    db = live.app.state.db
    seed = bytes(range(90, 122))
    log, outcome = bot_match("panik_pilze", seed, 2)
    match_id = store(db, "panik_pilze", seed, 2, log, outcome)
    first = get_replay(live, match_id)
    assert ("replay", match_id, None) in live.app.state.match_answers.cache
    with db.engine.begin() as connection:  # the record changes (it never does in a real site)
        connection.execute(Match.__table__.update().where(Match.id == match_id)
                           .values(game="pinball"))
    assert get_replay(live, match_id) == first  # the kept answer: the record was not read
    with live.http() as http:  # another pair of eyes was never built: it reads the record
        assert http.get(f"/api/matches/{match_id}/replay?eyes=0").status_code == 409


def test_the_cache_is_bounded_by_entries_and_bytes_least_recently_used_first():
    cache = AnswerCache(max_entries=3, max_bytes=100)
    for n in range(3):
        cache.put((n, None), b"x" * 20, 20)
    assert cache.get((0, None)) == b"x" * 20  # 0 is now the most recently used
    cache.put((3, None), b"y" * 20, 20)  # a fourth entry: 1, the least recently used, goes
    assert (1, None) not in cache and len(cache) == 3 and cache.bytes == 60
    cache.put((4, 0), b"z" * 70, 70)  # 130 bytes: 2 and 0 go (least recently used first)
    assert [k for k in ((0, None), (2, None), (3, None), (4, 0)) if k in cache] == [
        (3, None), (4, 0)]
    assert cache.bytes == 90
    cache.put((5, None), b"w" * 101, 101)  # over the whole budget: served, never kept
    assert (5, None) not in cache and cache.bytes == 90


def test_concurrent_requests_build_an_answer_once_and_share_its_failure():
    cache = AnswerCache()
    builds = []

    async def main() -> None:
        gate = asyncio.Event()

        async def build() -> bytes:
            builds.append(1)
            await gate.wait()
            return b"answer"

        waiting = [asyncio.create_task(cache.get_or_build((1, None), build)) for _ in range(5)]
        await asyncio.sleep(0)  # let every request reach the cache (no time passes)
        waiting[0].cancel()  # a request that goes away does not end the build for the others
        gate.set()
        assert await asyncio.gather(*waiting[1:]) == [b"answer"] * 4
        assert cache.get((1, None)) == b"answer"

        async def broken() -> bytes:
            raise LookupError("no such match")

        for _ in range(2):  # a failure is not kept: the next request tries again
            with pytest.raises(LookupError):
                await cache.get_or_build((2, None), broken)

        async def nothing() -> None:
            return None

        assert await cache.get_or_build((3, None), nothing) is None  # no such match: not kept

    run_async(main())
    assert builds == [1] and (2, None) not in cache and (3, None) not in cache


# --- the page ------------------------------------------------------------------------------------
def _meta(page: str, prop: str) -> str:
    found = re.search(rf'<meta (?:property|name)="{prop}" content="([^"]*)"', page)
    assert found, prop
    return unescape(found.group(1))


def test_the_match_page_names_the_game_and_the_move_for_a_shared_link(live, panika):
    match_id, log, _ = panika
    with live.http() as http:
        at_five = http.get(f"/matches/{match_id}?move=5").text
        at_end = http.get(f"/matches/{match_id}").text
        odd = [http.get(f"/matches/{match_id}?move={m}").text for m in ("abc", "99999", "-2")]
    total = len(log)
    title = f"Panika · match {match_id} · Move 5 of {total}"
    assert f"<title>{title} · Panic Party</title>" in at_five
    assert _meta(at_five, "og:title") == title
    assert _meta(at_five, "og:url").endswith(f"/matches/{match_id}?move=5")
    fifth = log[4]
    who = NAMES[fifth.seat] + ": " if fifth.seat is not None else ""
    assert _meta(at_five, "og:description").split(" · ", 1)[1].startswith(who)
    assert 'data-move="5"' in at_five and f'data-moves="{total}"' in at_five
    # Without a move (or with one that is none), the page opens at the end, on the result.
    for page in (at_end, *odd):
        assert f"Move {total} of {total}" in page and f'data-move="{total}"' in page
    winners = [NAMES[s] for s in range(3) if f"{NAMES[s]} wins" in at_end]
    assert winners and _meta(at_end, "og:description") == f"{winners[0]} wins: no cards left"


def test_the_german_match_page_is_german_from_its_title_to_its_moves(live, panika):
    match_id, log, outcome = panika
    with live.http() as http:
        page = http.get(f"/matches/{match_id}?move=3", headers={"Accept-Language": "de"}).text
    assert f"<title>Panika · Partie {match_id} · Zug 3 von {len(log)} · Panic Party" in page
    winner = NAMES[outcome.winners[0]]
    assert f'<p class="summary">{winner} gewinnt: keine Karten mehr</p>' in page
    assert " wins" not in page and "spielt" in page and "Noch einmal ansehen" in page


def test_every_game_has_a_finished_match_that_replays_to_its_stored_result(live):
    """The stored result is what the last step shows: the engine's outcome of the replayed
    final state gives every seat the score and rank the record has. Every step's marks are
    among the game's own."""
    db = live.app.state.db
    for n, game_id in enumerate(sorted(g.id for g in all_games())):
        seed = bytes([40 + n]) * 32
        players, log, outcome = finished_match(game_id, seed)
        match_id = store(db, game_id, seed, players, log, outcome)
        body = get_replay(live, match_id)
        assert body["complete"] and len(body["steps"]) == len(log) + 1, game_id
        # Every mark a step carries is one the game names (its jump buttons' labels).
        assert body["marks"] == list(get_game(game_id).replay_marks), game_id
        assert {m for s in body["steps"] for m in s["marks"]} <= set(body["marks"]), game_id
        game = get_game(game_id)
        run = Replay(game, players, {}, seed)
        for move in log:
            run.step(move)
        final = game.outcome(run.state)
        with live.http() as http:
            stored = http.get(f"/api/matches/{match_id}").json()
        assert [(p["score"], p["rank"]) for p in stored["players"]] == list(
            zip(final.scores, final.ranks, strict=True)), game_id
        assert body["steps"][-1]["view"] == jsonish(game.revealed_view(run.state)), game_id
