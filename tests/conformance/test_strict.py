"""Every game reads its actions strictly, as the frames around them are read (docs/protocol.md,
"Client to server"): where an action has an integer, ``"3"``, ``3.0`` and ``true`` are
``malformed_action``, never read as 3 or 1 (a card id, a tile, a target); a field the action
does not have is malformed too."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import Game, MalformedAction

from .games import GAMES, game_id, matches


def _integer_fields(action: dict[str, Any]) -> list[tuple[str, int | None]]:
    """(key, index) of each integer in the action: a field, or an item of a list field."""
    found: list[tuple[str, int | None]] = []
    for key, value in action.items():
        if type(value) is int:
            found.append((key, None))
        elif type(value) is list:
            found.extend((key, i) for i, item in enumerate(value) if type(item) is int)
    return found


def _with(action: dict[str, Any], key: str, index: int | None, value: object) -> dict[str, Any]:
    changed = {**action}
    if index is None:
        changed[key] = value
    else:
        changed[key] = [*action[key]]
        changed[key][index] = value
    return changed


def actions_seen(game: Game[Any, Any]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for match in matches(game, seeds=2):
        for step in match.steps(limit=200):
            for seat in [None, *range(match.players)]:
                for action in game.legal_actions(step.state, seat):
                    seen.setdefault(repr(action), action)
    return list(seen.values())


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_an_integer_sent_as_text_a_float_or_a_flag_is_malformed(game: Game[Any, Any]) -> None:
    actions = actions_seen(game)
    assert actions
    for action in actions:
        game.parse_action(action)  # as listed: accepted
        with pytest.raises(MalformedAction):
            game.parse_action({**action, "extra_field": 1})
        for key, index in _integer_fields(action):
            number = action[key] if index is None else action[key][index]
            for wrong in (str(number), float(number), number == 1):
                with pytest.raises(MalformedAction):
                    game.parse_action(_with(action, key, index, wrong))
