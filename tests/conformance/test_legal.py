"""The legal lists are exactly what the engine accepts (docs/protocol.md: the state frame's
``legal``; issue 25, item 3): in random reachable states of every game, every seat (and the
system) is offered a neighbourhood of candidate actions built from the game's action schema and
from every action any seat may send now (each list in every order, with an item left out, added
or doubled; every other value of each field: other tiles, cards, targets, mushrooms,
options...), and a candidate passes ``parse_action`` + ``validate`` exactly when it is one of the
listed actions (compared as the parsed action, so a field left at its default is the same
action). The one exception is the game's closing action, which the system sends when the room
closes (``Game.closing_action``) and which no list offers. And a match never gets stuck: while
it runs, somebody or a timer can act."""

from __future__ import annotations

import functools
import itertools
import json
import random
from typing import Any

import orjson
import pytest

from app.engine import EngineError, Game, Move

from .games import GAMES, game_id, matches

CHECK_EVERY = 4
CANDIDATES = 120
"""Candidates tried per state beyond the listed actions and their reorderings."""


@functools.cache
def _schemas(game: Game[Any, Any]) -> dict[str, dict[str, Any]]:
    """Each action type's JSON schema (``type`` -> its object schema): built once per game
    (pydantic builds it anew on every call, 10 ms each, once per state checked)."""
    schema = game.Action.model_json_schema()
    defs = schema.get("$defs", {})
    out: dict[str, dict[str, Any]] = {}
    for definition in defs.values():
        kind = definition.get("properties", {}).get("type", {}).get("const")
        if kind is not None:
            out[kind] = definition
    return out


def _field_values(prop: dict[str, Any], ints: list[int]) -> list[Any]:
    """Other values a field may take: every value of an enum, the integer pool within the
    field's bounds (and one just outside), ``null`` where the field is nullable."""
    values: list[Any] = []
    options = prop.get("anyOf", [prop])
    for option in options:
        if "enum" in option:
            values += option["enum"]
        elif option.get("type") == "integer":
            lo, hi = option.get("minimum", -1), option.get("maximum", max(ints, default=0) + 1)
            values += [v for v in ints if lo - 1 <= v <= hi + 1]
        elif option.get("type") == "null":
            values.append(None)
    return values


def _variants(action: dict[str, Any], schema: dict[str, Any], ints: list[int]) -> list[dict]:
    """The actions one change away from ``action``."""
    out: list[dict[str, Any]] = []
    props = schema.get("properties", {})
    required = set(schema.get("required", ()))
    for name, prop in props.items():
        if name == "type":
            continue
        value = action.get(name)
        if isinstance(value, list):
            lists = [list(p) for p in itertools.permutations(value)] if len(value) <= 4 else []
            lists += [value[:i] + value[i + 1:] for i in range(len(value))]
            lists += [value + [v] for v in ints] + [value + value[:1]]
            lists += [value[:i] + [v] + value[i + 1:] for i in range(len(value)) for v in ints]
            out += [{**action, name: lst} for lst in lists]
        else:
            out += [{**action, name: v} for v in _field_values(prop, ints)]
        if name not in required and name in action:
            out.append({k: v for k, v in action.items() if k != name})
    return out


def _ints(listed: list[dict[str, Any]], players: int) -> list[int]:
    """Integers worth trying: those in any listed action, their neighbours, and small ones."""
    seen: set[int] = set(range(players + 2))
    for action in listed:
        for value in action.values():
            items = value if isinstance(value, list) else [value]
            seen.update(v for v in items if isinstance(v, int) and not isinstance(v, bool))
    return sorted(seen | {v + 1 for v in seen} | {v - 1 for v in seen if v > 0})


def _key(action: dict[str, Any]) -> bytes:
    return orjson.dumps(action, option=orjson.OPT_SORT_KEYS)


