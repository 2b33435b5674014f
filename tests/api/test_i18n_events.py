"""The game events in the reader's language (app/i18n/events.py): the catalog's wording with the
event's data, the reader's own ``.you`` form, the engine's English text as the fallback, and the
match page in German: its move list for a whole match of every game, and its summary naming the
winners."""

from __future__ import annotations

from html import unescape

import random

import pytest

import app.games
from app.api.finished.story import match_story, summary_text
from app.engine import Event, Move, SeededRng, registry
from app.engine.replay import replay
from app.i18n import catalog
from app.i18n.events import event_key, event_text, message_id, placeholders
from tests.finished_matches import finished_match

app.games.load_all()


def test_a_wording_takes_counts_seats_lists_and_words_from_the_data():
    penalty = Event("{seat:1} takes 2 penalty cards", 1, "penalty", {"cards": 2, "n": 2})
    assert event_text("de", "panika", penalty.kind, penalty.seat, penalty.data, penalty.text) == (
        "{seat:1} bekommt 2 Strafkarten")
    assert event_text("de", "panika", "penalty", 1, {"cards": 1, "n": 1}, "") == (
        "{seat:1} bekommt 1 Strafkarte")
    steal = {"card": 3, "mushroom": "chef", "victim": 0}
    assert event_text("de", "panik_pilze", "steal", 2, steal, "") == (
        "{seat:2} stiehlt {seat:0} einen Chef")
    tie = {"tied": [0, 1, 2], "top": 6, "msg": "tie"}
    assert event_text("en", "panique", "order", None, tie, "") == (
        "{seat:0}, {seat:1} and {seat:2} tie with 6: they roll again")
    dice = {"dice": {"lab": "blue", "arrow": "white", "colour": "red", "shape": "crawling",
                     "pattern": "dotted", "step": 1}}
    assert event_text("de", "panic_lab", "reveal", None, dice, "") == (
        "Gesucht: die rote gepunktete Krabbel-Amöbe, entkommen aus dem blauen Labor "
        "(weißer Pfeil).")
    assert event_text("de", "panika", "play", 0, {"msg": "play_mixed_taps", "card": "3",
                                                  "card2": "tap", "n": 3}, "") == (
        "{seat:0} spielt: 3 und Tipp! (3 Tipps)")


def test_an_unknown_message_falls_back_to_the_engines_text():
    assert event_text("de", "panika", "no_such_kind", 0, {}, "{seat:0} did a thing") == (
        "{seat:0} did a thing")
    assert message_id("move", {"msg": "slime"}) == "slime"
    assert message_id("move", None) == "move"


def test_the_readers_own_form_has_no_other_seat_and_exists_in_every_language():
    for lang in ("en", "de"):
        for key, wording in catalog(lang).items():
            if key.startswith("event.") and key.endswith(".you"):
                assert key[:-4] in catalog(lang), key
                assert "seat" not in placeholders(wording), key


def _played_match(game_id: str, players: int, moves: int) -> dict:
    game = registry.get_game(game_id)
    seed = bytes(range(32))
    rng = SeededRng(seed)
    state = game.setup(players, game.parse_options({}), rng)
    picker = random.Random(7)
    actions = []
    for step in range(moves):
        if game.outcome(state) is not None:
            break
        choices = [(s, a) for s in range(players) for a in game.legal_actions(state, s)]
        choices = choices or [(None, a) for a in game.legal_actions(state, None)]
        seat, action = picker.choice(choices)
        move = Move(seat, game.parse_action(action), 500 * (step + 1))
        game.step(state, move, rng)
        actions.append({"seat": seat, "action": action, "at_ms": move.at_ms, "rtt_ms": 0})
    return {"id": 1, "game": game_id, "seed": seed.hex(), "options": {}, "actions": actions,
            "players": [{"seat": s, "nickname": n} for s, n in enumerate(["Anna", "Ben", "Cem"])]}


def test_the_match_page_tells_the_moves_in_german():
    match = _played_match("panika", 3, 80)
    german = " / ".join(line.text for line in match_story(match, "de"))
    english = " / ".join(line.text for line in match_story(match, "en"))
    assert "spielt" in german and "{seat:" not in german and "{" not in german, german
    assert "plays" in english and "spielt" not in english
    assert "plays" not in german
    lines = match_story(match, "de")
    assert any(line.who in {"Anna", "Ben", "Cem"} and line.text.startswith("spielt")
               for line in lines), german


