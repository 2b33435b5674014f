"""The answers about a finished match (docs/protocol.md, "Answers about a finished match";
docs/decisions/0039): built once per match and variant, in a builder process of their own below
the server, and kept; the match page lists one page of moves; no answer ever shows a room's
code. And the proof that matters: a dozen requests of a maximal match's page and a dozen of its
replay at once leave a player in another room answered within 250 ms."""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from app.api.finished.answers import accepted_encodings
from app.db import matches as store_module
from app.db.database import Database
from app.db.matches import MatchRecord, PlayerResult, save_match
from app.db.models import Match
from app.engine import Move, SeededRng, get_game, seed_commitment
from app.games import load_all
from tests.clock import wait_until
from tests.durable.process import ServerProcess
from tests.finished_matches import NAMES, bot_match, counter_match, store
from tests.live import Client, LiveServer

load_all()

PING_LIMIT = 0.25
"""The longest a player's ping may wait while match answers are asked for (seconds)."""
REQUESTS = 12
"""Concurrent requests of the maximal match's page, and as many of its replay."""


def maximal_counter(seed: bytes, code: str = "QZXW") -> MatchRecord:
    """The longest match any game allows: a stand-alone counter tapped and taken back by two
    phones until the limit ends it (played through the rules, not over sockets)."""
    game = get_game("panika_counter")
    rng = SeededRng(seed)
    state = game.setup(game.max_players, game.parse_options({}), rng)
    log: list[Move] = []
    while game.outcome(state) is None:
        n = len(log)
        move = Move(n % 2, game.parse_action({"type": "back" if n % 2 else "tap"}),
                    n * 150, 20)
        game.step(state, move, rng)
        log.append(move)
    outcome = game.outcome(state)
    assert outcome is not None and len(log) == game.max_moves
    now = datetime.now(UTC)
    return MatchRecord(
        game="panika_counter", room_code=code, options={}, seed=seed.hex(),
        seed_hash=seed_commitment(seed), started_at=now, ended_at=now,
        ending=str(outcome.ending), details=dict(outcome.details),
        players=[PlayerResult(s, NAMES[s], outcome.scores[s], 1, False) for s in (0, 1)],
        log=log)


