"""Every event an engine can emit has its wording in every catalog (docs/architecture.md,
"Languages"): random legal games of every registered game (driven by ``legal_actions``, players
and timers alike) collect the events; each has an ``event.<game>.<message id>`` entry in English
and German, every placeholder of that entry is in the event's data, and the English wording
says exactly what the engine's own English text says (so the two cannot drift apart)."""

from __future__ import annotations

import random
import re

import pytest

import app.games
from app.engine import IllegalAction, Move, SeededRng, registry
from app.i18n import LANGUAGES, catalog
from app.i18n.events import event_key, event_params, event_text, placeholders

app.games.load_all()
GAMES = sorted(g.id for g in registry.all_games())
SEEDS = 6
STEPS = 500
OPTIONS: dict[str, list[dict]] = {
    "panic_lab": [{"latency_fair": True, "target_tokens": 2}, {"latency_fair": False}],
}
FIRST = {"panika_counter": 0.97}
"""How often a player sends the first action listed (the counter's tap: enough to burst it)."""
REWORDED = {("panik_pilze", "collect")}
"""Messages whose catalog wording says it differently from the engine's text on purpose: a
collect card is named by its type and action ("Chef, draw 2") in every language."""
LEFTOVER = re.compile(r"\{(?!seat:\d+\})[^}]*\}")


def _events(game_id: str) -> list:
    game = registry.get_game(game_id)
    events = []
    for options in OPTIONS.get(game_id, [{}]):
        for players in sorted({game.min_players, 2, game.max_players} & set(
                range(game.min_players, game.max_players + 1))):
            for seed in range(SEEDS):
                picker = random.Random(f"{game_id}-{players}-{seed}")
                rng = SeededRng(f"{game_id}-{players}-{seed}".encode())
                state = game.setup(players, game.parse_options(options), rng)
                for step in range(STEPS):
                    if game.outcome(state) is not None:
                        break
                    people = [(s, a) for s in range(players) for a in game.legal_actions(state, s)]
                    timers = [(None, a) for a in game.legal_actions(state, None)]
                    timers += [(None, t.action) for t in game.timers(state)]
                    # Mostly players (half the time the first action listed, which drives a
                    # counter to its burst), sometimes the timers (turn limits, the windows).
                    if people and (not timers or picker.random() < 0.85):
                        firsts = [c for c in people if c[1] == game.legal_actions(state, c[0])[0]]
                        first = FIRST.get(game_id, 0.5)
                        seat, action = picker.choice(firsts if picker.random() < first else people)
                    else:
                        seat, action = picker.choice(timers)
                    move = Move(seat, game.parse_action(action), 1000 * (step + 1),
                                picker.choice([0, 40, 400]))
                    try:
                        events += game.step(state, move, rng)
                    except IllegalAction:
                        continue  # a claim that the clock made too late: the round is settled
    return [e for e in events if e.text]


@pytest.fixture(scope="module", params=GAMES)
def game_events(request):
    return request.param, _events(request.param)


def test_every_event_has_a_wording_in_every_language(game_events):
    game_id, events = game_events
    assert events, game_id
    for event in events:
        key = event_key(game_id, event.kind, event.data)
        params = event_params(event.seat, event.data)
        for lang in LANGUAGES:
            assert key in catalog(lang), (lang, key, event.text)
            missing = placeholders(catalog(lang)[key]) - {k for k, v in params.items()
                                                            if v is not None}
            assert not missing, (lang, key, missing, event.data)
            you = catalog(lang).get(f"{key}.you")
            if you is not None:
                assert placeholders(you) <= set(params), (lang, key)
            text = event_text(lang, game_id, event.kind, event.seat, event.data, "")
            assert text and not LEFTOVER.search(text), (lang, key, text)


def test_the_english_wording_is_the_engines_text(game_events):
    game_id, events = game_events
    for event in events:
        english = event_text("en", game_id, event.kind, event.seat, event.data, "")
        if (game_id, event_key(game_id, event.kind, event.data).split(".")[-1]) in REWORDED:
            continue
        assert english == event.text, (event.kind, event.data)


def test_the_collection_reaches_the_games_main_events():
    seen = {g: {event_key(g, e.kind, e.data) for e in _events(g)} for g in ("panika",)}
    for msg in ("play_one", "penalty", "burst", "round", "win"):
        assert f"event.panika.{msg}" in seen["panika"], msg
