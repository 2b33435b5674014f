"""A match proves itself: the whole check (app/engine/proof.py) replays a record through its
game's rules and compares every chance step, event and the outcome
(docs/decisions/0053-chance-is-data-recorded-with-the-match.md)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from app.config import PROJECT_ROOT
from app.engine import Move, all_games, get_game
from app.engine.proof import check_match, counted
from app.engine.rng import RecordingRng
from tests.engine.recorded import TAMPERED, a_match, finished, tampered


def _verifier():  # type: ignore[no-untyped-def]
    """static/verify_match.py as a module (its stream, read without running it)."""
    spec = importlib.util.spec_from_file_location("verify_match",
                                                  PROJECT_ROOT / "static" / "verify_match.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_every_game_s_finished_match_passes_the_whole_check(game):
    """Every registered game (the test-only one too): its record, as a room makes it, replays
    through its rules with every chance step named and equal, its events and its outcome."""
    match = finished(game, f"proof-{game.id}")
    assert match["draws"], f"{game.id} drew nothing"
    assert all(isinstance(d["name"], str) and d["name"] for d in match["draws"]), \
        f"{game.id} draws a chance step it does not name"
    verdict = check_match(match)
    assert verdict.fair, (verdict.problems, verdict.unchecked)
    assert any(line.startswith(counted(len(match["draws"]), "chance step") + " re-derived")
               for line in verdict.checked)
    assert any("events" in line for line in verdict.checked)
    assert any("outcome" in line for line in verdict.checked)


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_the_whole_check_rejects_every_tampered_match(case):
    verdict = check_match(tampered(case))
    assert verdict.problems, case
    assert not verdict.fair


def test_what_the_whole_check_says_of_each_new_tampering():
    def said(case: str) -> str:
        return "\n".join(check_match(tampered(case)).problems)

    assert re.search(r"move 21 .* refused by panika_counter's rules: \"the counter burst",
                     said("a counter tapped to 25 past its burst at 21"))
    assert 'no game "panika " on this site' in said("a game name with a trailing space")
    assert re.search(r"the record lists \d+ chance steps; the rules draw \d+",
                     said("Panika with an extra burst draw"))
    assert re.search(r"the record lists \d+ chance steps; the rules draw \d+",
                     said("Panika with a burst draw missing"))
    assert 'chance step 1: the record says {"name": "first_player"' \
        in said("Panika's draws out of their order")


def test_changed_events_or_outcome_are_mismatches():
    match = a_match("panik_pilze")
    verdict = check_match({**match, "events_digest": "0" * 64})
    assert any("are not the ones recorded" in p for p in verdict.problems)
    match["players"][0]["score"] += 1
    verdict = check_match(match)
    assert any(p.startswith("seat 0: the record says score") for p in verdict.problems)


def test_a_changed_ending_is_a_mismatch_and_the_true_one_is_checked():
    match = a_match("panik_pilze")
    assert any(c.startswith("the ending (") for c in check_match(match).checked)
    verdict = check_match({**match, "ending": "turn_limit"})
    assert any(p.startswith("the record says the match ended") for p in verdict.problems)
    verdict = check_match({**match, "details": {"n": 999}})
    assert any(p.startswith("the record says the match ended") for p in verdict.problems)


def test_what_the_record_says_is_reported_escaped():
    """A move the rules refuse, its text crafted to write to a terminal: reported as JSON text."""
    match = a_match("panika")
    match["actions"].append({"index": len(match["actions"]), "seat": 0, "at_ms": 1,
                             "action": {"type": "\u001b[2J\u202e"}})
    said = "\n".join(check_match(match).problems)
    assert "refused by panika's rules" in said
    assert "\x1b" not in said and "\u202e" not in said and "\\u001b[2J" in said


def test_a_record_without_events_is_not_called_fair():
    """A match stored before its events were recorded: nothing differs, but it is unchecked."""
    verdict = check_match({**a_match("panique"), "events_digest": None})
    assert not verdict.problems and not verdict.fair
    assert "events were not compared" in verdict.unchecked[0]


def _game_docs(game_id: str) -> Path | None:
    """docs/games/<game>.md for the site's games; a test-only game's own README."""
    for path in (PROJECT_ROOT / "docs" / "games" / f"{game_id.replace('_', '-')}.md",
                 PROJECT_ROOT / "tests" / "game_packages" / game_id / "README.md"):
        if path.exists():
            return path
    return None


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_each_game_s_docs_list_its_chance_steps(game):
    """docs/games/<game>.md names every chance step the game's match draws (a game that lives
    only in the tests documents them in its own folder)."""
    docs = _game_docs(game.id)
    if docs is None:
        pytest.skip(f"{game.id} has no page in docs/games/")
    text = docs.read_text()
    section = text[text.index("## Chance steps"):]
    for name in {d["name"] for d in finished(game, f"docs-{game.id}")["draws"]}:
        assert f"`{name}`" in section, (game.id, name)


@hypothesis_settings(max_examples=12, deadline=None)
@given(seed=st.binary(min_size=1, max_size=32),
       game_id=st.sampled_from(sorted(g.id for g in all_games())),
       moves=st.integers(0, 30))
def test_named_steps_re_derive_from_any_seed(seed, game_id, moves):
    """For any seed, every chance step a game's set-up and first moves draw has a name and is
    what the stand-alone verifier's stream re-derives from the seed alone."""
    game = get_game(game_id)
    assert game is not None
    rng = RecordingRng(seed)
    players = min(game.player_counts())
    state = game.setup(players, game.parse_options({}), rng)
    legal = getattr(game, "legal_actions", None)
    for step in range(moves):
        if game.outcome(state) is not None:
            break
        choices = [(None, t.action) for t in game.timers(state)]
        if legal is not None:
            choices += [(s, a) for s in range(players) for a in legal(state, s)]
        if not choices:
            break
        seat, action = choices[(step * 7 + seed[0]) % len(choices)]
        game.step(state, Move(seat, game.parse_action(action), 100 * step, 0), rng)
    verifier = _verifier()
    notes: list[str] = []
    assert verifier.rederive_all(seed, rng.draws, notes) == []
    assert all(isinstance(d["name"], str) and d["name"] for d in rng.draws)
