"""Provably fair, checkable by anyone (issue 7, item 16): ``static/verify_match.py`` uses only the
standard library and names no game; given a match's JSON from ``/api/matches/<id>``, it checks
the seed against its hash and re-derives every chance step; alone it calls nothing fair (exit 3:
the rules' use of the draws unchecked), inside a clone of the site it runs the whole check too
(``python3 -m app verify``, docs/decisions/0054-the-stand-alone-verifier-names-no-game.md). Run
as a separate program over matches of every registered game, over the documented test vectors,
and over tampered matches (tests/engine/recorded.py).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from app.config import PROJECT_ROOT
from app.db.matches import MatchRecord, PlayerResult, save_match
from app.engine import Move, all_games, new_seed, seed_commitment
from app.games import load_all
from tests.engine.recorded import TAMPERED, a_match, finished, tampered
from tests.engine.test_rng import fairness_vectors
from tests.live import ClientPool, LiveServer
from tests.realtime.helpers import PanikaTable, room_of, start_panika, wait_frame

VERIFIER = PROJECT_ROOT / "static" / "verify_match.py"


def verify(source: str, tmp_path, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run the checker as a third party would: a copy of the served file in a folder of its
    own, another process in isolated mode with no site packages (no ``app`` to import)."""
    alone = tmp_path / "verify_match.py"
    if not alone.exists():
        shutil.copy(VERIFIER, alone)
    return subprocess.run(
        [sys.executable, "-I", "-S", str(alone), source], cwd=tmp_path, input=stdin,
        capture_output=True, text=True, timeout=120,
    )


def verify_json(match: dict, tmp_path, name: str = "match.json") -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_text(json.dumps(match))
    return verify(str(path), tmp_path)


def in_clone(command: list[str], source: str, env: dict[str, str] | None = None,
             stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run ``command`` (the verifier, or ``-m app verify``) with the site's Python environment
    from the checkout: the site's code importable (the test-only games on the path too)."""
    return subprocess.run(
        [sys.executable, *command, source], cwd=PROJECT_ROOT, input=stdin,
        capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})},
    )


def verify_in_clone(match: dict, tmp_path) -> subprocess.CompletedProcess:
    path = tmp_path / "match.json"
    path.write_text(json.dumps(match))
    return in_clone([str(VERIFIER)], str(path))