class Pinger:
    """A player in another room, pinging the server over a real WebSocket from a thread of its
    own, a ping 20 ms after each answer, keeping every round trip (the server answers ``ping``
    with ``pong``)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.rtts: list[float] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        n = 0
        while not self.stop.is_set():
            n += 1
            sent = time.perf_counter()
            self.client.send({"type": "ping", "t": n})
            self.client.wait_for("pong", lambda f, n=n: f["t"] == n, timeout=10)
            self.rtts.append(time.perf_counter() - sent)
            self.stop.wait(0.02)

    def __enter__(self) -> Pinger:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(15)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[ServerProcess, int]]:
    """A server process (as in production: the test's own threads share no interpreter lock
    with it) on SQLite, with a maximal match stored: (the server, the match's id). It has
    served a short match's answers once already: a server's first page compiles its templates
    and its first requests build its routes (once in its life, whatever the match), which is
    not what the test measures."""
    url = f"sqlite:///{tmp_path / 'site.sqlite3'}"
    server = ServerProcess(tmp_path / "var", database_url=url)
    try:
        server.start()
        db = Database(url)
        try:
            match_id = save_match(db, record=maximal_counter(bytes(range(32))))
            seed = bytes(range(5, 37))
            short = store(db, "panika_counter", seed, 10, *counter_match(seed))
        finally:
            db.dispose()
        with server.http() as http:
            for path in (f"/matches/{short}", f"/api/matches/{short}/replay",
                         f"/api/matches/{short}"):
                for lang in ("en", "de"):
                    assert http.get(path, headers={"Accept-Language": lang}).status_code == 200
        yield server, match_id
    finally:
        server.ensure_stopped()


def test_a_dozen_page_and_replay_requests_of_a_maximal_match_leave_other_rooms_answered(site):
    """The stand-alone counter's longest match (10,000 moves), asked for twelve times as a page
    (in two languages, at several moves) and twelve times as a replay (through several pairs of
    eyes) at once: a player in another room pinging all along is answered within 250 ms every
    time, and every answer is right."""
    server, match_id = site
    room = server.create_room("panika", "Zoe")
    person = Client(server, room["code"])
    person.join(token=room["token"])
    with Pinger(person) as pinger:
        wait_until(lambda: len(pinger.rtts) >= 10, what="the player's pings at rest")
        paths = [*(f"/matches/{match_id}" + q for q in
                   ("", "?move=1", "?move=5000", "?page=7", "?move=9999", "?page=100") * 2),
                 *(f"/api/matches/{match_id}/replay?eyes={e}" for e in ("all", "0", "1") * 4)]
        languages = ["en", "de"] * REQUESTS

        # One client for every request, made before they start: its making (an SSL context
        # and all) would otherwise hold this process's interpreter lock, and the pings' thread
        # with it, while the requests begin.
        http = httpx.Client(base_url=server.base_url, timeout=60,
                            limits=httpx.Limits(max_connections=len(paths)))

        def ask(path: str, lang: str) -> tuple[str, int, bytes]:
            with http.stream("GET", path, headers={"Accept-Language": lang,
                                                   "Accept-Encoding": "gzip"}) as answer:
                return path, answer.status_code, b"".join(answer.iter_raw())

        with http, ThreadPoolExecutor(len(paths)) as pool:
            answers = list(pool.map(ask, paths, languages))
        rested = len(pinger.rtts)
        wait_until(lambda: len(pinger.rtts) >= rested + 5, what="pings after the answers")
    person.close()
    assert all(status == 200 for _, status, _ in answers), [a[:2] for a in answers]
    slow = [round(rtt * 1000) for rtt in pinger.rtts if rtt > PING_LIMIT]
    assert not slow, f"pings over {PING_LIMIT * 1000:.0f} ms: {slow} of {len(pinger.rtts)}"
    with server.http() as http:  # the answers, kept, are the match's
        page = http.get(f"/matches/{match_id}?move=5000").text
        replay = http.get(f"/api/matches/{match_id}/replay?eyes=1").json()
    assert "Move 5000 of 10000" in page and page.count("<li data-move=") == 100
    assert replay["complete"] and len(replay["steps"]) == 10_001
    assert [e["kind"] for e in replay["steps"][-1]["events"]] == ["limit"]


# --- in one server process: the answers' building, the pages of moves, the room's code --------
@pytest.fixture(scope="module")
def live(tmp_path_factory) -> Iterator[tuple[LiveServer, int]]:  # type: ignore[no-untyped-def]
    """A server in this process with a maximal match stored: (the server, the match's id)."""
    with LiveServer(tmp_path_factory.mktemp("answers") / "var") as server:
        match_id = save_match(server.app.state.db, record=maximal_counter(bytes(range(1, 33))))
        yield server, match_id


class CountedBuilds:
    """The app's builder, each build it is asked for counted (by kind)."""

    def __init__(self, builder) -> None:  # type: ignore[no-untyped-def]
        self.builder = builder
        self.builds: list[str] = []

    async def run(self, build: str, *args):  # type: ignore[no-untyped-def]
        self.builds.append(build)
        return await self.builder.run(build, *args)


def test_concurrent_requests_of_an_answer_wait_for_its_one_build(live, monkeypatch):
    """Twelve requests of one page and twelve of one replay at once: the story and the replay
    are built once each, in the builder's process, from the record read once per build at most
    (the builds under way at once share one read); later requests (any page of the story, any
    move) are answered from memory."""
    server, _ = live
    match_id = save_match(server.app.state.db, record=maximal_counter(bytes(range(2, 34))))
    answers = server.app.state.match_answers
    counted = CountedBuilds(answers.builder)
    monkeypatch.setattr(answers, "builder", counted)
    reads: list[int] = []
    read = store_module.get_match_text

    def counted_read(db, *, match_id):  # type: ignore[no-untyped-def]
        reads.append(match_id)
        return read(db, match_id=match_id)

    monkeypatch.setattr(store_module, "get_match_text", counted_read)
    paths = [f"/matches/{match_id}"] * REQUESTS + [f"/api/matches/{match_id}/replay"] * REQUESTS
    with httpx.Client(base_url=server.base_url, timeout=60,
                      limits=httpx.Limits(max_connections=len(paths))) as http, \
            ThreadPoolExecutor(len(paths)) as pool:
        statuses = list(pool.map(lambda path: http.get(path).status_code, paths))
        assert statuses == [200] * len(paths)
        assert sorted(counted.builds) == ["replay", "story"]
        assert reads in ([match_id], [match_id] * 2)
        read_before = list(reads)
        for query in ("?move=1", "?page=50", "?move=10000"):
            assert http.get(f"/matches/{match_id}{query}").status_code == 200
        assert http.get(f"/api/matches/{match_id}/replay").status_code == 200
    assert sorted(counted.builds) == ["replay", "story"] and reads == read_before
    assert answers.builder.builder.pid not in (None, os.getpid())


def test_the_builder_runs_below_the_server_and_comes_back_when_it_dies(live):
    server, match_id = live
    builder = server.app.state.match_answers.builder
    with server.http() as http:
        assert http.get(f"/api/matches/{match_id}").status_code == 200
        pid = builder.pid
        assert pid not in (None, os.getpid())
        niceness = os.getpriority(os.PRIO_PROCESS, pid), os.getpriority(os.PRIO_PROCESS, 0)
        assert niceness[0] >= niceness[1] + 10, niceness
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        answer = http.get(f"/api/matches/{match_id}/replay?eyes=0")
        assert answer.status_code == 200, answer.text
        assert answer.json()["eyes"] == 0
    assert builder.pid not in (None, pid), (builder.pid, pid)


def _items(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<li data-move="(\d+)"', page)]


def test_the_match_page_lists_one_page_of_moves_and_links_the_others(live):
    """A page never lists more than 100 moves: the page that holds the move the board opens at
    (``?move=N``, else the end), or ``?page=K`` (the board at its first move), with links to
    the first, previous, next and last pages; the whole page stays a few hundred elements."""
    server, match_id = live
    with server.http() as http:
        at_5000 = http.get(f"/matches/{match_id}?move=5000").text
        third = http.get(f"/matches/{match_id}?page=3").text
        end = http.get(f"/matches/{match_id}").text
        odd = [http.get(f"/matches/{match_id}?page={p}").text for p in ("x", "-1", "1e3")]
        beyond = http.get(f"/matches/{match_id}?page=999").text
    assert _items(at_5000) == list(range(4901, 5001))
    assert 'data-move="5000"' in at_5000 and "Move 5000 of 10000" in at_5000
    assert "Moves 4901 to 5000 of 10000" in at_5000 and '<ol class="move-list" start="4901">' in at_5000
    for page, rel in ((1, ""), (49, ' rel="prev"'), (51, ' rel="next"'), (100, "")):
        assert f'<a href="?page={page}"{rel}>' in at_5000, page
    assert _items(third) == list(range(201, 301)) and 'data-move="201"' in third
    assert _items(end) == list(range(9901, 10001)) and "Move 10000 of 10000" in end
    assert 'rel="next"' not in end and '<a href="?page=99" rel="prev">' in end
    assert all(_items(page) == _items(end) for page in odd)
    assert _items(beyond) == _items(end) and 'data-move="9901"' in beyond
    for page in (at_5000, third, end):
        assert len(re.findall(r"<[a-zA-Z]", page)) < 800


def test_a_short_match_has_one_page_and_no_page_links(live):
    server, _ = live
    seed = bytes(range(3, 35))
    log, outcome = bot_match("panik_pilze", seed, 2)
    match_id = store(server.app.state.db, "panik_pilze", seed, 2, log, outcome)
    with server.http() as http:
        page = http.get(f"/matches/{match_id}?move=3").text
    assert _items(page) == list(range(1, len(log) + 1)) and 'class="move-pages"' not in page


def test_answers_are_kept_compressed_and_served_in_the_form_a_client_takes(live):
    """Brotli to a client that takes it, else gzip, else the JSON itself: each form kept, so no
    answer is compressed per request (the site's compression leaves an encoded answer alone)."""
    server, match_id = live
    with server.http() as http:
        for path in (f"/api/matches/{match_id}", f"/api/matches/{match_id}/replay"):
            forms = {}
            for accept, coding in (("identity", None), ("gzip", "gzip"), ("br", "br"),
                                   ("gzip, deflate, br, zstd", "br"), ("br;q=0, gzip", "gzip"),
                                   ("*", "br")):
                answer = http.get(path, headers={"Accept-Encoding": accept})
                assert answer.headers.get("content-encoding") == coding, (path, accept)
                assert "Accept-Encoding" in answer.headers["vary"], (path, accept)
                forms[accept] = answer.json()
            assert all(form == forms["identity"] for form in forms.values()), path


def test_the_content_codings_a_client_takes():
    assert accepted_encodings("gzip, deflate, br;q=0.5") == {"gzip", "deflate", "br"}
    assert accepted_encodings("br;q=0, gzip;q=0.0, identity") == {"identity"}
    assert accepted_encodings("*;q=1") >= {"br", "gzip"} and accepted_encodings("") == set()
    assert accepted_encodings("br;q=x, GZIP") == {"gzip"}


def test_no_answer_about_a_match_shows_its_rooms_code(live):
    """A private room's counter is saved when a phone starts a new counter, while the room is
    still open: neither the match list nor the match (page, JSON, replay), the matches page, the
    leaderboard nor the room's result names the room, so nobody can join it from there. The
    code stays in the database, for the site's operators."""
    server, _ = live
    created = server.create_room("panika_counter", "Ann", public=False)
    code = created["code"]
    ann = Client(server, code)
    try:
        ann.join(token=created["token"])
        ann.action({"type": "tap"})
        ann.wait_for("state", lambda f: f["view"]["counter"] == 1)
        ann.action({"type": "new_counter"})
        finished = ann.wait_for("room", lambda f: f["status"] == "finished")
    finally:
        ann.close()
    seed_hash = finished["result"]["seed_hash"]
    shown = re.compile(rf"(?<![A-Za-z0-9]){code}(?![A-Za-z0-9])")
    found: list[int] = []

    def saved() -> bool:
        with server.http() as http:
            for listed in http.get("/api/matches", params={"game": "panika_counter"}).json():
                if http.get(f"/api/matches/{listed['id']}").json()["seed_hash"] == seed_hash:
                    found.append(listed["id"])
                    return True
        return False

    wait_until(saved, what="the counter saved")
    match_id = found[0]
    paths = ["/api/matches", "/api/matches?game=panika_counter", f"/api/matches/{match_id}",
             f"/api/matches/{match_id}/replay", f"/api/matches/{match_id}/replay?eyes=0",
             "/matches", f"/matches/{match_id}", f"/matches/{match_id}?move=0",
             "/leaderboard", "/api/leaderboard?game=panika", "/i18n/en.json"]
    with server.http() as http:
        for path in paths:
            for lang in ("en", "de"):
                answer = http.get(path, headers={"Accept-Language": lang})
                assert answer.status_code == 200, path
                assert not shown.search(answer.text), (path, lang)
                assert '"room_code"' not in answer.text, (path, lang)
    assert not shown.search(json.dumps(finished["result"]))
    with server.app.state.db.engine.connect() as connection:
        assert connection.scalar(select(Match.room_code).where(Match.id == match_id)) == code
