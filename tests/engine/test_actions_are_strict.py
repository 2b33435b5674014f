"""Every game reads its actions strictly, as the frames around them are read (docs/protocol.md,
"Client to server"): where an action has an integer, ``"3"``, ``3.0`` and ``true`` are
``malformed_action``, never read as 3 or 1 (a card id, a tile, a target)."""

from __future__ import annotations

import random

import pytest

import app.games
from app.engine import MalformedAction, Move, SeededRng, registry

app.games.load_all()
GAMES = sorted(g.id for g in registry.all_games())


def _integer_fields(action: dict) -> list[tuple[str, int | None]]:
    """(key, index) of each integer in the action: a field, or an item of a list field."""
    found: list[tuple[str, int | None]] = []
    for key, value in action.items():
        if type(value) is int:
            found.append((key, None))
        elif type(value) is list:
            found.extend((key, i) for i, item in enumerate(value) if type(item) is int)
    return found


def _with(action: dict, key: str, index: int | None, value: object) -> dict:
    changed = {**action}
    if index is None:
        changed[key] = value
    else:
        changed[key] = [*action[key]]
        changed[key][index] = value
    return changed


def _actions_seen(game_id: str, match: int, steps: int = 300) -> list[dict]:
    """Legal actions met over a random match (every seat's and the system's)."""
    game = registry.get_game(game_id)
    picker = random.Random(f"strict-{game_id}-{match}")
    players = game.max_players
    rng = SeededRng(f"strict-{game_id}-{match}".encode())
    state = game.setup(players, game.parse_options({}), rng)
    seen: list[dict] = []
    for step in range(steps):
        if game.outcome(state) is not None:
            break
        choices = [(seat, a) for seat in (None, *range(players))
                   for a in game.legal_actions(state, seat)]
        seen.extend(a for _, a in choices)
        people = [c for c in choices if c[0] is not None]
        seat, action = picker.choice(people or choices)
        game.step(state, Move(seat, game.parse_action(action), 1000 * (step + 1)), rng)
    return seen


@pytest.mark.parametrize("game_id", GAMES)
def test_an_integer_sent_as_text_a_float_or_a_flag_is_malformed(game_id):
    game = registry.get_game(game_id)
    checked = 0
    actions = [a for match in range(8) for a in _actions_seen(game_id, match)]
    for action in {repr(a): a for a in actions}.values():
        game.parse_action(action)  # as listed: accepted
        for key, index in _integer_fields(action):
            number = action[key] if index is None else action[key][index]
            for wrong in (str(number), float(number), number == 1):
                with pytest.raises(MalformedAction):
                    game.parse_action(_with(action, key, index, wrong))
                checked += 1
    if game_id != "panika_counter":  # the counter's actions carry no number
        assert checked > 0, f"{game_id}: no action with an integer was met"


_FLAG_FORMS = {True: (True, 1, "true", "1", "yes", "on"), False: (False, 0, "false", "0", "no", "off")}


@pytest.mark.parametrize("game_id", GAMES)
def test_options_are_read_in_lax_mode_as_the_protocol_says(game_id):
    """Options, unlike actions, are converted when they read as their type (docs/protocol.md,
    "Client to server"): an integer from text or a whole float, a flag from its usual forms;
    a fraction or null is refused."""
    game = registry.get_game(game_id)
    defaults = game.parse_options({}).model_dump()
    checked = 0
    for name, field in game.Options.model_json_schema()["properties"].items():
        default = defaults[name]
        if field.get("type") == "boolean":
            for value, forms in _FLAG_FORMS.items():
                for form in forms:
                    assert getattr(game.parse_options({name: form}), name) is value, (name, form)
            checked += 1
        elif field.get("type") == "integer":
            for form in (str(default), float(default)):
                assert getattr(game.parse_options({name: form}), name) == default, (name, form)
            for bad in (default + 0.5, None):
                with pytest.raises(MalformedAction):
                    game.parse_options({name: bad})
            checked += 1
    assert checked or not defaults