def app_verify(source: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return in_clone(["-m", "app", "verify"], source, env)


# --- the checker stands alone --------------------------------------------------------------------
def test_the_checker_imports_only_the_standard_library():
    """Only the standard library; the site's ``app`` only inside ``whole_check``, where its
    absence (a checker run alone) is expected."""
    tree = ast.parse(VERIFIER.read_text())
    modules = set()
    whole = next(node for node in tree.body
                 if isinstance(node, ast.FunctionDef) and node.name == "whole_check")
    inside = {id(node) for node in ast.walk(whole)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            top = node.module.split(".")[0]
            if top == "app":
                assert id(node) in inside, "the site's code is imported only by whole_check"
                continue
            modules.add(top)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "__import__":
            pytest.fail("no dynamic imports")
    assert modules and modules <= sys.stdlib_module_names, modules - sys.stdlib_module_names
    assert "app" not in modules


def test_the_checker_names_no_game():
    """No game's id appears in it: it re-derives any game's chance steps the same way."""
    text = VERIFIER.read_text()
    for game in all_games():
        assert game.id not in text, game.id


def test_the_documented_test_vectors_pass_the_checker(tmp_path):
    vectors = fairness_vectors()
    for name, draws in vectors["sequences"].items():
        result = verify_json({"id": name, "game": "vectors", "seed": vectors["seed"],
                              "seed_hash": vectors["seed_hash"], "draws": draws}, tmp_path)
        # Every draw agrees; no rules made them, so nothing else is checked: not "fair".
        assert result.returncode == 3, (name, result.stdout, result.stderr)
        assert f"{len(draws)} draws re-derived" in result.stdout
        assert "NOT CHECKED: that the game's rules made these draws" in result.stdout
        assert result.stdout.splitlines()[-1].endswith("not called fair")


def test_the_checker_is_served_and_linked_from_the_fairness_page(tmp_path):
    doc = (PROJECT_ROOT / "docs" / "fairness.md").read_text()
    assert "/static/verify_match.py" in doc
    with LiveServer(tmp_path / "var") as live, live.http() as http:
        served = http.get("/static/verify_match.py")
    assert served.status_code == 200 and served.text == VERIFIER.read_text()


# --- a match of every registered game ------------------------------------------------------------
def store(db, match: dict) -> int:  # type: ignore[no-untyped-def]
    """Store a record (tests/engine/recorded.py: made as a room makes it, its chance steps and
    events' digest included) through the store, as a room would."""
    now = datetime.now(UTC)
    return save_match(db, record=MatchRecord(
        game=match["game"], room_code="TEST", options=match["options"], seed=match["seed"],
        seed_hash=match["seed_hash"], started_at=now - timedelta(minutes=5), ended_at=now,
        summary="", players=[PlayerResult(p["seat"], p["nickname"], p["score"], p["rank"],
                                          p["winner"]) for p in match["players"]],
        log=[Move.from_json(a) for a in match["actions"]], draws=match["draws"],
        events_digest=match["events_digest"]))


def served(live, match: dict) -> dict:  # type: ignore[no-untyped-def]
    match_id = store(live.app.state.db, match)
    with live.http() as http:
        return http.get(f"/api/matches/{match_id}").json()


@pytest.fixture(scope="module")
def live(tmp_path_factory):  # type: ignore[no-untyped-def]
    with LiveServer(tmp_path_factory.mktemp("verify") / "var", ping_interval_seconds=0.5,
                    ws_messages_per_second=100_000) as server:
        yield server


load_all()


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_the_checker_confirms_a_match_of_every_game(game, live, tmp_path):
    """Every registered game (new games are picked up from the registry): its stored match
    serves the chance steps recorded with it; alone the checker re-derives each one and calls
    nothing fair (exit 3); in a clone of the site it runs the whole check too: fair."""
    record = finished(game, f"verify-{game.id}")
    match = served(live, record)
    assert match["draws"] == record["draws"] and match["events_digest"] == record["events_digest"]
    result = verify_json(match, tmp_path)
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert f"{len(match['draws'])} draws re-derived" in result.stdout
    assert "fair" not in result.stdout.replace("not called fair", "")
    whole = verify_in_clone(match, tmp_path)
    assert whole.returncode == 0, (whole.stdout, whole.stderr)
    assert "ok: the whole check: every move's events are the ones recorded" in whole.stdout
    assert whole.stdout.splitlines()[-1].endswith("exactly as recorded")


def test_a_panika_match_played_over_websockets_checks_out_by_url(live, tmp_path):
    """A real room's match, recorded live: its chance steps named, fetched by the checker
    itself from the match page's address, and the whole check by ``python3 -m app verify``
    from the same address, from its JSON file, and by its id in the site's own database."""
    with ClientPool() as pool:
        _, clients = room_of(live, lambda c: pool(live, c), "panika", 3)
        start_panika(clients)
        PanikaTable(clients).play_to_end()
        saved = wait_frame(clients[0], lambda f: f["type"] == "room"
                           and f["save_state"] == "saved", timeout=10)
    address = f"{live.base_url}/matches/{saved['match_id']}"
    result = verify(address, tmp_path)
    assert result.returncode == 3, (result.stdout, result.stderr)
    with live.http() as http:
        match = http.get(f"/api/matches/{saved['match_id']}").json()
    assert [(d["name"], d["op"]) for d in match["draws"][:3]] == [
        ("deck", "shuffle"), ("burst_number", "randint"), ("first_player", "randbelow")]
    assert match["draws"][0]["args"] == [120] and len(match["events_digest"]) == 64
    piped = verify("-", tmp_path, stdin=json.dumps(match))
    assert piped.returncode == 3 and "draws re-derived" in piped.stdout
    whole = app_verify(address)
    assert whole.returncode == 0 and "fair" in whole.stdout, (whole.stdout, whole.stderr)
    (tmp_path / "room.json").write_text(json.dumps(match))
    assert app_verify(str(tmp_path / "room.json")).returncode == 0
    by_id = app_verify(str(saved["match_id"]), env={"VAR_DIR": str(live.settings.var_dir)})
    assert by_id.returncode == 0, (by_id.stdout, by_id.stderr)
    assert "ok: the outcome (scores, ranks, winners of 3 players) is the one recorded" \
        in by_id.stdout


def test_the_whole_check_s_exit_codes(live, tmp_path):
    """``python3 -m app verify``: 1 for a mismatch, 2 for what cannot be read, 3 for a match
    whose events were not recorded (nothing differs, but it is not called fair)."""
    tampered_file = tmp_path / "tampered.json"
    tampered_file.write_text(json.dumps(tampered("Panika with a burst draw missing")))
    result = app_verify(str(tampered_file))
    assert result.returncode == 1 and "MISMATCH: the record lists" in result.stdout
    assert app_verify(str(tmp_path / "absent.json")).returncode == 2
    old = {**finished(all_games()[0], "old"), "events_digest": None}
    (tmp_path / "old.json").write_text(json.dumps(old))
    result = app_verify(str(tmp_path / "old.json"))
    assert result.returncode == 3 and "NOT CHECKED: the record keeps no digest" in result.stdout


# --- tampering is caught -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def a_panika_match(live):  # type: ignore[no-untyped-def]
    return served(live, a_match("panika"))


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_no_tampered_match_is_called_fair_alone(case, tmp_path):
    """Each tampered match (tests/engine/recorded.py): alone the checker finds a mismatch
    (exit 1) or says what it could not check (exit 3); never "fair"."""
    result = verify_json(tampered(case), tmp_path)
    assert result.returncode in (1, 3), (case, result.stdout, result.stderr)
    assert not result.stdout.splitlines()[-1].endswith("exactly as recorded"), case
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("case", [
    "a counter tapped to 25 past its burst at 21", "a game name with a trailing space",
    "Panika with an extra burst draw", "Panika with a burst draw missing",
    "Panika's draws out of their order", "Pilze's sides drawn before its shuffle",
    "Pilze's reshuffle left out",
])
def test_in_a_clone_the_checker_finds_what_the_rules_refuse(case, tmp_path):
    """What alone it cannot tell, the whole check it runs in a clone of the site finds: every
    draw of these follows from the seed, yet the rules made other draws, or none at all."""
    alone = verify_json(tampered(case), tmp_path)
    assert alone.returncode == 3 and "the seed gives" not in alone.stdout, alone.stdout
    whole = verify_in_clone(tampered(case), tmp_path)
    assert whole.returncode == 1, (case, whole.stdout, whole.stderr)
    assert "MISMATCH: the whole check: " in whole.stdout


def test_a_changed_draw_is_reported(a_panika_match, tmp_path):
    match = json.loads(json.dumps(a_panika_match))
    randint = next(i for i, d in enumerate(match["draws"]) if d["op"] == "randint")
    match["draws"][randint]["result"] = 21 if match["draws"][randint]["result"] != 21 else 22
    match["draws"][0]["result"][0], match["draws"][0]["result"][1] = \
        match["draws"][0]["result"][1], match["draws"][0]["result"][0]
    result = verify_json(match, tmp_path)
    assert result.returncode == 1
    assert f'draw {randint} (randint [21, 30], "burst_number")' in result.stdout
    assert 'draw 0 (shuffle [120], "deck")' in result.stdout
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
    ({"op": "\u001b[2J\u202e", "args": [6], "result": 1}, 'draw 0 ("\\u001b[2J\\u202e" [6])'),
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
