"""Every game's options speak plainly in every language (decision 0060): the room page's form
takes each option's label and help from the game's own catalogs (``game.<id>.option.<key>`` and
``.hint``, app/games/<id>/texts/), never from the schema's English; an option marked ``"expert":
true`` in the schema is folded under "More options"; no label uses the engineers' words."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import Game, all_packages
from app.i18n import LANGUAGES
from app.i18n.packages import package_texts
from tests.conformance.games import GAMES, game_id

JARGON = ("latency", "latenz", "ping", "rtt", "arbitration")
"""Words a group of friends would not use for an option (the options' labels and help)."""


def _texts(game: Game[Any, Any], lang: str) -> dict[str, Any]:
    (package,) = [p for p in all_packages() if p.game.id == game.id]
    return package_texts(package, lang)


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_every_option_has_a_plain_label_and_help_in_every_language(game: Game[Any, Any]) -> None:
    properties = game.Options.model_json_schema().get("properties", {})
    for lang in LANGUAGES:
        texts = _texts(game, lang)
        for key, prop in properties.items():
            label = texts.get(f"game.{game.id}.option.{key}")
            hint = texts.get(f"game.{game.id}.option.{key}.hint")
            assert label and hint, f"{game.id}: option {key} has no label or help in {lang}"
            words = f"{label} {hint}".lower().replace("-", " ").split()
            assert not [w for w in words if w.strip(".,:;()") in JARGON
                        or w.startswith(JARGON[:2])], (game.id, lang, label, hint)
            assert prop.get("expert", False) in (True, False), (game.id, key)
