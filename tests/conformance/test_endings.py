"""Outcomes name their ending (docs/decisions/0058-outcomes-name-their-ending.md): every game
declares its endings (``Game.Ending``, a ``StrEnum``), each has its sentence in every language
the site speaks (``ending.<id>.<value>`` in the game's own texts), and every finished match's
outcome names one of them, with details that are JSON and fill the sentence."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

import orjson
import pytest

from app.api.finished.story import name_seats
from app.engine import Game, get_package
from app.i18n import LANGUAGES
from app.i18n.endings import ending_text
from app.i18n.packages import package_texts

from .games import GAMES, RandomMatch, game_id
from .test_bound import played_to_the_end

_LEFT_OPEN = re.compile(r"\{[^}]*\}")


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_every_game_declares_its_endings(game: Game[Any, Any]) -> None:
    ending = type(game).__dict__.get("Ending") or game.Ending
    assert isinstance(ending, type) and issubclass(ending, StrEnum), game.id
    assert list(ending), game.id
    assert all(member.value.isidentifier() for member in ending), game.id


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_each_ending_has_a_sentence_in_every_language(game: Game[Any, Any]) -> None:
    package = get_package(game.id)
    assert package is not None and package.folder is not None
    for lang in LANGUAGES:
        texts = package_texts(package, lang)
        missing = [e.value for e in game.Ending if f"ending.{game.id}.{e.value}" not in texts]
        assert not missing, (game.id, lang, missing)


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_every_finished_match_names_one_of_its_endings(game: Game[Any, Any]) -> None:
    match = played_to_the_end(RandomMatch(game, game.min_players, {}, f"{game.id}-ending"))
    outcome = game.outcome(match.state)
    assert outcome is not None
    assert outcome.ending in list(game.Ending), (game.id, outcome.ending)
    assert orjson.loads(orjson.dumps(outcome.details)) == outcome.details
    names = {s: f"P{s}" for s in range(game.min_players)}
    for lang in LANGUAGES:
        text = ending_text(lang, game.id, str(outcome.ending), outcome.winners, outcome.details)
        assert text, (game.id, lang)
        said = name_seats(text, names)
        assert not _LEFT_OPEN.search(said), (game.id, lang, said)
        assert all(names[w] in said for w in outcome.winners), (game.id, lang, said)
