"""Provably fair, checkable by anyone (issue 7, item 16): ``static/verify_match.py`` uses only the
standard library, never imports ``app``, and, given a match's JSON from ``/api/matches/<id>``,
checks the seed against its hash and re-derives every draw; run as a separate program over
matches of every registered game, over the documented test vectors, and over tampered matches.
"""

from __future__ import annotations

import ast
import json
import random
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from app.config import PROJECT_ROOT
from app.db.matches import MatchRecord, PlayerResult, save_match
from app.engine import Game, Move, SeededRng, all_games, new_seed, seed_commitment
from app.games import load_all
from tests.engine.test_rng import fairness_vectors
from tests.live import ClientPool, LiveServer
from tests.realtime.helpers import PanikaTable, room_of, start_panika, wait_frame

VERIFIER = PROJECT_ROOT / "static" / "verify_match.py"
MAX_STEPS = 20_000
"""Steps of a random match at most (500 for a game driven by its timers only)."""


def verify(source: str, tmp_path, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run the checker as a third party would: another process, isolated mode (no site
    packages, no project on the path), from a folder of its own."""
    return subprocess.run(
        [sys.executable, "-I", str(VERIFIER), source], cwd=tmp_path, input=stdin,
        capture_output=True, text=True, timeout=120,
    )


def verify_json(match: dict, tmp_path, name: str = "match.json") -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_text(json.dumps(match))
    return verify(str(path), tmp_path)


# --- the checker stands alone --------------------------------------------------------------------
def test_the_checker_imports_only_the_standard_library():
    tree = ast.parse(VERIFIER.read_text())
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            modules.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "__import__":
            pytest.fail("no dynamic imports")
    assert modules and modules <= sys.stdlib_module_names, modules - sys.stdlib_module_names
    assert "app" not in modules


def test_the_documented_test_vectors_pass_the_checker(tmp_path):
    vectors = fairness_vectors()
    for name, draws in vectors["sequences"].items():
        result = verify_json({"id": name, "game": "vectors", "seed": vectors["seed"],
                              "seed_hash": vectors["seed_hash"], "draws": draws}, tmp_path)
        assert result.returncode == 0, (name, result.stdout, result.stderr)
        assert f"{len(draws)} draws re-derived" in result.stdout


def test_the_checker_is_served_and_linked_from_the_fairness_page(tmp_path):
    doc = (PROJECT_ROOT / "docs" / "fairness.md").read_text()
    assert "/static/verify_match.py" in doc
    with LiveServer(tmp_path / "var") as live, live.http() as http:
        served = http.get("/static/verify_match.py")
    assert served.status_code == 200 and served.text == VERIFIER.read_text()


# --- a match of every registered game ------------------------------------------------------------
def drive_to_the_end(game: Game, seed: bytes, chooser: random.Random
                     ) -> tuple[int, list[Move], object]:
    """A random legal match: each step one of the seats' legal actions (``legal_actions``) or
    one of the timers the rules run now, until the match ends (or, for a game without
    ``legal_actions`` or an open table, until nothing more can happen or ``MAX_STEPS``)."""
    players = game.max_players if game.open_table else chooser.choice(list(game.player_counts()))
    rng = SeededRng(seed)
    state = game.setup(players, game.parse_options({}), rng)
    legal = getattr(game, "legal_actions", None)
    log: list[Move] = []
    at_ms = 0
    for _ in range(MAX_STEPS if legal is not None else 500):
        outcome = game.outcome(state)
        if outcome is not None:
            return players, log, outcome
        candidates = [(None, timer.action) for timer in game.timers(state)]
        if legal is not None:
            candidates += [(seat, action) for seat in range(players)
                           for action in legal(state, seat)]
        if not candidates:
            break
        seat, action = chooser.choice(candidates)
        at_ms += chooser.randint(20, 1500)
        rtt = 0 if seat is None else chooser.randint(5, 120)
        game.step(state, Move(seat, game.parse_action(action), at_ms, rtt), rng)
        log.append(Move(seat, action, at_ms, rtt))
    return players, log, None


def store(db, game: Game, seed: bytes, players: int, log, outcome) -> int:  # type: ignore
    """Store the match as a room would, through the store."""
    now = datetime.now(UTC)
    results = [PlayerResult(s, f"P{s}", outcome.scores[s] if outcome else 0,
                            outcome.ranks[s] if outcome else 1,
                            bool(outcome and s in outcome.winners)) for s in range(players)]
    return save_match(db, record=MatchRecord(
        game=game.id, room_code="TEST", options={}, seed=seed.hex(),
        seed_hash=seed_commitment(seed), started_at=now - timedelta(minutes=5), ended_at=now,
        summary="", players=results, log=log))


@pytest.fixture(scope="module")
def live(tmp_path_factory):  # type: ignore[no-untyped-def]
    with LiveServer(tmp_path_factory.mktemp("verify") / "var", ping_interval_seconds=0.5,
                    ws_messages_per_second=100_000) as server:
        yield server


load_all()


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_the_checker_confirms_a_match_of_every_game(game, live, tmp_path):
    """Every registered game (new games are picked up from the registry)."""
    chooser = random.Random(f"verify-{game.id}")
    seed = new_seed()
    players, log, outcome = drive_to_the_end(game, seed, chooser)
    # Whether random play ends is tests/engine/test_legal_actions.py's concern (a Panic Lab
    # of random claims drifts away from 5 tokens); here every draw of the moves made is checked.
    assert log, f"{game.id}: no move was made"
    match_id = store(live.app.state.db, game, seed, players, log, outcome)
    with live.http() as http:
        match = http.get(f"/api/matches/{match_id}").json()
    assert match["draws"], f"{game.id} drew nothing at all"
    assert len(match["actions"]) == len(log)
    result = verify_json(match, tmp_path)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert f"{len(match['draws'])} draws re-derived" in result.stdout
    assert "fair" in result.stdout
    if getattr(game, "legal_actions", None) is None:
        print(f"{game.id}: no legal_actions yet; driven by its timers only "
              f"({len(log)} moves, {len(match['draws'])} draws)")


def test_a_panika_match_played_over_websockets_checks_out_by_url(live, tmp_path):
    """A real room's match, fetched by the checker itself from the match page's address."""
    with ClientPool() as pool:
        _, clients = room_of(live, lambda c: pool(live, c), "panika", 3)
        start_panika(clients)
        PanikaTable(clients).play_to_end()
        saved = wait_frame(clients[0], lambda f: f["type"] == "room"
                           and f["save_state"] == "saved", timeout=10)
    result = verify(f"{live.base_url}/matches/{saved['match_id']}", tmp_path)
    assert result.returncode == 0, (result.stdout, result.stderr)
    with live.http() as http:
        match = http.get(f"/api/matches/{saved['match_id']}").json()
    assert [d["op"] for d in match["draws"][:3]] == ["shuffle", "randint", "randbelow"]
    assert match["draws"][0]["args"] == [120]
    piped = verify("-", tmp_path, stdin=json.dumps(match))
    assert piped.returncode == 0 and "fair" in piped.stdout


# --- tampering is caught -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def a_panika_match(live):  # type: ignore[no-untyped-def]
    game = next(g for g in all_games() if g.id == "panika")
    seed = new_seed()
    players, log, outcome = drive_to_the_end(game, seed, random.Random("tamper"))
    match_id = store(live.app.state.db, game, seed, players, log, outcome)
    with live.http() as http:
        return http.get(f"/api/matches/{match_id}").json()


def test_a_changed_draw_is_reported(a_panika_match, tmp_path):
    match = json.loads(json.dumps(a_panika_match))
    randint = next(i for i, d in enumerate(match["draws"]) if d["op"] == "randint")
    match["draws"][randint]["result"] = 21 if match["draws"][randint]["result"] != 21 else 22
    match["draws"][0]["result"][0], match["draws"][0]["result"][1] = \
        match["draws"][0]["result"][1], match["draws"][0]["result"][0]
    result = verify_json(match, tmp_path)
    assert result.returncode == 1
    assert f"draw {randint} (randint [21, 30])" in result.stdout
    assert "draw 0 (shuffle [120])" in result.stdout
    assert "2 problem(s)" in result.stdout


def test_a_changed_seed_or_hash_is_reported(a_panika_match, tmp_path):
    other = new_seed()
    forged = {**a_panika_match, "seed": other.hex()}
    result = verify_json(forged, tmp_path)
    assert result.returncode == 1 and "the seed does not match its hash" in result.stdout
    assert "the seed gives" in result.stdout  # the draws do not follow from another seed
    both = {**forged, "seed_hash": seed_commitment(other)}
    result = verify_json(both, tmp_path)
    assert result.returncode == 1 and "the seed does not match its hash" not in result.stdout
    assert "the seed gives" in result.stdout


def test_a_missing_or_malformed_chance_log_is_reported(a_panika_match, tmp_path):
    for broken in ({**a_panika_match, "draws": None},
                   {**a_panika_match, "draws": [{"op": "roll", "args": [6], "result": 1}]},
                   {**a_panika_match, "draws": [{"op": "randbelow", "args": [0], "result": 0}]},
                   {**a_panika_match, "seed": "not hex"}):
        result = verify_json(broken, tmp_path)
        assert result.returncode == 1 and "MISMATCH" in result.stdout, broken["draws"]
    (tmp_path / "junk.json").write_text("{oops")
    assert verify(str(tmp_path / "junk.json"), tmp_path).returncode == 2
    assert verify(str(tmp_path / "absent.json"), tmp_path).returncode == 2


# --- hostile input and rules the draws must follow (issue 25, item 5) ---------------------------
def _redrawn(seed: bytes, ops: list[tuple[str, list[int]]]) -> list[dict]:
    """A chance log of these operations, made by the seed's own generator (so every draw
    "follows from the seed", as a faulty engine's would)."""
    from app.engine.rng import RecordingRng

    rng = RecordingRng(seed)
    for op, args in ops:
        if op == "shuffle":
            rng.shuffle(list(range(args[0])))
        elif op == "choice":
            rng.choice(list(range(args[0])))
        else:
            getattr(rng, op)(*args)
    return rng.draws


@pytest.fixture(scope="module")
def a_pilze_match(live):  # type: ignore[no-untyped-def]
    """A Panik Pilze match long enough that its action pile was reshuffled."""
    game = next(g for g in all_games() if g.id == "panik_pilze")
    for attempt in range(20):
        seed = new_seed()
        players, log, outcome = drive_to_the_end(game, seed, random.Random(f"pilze-{attempt}"))
        match_id = store(live.app.state.db, game, seed, players, log, outcome)
        with live.http() as http:
            match = http.get(f"/api/matches/{match_id}").json()
        if any(d["op"] == "shuffle" for d in match["draws"][63:]):
            return match
    raise AssertionError("no Pilze match reshuffled its action pile")


def test_every_game_s_documented_draws_are_followed(a_pilze_match, a_panika_match, tmp_path):
    for match in (a_pilze_match, a_panika_match):
        result = verify_json(match, tmp_path)
        assert result.returncode == 0, result.stdout
        assert f"the draws are those of {match['game']}'s documented setup" in result.stdout


def test_a_pilze_setup_drawing_the_sides_before_the_shuffle_is_caught(a_pilze_match, tmp_path):
    """Issue 25, item 5: the up sides (60 coins) drawn before the pile's shuffle, every draw
    still following from the seed: the documented setup shuffles first."""
    ops = [(d["op"], d["args"]) for d in a_pilze_match["draws"]]
    faulty = ops[1:61] + ops[:1] + ops[61:]
    match = {**a_pilze_match, "draws": _redrawn(bytes.fromhex(a_pilze_match["seed"]), faulty)}
    result = verify_json(match, tmp_path)
    assert result.returncode == 1, result.stdout
    assert "draw 0: the documented setup of panik_pilze draws [\"shuffle\", [60]] here" \
        in result.stdout
    assert "the seed gives" not in result.stdout  # every draw follows from the seed


def test_a_pilze_reshuffle_without_a_shuffle_is_caught(a_pilze_match, tmp_path):
    """Issue 25, item 5: the action pile "reshuffled" without drawing a shuffle: the moves of
    the log use the pile up, so the rules draw one there."""
    draws = a_pilze_match["draws"]
    first_play = next(i for i, d in enumerate(draws) if i >= 63 and d["op"] == "shuffle")
    match = {**a_pilze_match, "draws": draws[:first_play]}
    result = verify_json(match, tmp_path)
    assert result.returncode == 1, result.stdout
    assert "the action pile's reshuffles" in result.stdout


def test_the_checker_prints_the_match_s_text_escaped(a_panika_match, tmp_path):
    """Issue 25, item 5: an id that clears the screen and a game that fakes a "fair" line and
    hides the rest are printed as JSON text: no control character reaches the terminal, and the
    real verdict is there."""
    forged = {**a_panika_match, "id": "1\u001b[2J\u001b[H",
              "game": "panika\nmatch 1 (panika): fair, every draw follows\u001b[8m\u202e",
              "draws_error": "x"}
    forged["draws"][0] = {**forged["draws"][0], "result": list(reversed(
        forged["draws"][0]["result"]))}
    result = verify_json(forged, tmp_path)
    assert result.returncode == 1
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
    assert result.stdout.count("\n") == len(result.stdout.splitlines())
    assert result.stdout.splitlines()[-1].endswith("problem(s) found")
    assert r'match "1\u001b[2J\u001b[H"' in result.stdout


@pytest.mark.parametrize("draw, says", [
    ({"op": ["randbelow"], "args": [6], "result": 1}, "unknown operation"),
    ({"op": "shuffle", "args": [10**9], "result": []}, "beyond any game"),
    ({"op": "shuffle", "args": [10**7], "result": []}, "beyond any game"),
    ({"op": "getrandbits", "args": [10**12], "result": 0}, "beyond any game"),
    ({"op": "randint", "args": [0, 2**5000], "result": 0}, "beyond any game"),
])
def test_a_hostile_draw_is_reported_at_once_without_a_traceback(a_panika_match, tmp_path,
                                                                 draw, says):
    """Issue 25, item 5: a list for an operation, a shuffle of a billion or ten million items,
    a trillion bits: reported as a problem (exit 1) within a moment, no traceback."""
    match = {**a_panika_match, "draws": [draw] + a_panika_match["draws"]}
    result = verify_json(match, tmp_path)
    assert result.returncode == 1 and says in result.stdout, result.stdout
    assert "Traceback" not in result.stderr


def test_a_match_nested_too_deeply_cannot_be_checked(tmp_path):
    """Issue 25, item 5: 100,000 nested lists: exit 2 (cannot be read), as documented."""
    path = tmp_path / "deep.json"
    path.write_text('{"draws": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = verify(str(path), tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