def test_every_rules_page_is_german_for_a_german_reader(server):
    """Every game's rules page in the reader's language (its package's rules/de.html): a
    German reader gets German rules, with no part left in English, and the game's German pitch;
    an English reader the English page, without the German one's words."""
    with server.http() as http:
        for game_id in GAMES:
            german = http.get(f"/games/{game_id}/rules", headers={"Accept-Language": "de"}).text
            article = german[german.index('<article'):]
            assert 'lang="en"' not in article, game_id
            assert catalog("de")[f"game.{game_id}.pitch"][:30] in unescape(article), game_id
            assert "Zurück zu den Spielen" in article, game_id
            english = http.get(f"/games/{game_id}/rules", headers={"Accept-Language": "en"}).text
            assert "Zurück zu den Spielen" not in english and "Kurz gefasst" not in english, game_id


GAMES = sorted(g.id for g in registry.all_games())


@pytest.mark.parametrize("game_id", GAMES)
def test_every_move_of_a_whole_match_of_every_game_is_told_from_the_german_catalog(game_id):
    """A finished match of each game (bots, or the counter's taps): every move's line on the
    match page comes from the German catalog (its events' wordings, or ``game.<id>.move.<type>`` for a
    move whose events say nothing), never from the engine's English text."""
    seed = bytes([len(game_id)]) * 32
    players, log, _ = finished_match(game_id, seed)
    game = registry.get_game(game_id)
    done = replay(game, players, {}, seed, log)
    for move, events in zip(log, done.events, strict=True):
        said = [e for e in events if e.text]
        keys = [event_key(game_id, e.kind, e.data) for e in said] or [
            f"game.{game_id}.move.{move.action['type']}"]
        for key in keys:
            assert key in catalog("de"), (game_id, key)
    match = {"id": 1, "game": game_id, "seed": seed.hex(), "options": {},
             "actions": [m.to_json() for m in log],
             "players": [{"seat": s, "nickname": f"P{s}"} for s in range(players)]}
    lines = match_story(match, "de")
    assert len(lines) == len(log) and all(line.text for line in lines)
    assert not [line.text for line in lines if "{" in line.text], game_id


def test_a_match_sentence_is_its_endings_in_the_readers_language():
    players = [{"seat": 0, "nickname": "Ann", "winner": False},
               {"seat": 1, "nickname": "Bob", "winner": True},
               {"seat": 2, "nickname": "Cem", "winner": True}]
    match = {"game": "panik_pilze", "ending": "pile_empty", "details": {"n": 11},
             "players": players}
    assert summary_text(match, "en") == "The pile is empty: Bob and Cem win with 11 points"
    assert summary_text(match, "de") == (
        "Der Stapel ist leer: Bob und Cem gewinnen mit 11 Punkten")
    players[2]["winner"] = False
    assert summary_text({**match, "details": {"n": 1}}, "en") == (
        "The pile is empty: Bob wins with 1 point")
    assert summary_text(match, "de") == "Der Stapel ist leer: Bob gewinnt mit 11 Punkten"
    players[2]["winner"] = True


def test_a_match_stored_before_endings_keeps_its_english_and_names_the_winners_else():
    players = [{"seat": 0, "nickname": "Ann", "winner": False},
               {"seat": 1, "nickname": "Bob", "winner": True},
               {"seat": 2, "nickname": "Cem", "winner": True}]
    match = {"game": "panik_pilze", "ending": None, "summary": "Bob wins with 11 points",
             "players": players}
    assert summary_text(match, "en") == "Bob wins with 11 points"
    assert summary_text(match, "de") == "Bob und Cem gewinnen!"
    players[2]["winner"] = False
    assert summary_text(match, "de") == "Bob gewinnt!"
    players[1]["winner"] = False  # the counter: no winners
    assert summary_text({**match, "summary": "Counter of 2 rounds"}, "de") == (
        catalog("de")["match.no_winners"])
