"""Every event a game emits has its wording in every language (docs/architecture.md,
"Languages"): random matches collect the events; each has an ``event.<game>.<message id>``
entry in every catalog, every placeholder of it is in the event's data, the wording leaves no
placeholder unfilled, and the English wording says exactly what the engine's own English text
says (so the two cannot drift apart)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.engine import Event, Game
from app.i18n import LANGUAGES, catalog
from app.i18n.events import event_key, event_params, event_text, placeholders

from .games import GAMES, game_id, matches

LEFTOVER = re.compile(r"\{(?!seat:\d+\})[^}]*\}")


def events_of(game: Game[Any, Any]) -> list[Event]:
    found: list[Event] = []
    for first in (0.5, 0.97):  # mostly the first listed action too: drives a counter to burst
        for match in matches(game, seeds=3, first=first):
            for step in match.steps(limit=500):
                found += [e for e in step.events if e.text]
    return found


@pytest.fixture(scope="module", params=GAMES, ids=game_id)
def game_events(request: pytest.FixtureRequest) -> tuple[Game[Any, Any], list[Event]]:
    return request.param, events_of(request.param)


def test_every_event_has_a_wording_in_every_language(
        game_events: tuple[Game[Any, Any], list[Event]]) -> None:
    game, events = game_events
    assert events, game.id
    for event in events:
        key = event_key(game.id, event.kind, event.data)
        params = event_params(event.seat, event.data)
        for lang in LANGUAGES:
            assert key in catalog(lang), (lang, key, event.text)
            missing = placeholders(catalog(lang)[key]) - {k for k, v in params.items()
                                                            if v is not None}
            assert not missing, (lang, key, missing, event.data)
            you = catalog(lang).get(f"{key}.you")
            if you is not None:
                assert placeholders(you) <= set(params), (lang, key)
            text = event_text(lang, game.id, event.kind, event.seat, event.data, "")
            assert text and not LEFTOVER.search(text), (lang, key, text)


def test_the_english_wording_is_the_engines_text(
        game_events: tuple[Game[Any, Any], list[Event]]) -> None:
    game, events = game_events
    for event in events:
        english = event_text("en", game.id, event.kind, event.seat, event.data, "")
        assert english == event.text, (event.kind, event.data)