def _unique(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``actions`` without repeats, in the order of their first occurrence."""
    return list({_key(a): a for a in actions}.values())


def _neighbourhood(game: Game[Any, Any], listed: list[dict[str, Any]], players: int,
                   picker: random.Random) -> list[dict[str, Any]]:
    """The candidates: the listed actions and their variants with the same items, and
    ``CANDIDATES`` drawn from the rest; each once (an action several seats may send, or a list
    with a repeated item reordered, gives the same candidate again: trying it twice in the same
    state from the same seat is the same check)."""
    schemas = _schemas(game)
    ints = _ints(listed, players)
    listed = _unique(listed)
    sure: list[dict[str, Any]] = list(listed)
    more: list[dict[str, Any]] = []
    for kind, schema in schemas.items():
        bare = {"type": kind}
        more.append(bare)
        more += _variants(bare, schema, ints)
    for action in listed:
        schema = schemas.get(action.get("type"), {})
        own = next((v for v in action.values() if isinstance(v, list)), None)
        own_items = sorted(own) if own is not None else None
        for variant in _variants(action, schema, ints):
            value = next((v for v in variant.values() if isinstance(v, list)), None)
            same_items = value is not None and sorted(value) == own_items
            (sure if same_items else more).append(variant)
        more += [{**action, "type": other} for other in schemas if other != action["type"]]
    unique = _unique(more)
    sampled = picker.sample(unique, min(CANDIDATES, len(unique)))
    return _unique(sure + sampled)


def _normal(game: Game[Any, Any], action: dict[str, Any]) -> str:
    return json.dumps(game.parse_action(action).model_dump(mode="json"), sort_keys=True)


def _parsed(game: Game[Any, Any], action: dict[str, Any]) -> Any:
    """The action as the game's model, or None when ``parse_action`` refuses it (then no seat
    may send it): parsed once per candidate, not once per seat."""
    try:
        return game.parse_action(action)
    except EngineError:
        return None


def _accepted(game: Game[Any, Any], state: Any, seat: int | None, parsed: Any,
              at_ms: int) -> bool:
    """Whether ``validate`` takes the parsed action (``_parsed``) from ``seat``."""
    if parsed is None:
        return False
    try:
        game.validate(state, Move(seat, parsed, at_ms))
    except EngineError:
        return False
    return True


def _check_state(game: Game[Any, Any], state: Any, players: int, at_ms: int,
                 picker: random.Random) -> None:
    seats: list[int | None] = [None, *range(players)]
    listed = {seat: game.legal_actions(state, seat) for seat in seats}
    every = [a for actions in listed.values() for a in actions]
    candidates = [(action, _parsed(game, action))
                  for action in _neighbourhood(game, every, players, picker)]
    closing = game.closing_action
    for seat in seats:
        legal = {_normal(game, a) for a in listed[seat]}
        if seat is None and closing is not None:
            # The system also sends the closing action when the room closes (the counter's
            # "new counter": docs/games/panika-counter.md), which no timer lists.
            legal.add(_normal(game, closing))
        for action, parsed in candidates:
            accepted = _accepted(game, state, seat, parsed, at_ms)
            if accepted:
                assert _normal(game, action) in legal, (
                    f"{game.id}: seat {seat} may send {action}, which legal_actions does not list "
                    f"({listed[seat]})")
        for action in listed[seat]:
            assert _accepted(game, state, seat, _parsed(game, action), at_ms), (
                f"{game.id}: seat {seat}'s listed {action} is refused")


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_legal_lists_exactly_the_actions_the_rules_accept(game: Game[Any, Any]) -> None:
    picker = random.Random(f"legal-{game.id}")
    checked = 0
    for match in matches(game, seeds=1):
        for step in match.steps(limit=120):
            if step.number % CHECK_EVERY == 0 and game.outcome(step.state) is None:
                _check_state(game, step.state, match.players, step.move.at_ms, picker)
                checked += 1
    assert checked


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_a_running_match_always_has_someone_who_can_act(game: Game[Any, Any]) -> None:
    ended = 0
    for match in matches(game, seeds=2, first=0.9):
        for step in match.steps(limit=1500):
            if game.outcome(step.state) is None:
                seats = [None, *range(match.players)]
                assert any(game.legal_actions(step.state, s) for s in seats), step.number
                assert {t.key for t in game.timers(step.state)} or any(
                    game.legal_actions(step.state, s) for s in range(match.players))
        ended += game.outcome(match.state) is not None
    assert ended, f"{game.id}: no random match reached its end"
