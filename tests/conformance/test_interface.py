"""Every game has what the engine interface asks (app/engine/interface.py): a title, a pitch and
player counts; typed options (strict shape, values read in pydantic's lax mode, as
docs/protocol.md says); and actions whose senders it names."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.engine import Game, GameOptions, MalformedAction

from .games import GAMES, game_id

_FLAG_FORMS = {True: (True, 1, "true", "1", "yes", "on"), False: (False, 0, "false", "0", "no", "off")}


def action_types(game: Game[Any, Any]) -> set[str]:
    """The ``type`` of every action the game's model accepts (its discriminator's values)."""
    schema = game.Action.model_json_schema()
    mapping = schema.get("discriminator", {}).get("mapping")
    if mapping:
        return set(mapping)
    return {branch["properties"]["type"]["const"] for branch in schema["$defs"].values()
            if "type" in branch.get("properties", {})}


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_the_game_names_itself_and_its_player_counts(game: Game[Any, Any]) -> None:
    assert game.id.isidentifier() and game.id == game.id.lower()
    assert game.title and game.pitch
    assert 1 <= game.min_players <= game.max_players
    assert list(game.player_counts()) == list(range(game.min_players, game.max_players + 1))


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_options_are_typed_and_their_defaults_valid(game: Game[Any, Any]) -> None:
    assert issubclass(game.Options, GameOptions)
    assert game.Options.model_json_schema()["type"] == "object"
    assert game.parse_options({}) == game.parse_options(None)
    assert isinstance(game.parse_options({}), game.Options)
    with pytest.raises(MalformedAction):
        game.parse_options({"no_such_option": 1})


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_options_are_read_in_lax_mode_as_the_protocol_says(game: Game[Any, Any]) -> None:
    """Options, unlike actions, are converted when they read as their type (docs/protocol.md,
    "Client to server"): an integer from text or a whole float, a flag from its usual forms;
    a fraction or null is refused."""
    defaults = game.parse_options({}).model_dump()
    for name, field in game.Options.model_json_schema().get("properties", {}).items():
        default = defaults[name]
        if field.get("type") == "boolean":
            for value, forms in _FLAG_FORMS.items():
                for form in forms:
                    assert getattr(game.parse_options({name: form}), name) is value, (name, form)
        elif field.get("type") == "integer":
            for form in (str(default), float(default)):
                assert getattr(game.parse_options({name: form}), name) == default, (name, form)
            for bad in (default + 0.5, None):
                with pytest.raises(MalformedAction):
                    game.parse_options({name: bad})


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_unknown_actions_are_malformed(game: Game[Any, Any]) -> None:
    for raw in ({"type": "no_such_action"}, "not an object", {"no": "type"}, []):
        with pytest.raises(MalformedAction):
            game.parse_action(raw)


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_the_senders_it_names_are_actions_it_has(game: Game[Any, Any]) -> None:
    types = action_types(game)
    assert types, game.id
    assert game.system_actions <= types and game.shared_actions <= types
    assert not game.system_actions & game.shared_actions
    assert types - game.system_actions, "a game has actions for its players"


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_the_other_hooks_are_well_formed(game: Game[Any, Any]) -> None:
    orjson.dumps(game.rules_data())
    if game.closing_action is not None:
        assert game.open_table, "only a match that starts with its room needs a closing action"
        assert game.parse_action(game.closing_action).type in (
            game.system_actions | game.shared_actions)
