"""Every game with computer players (``app.bots.has_bots``): normal bots in every seat finish a
match of every player count, choosing only from the legal lists they are sent (the arena plays
them as the room would: app/bots/arena.py); and each of its levels says in the game's own texts,
in every language of the site, what it means where the host picks it (docs/decisions/0059)."""

from __future__ import annotations

from typing import Any

import pytest

from app.bots import DIFFICULTIES, bot_levels, has_bots, level_text_key, make_bot
from app.bots.arena import play_match
from app.engine import Game, get_package
from app.i18n import LANGUAGES
from app.i18n.packages import package_texts

from .games import GAMES, game_id, player_counts


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_bots_finish_a_match_of_every_player_count(game: Game[Any, Any]) -> None:
    if not has_bots(game.id):
        assert game.open_table, f"{game.id} has no computer players"
        return
    for players in player_counts(game):
        bots = [make_bot(game.id, seat, "normal", f"bots-{game.id}-{seat}")
                for seat in range(players)]
        result = play_match(game, bots, f"bots-{game.id}-{players}".encode(), max_moves=20_000)
        assert result.outcome is not None, (game.id, players, result.moves)
        assert result.rejected == [], result.rejected[:3]


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_every_level_is_described_in_every_language_by_its_game(game: Game[Any, Any]) -> None:
    levels = bot_levels(game.id)
    if not has_bots(game.id):
        assert levels == ()
        return
    assert "normal" in levels and set(levels) <= set(DIFFICULTIES), levels
    package = get_package(game.id)
    assert package is not None
    for lang in LANGUAGES:
        texts = package_texts(package, lang)
        described = {level: texts.get(level_text_key(game.id, level)) for level in levels}
        assert all(isinstance(text, str) and text.strip() for text in described.values()), (
            f"{game.id}: levels without a {lang} description: {described}")
        assert len(set(described.values())) == len(levels), (game.id, lang, described)
