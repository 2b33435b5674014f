"""``legal_actions`` is exactly what the server accepts (docs/protocol.md, the state frame's
``legal``; issue 25, item 3), for every registered game: in random reachable states, every seat
(and the system) is offered a neighbourhood of candidate actions built from the game's action
schema and from every action any seat may send now (each list of cards in every order, with a
card left out, added or doubled; every other value of each field: other tiles, cards, targets,
mushrooms, options...), and a candidate passes ``parse_action`` + ``validate`` exactly when it
is one of the listed actions (compared as the parsed action, so a field left at its default is
the same action)."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

import app.games
from app.engine import EngineError, Game, Move, SeededRng, registry

app.games.load_all()
GAMES = sorted(g.id for g in registry.all_games())
STEPS = 250
CHECK_EVERY = 3
CANDIDATES = 160
"""Candidates tried per state beyond the listed actions and their reorderings."""


def _schemas(game: Game) -> dict[str, dict[str, Any]]:
    """Each action type's JSON schema (``type`` -> its object schema)."""
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


def _neighbourhood(game: Game, listed: list[dict[str, Any]], players: int,
                   picker: random.Random) -> list[dict[str, Any]]:
    schemas = _schemas(game)
    ints = _ints(listed, players)
    sure: list[dict[str, Any]] = list(listed)
    more: list[dict[str, Any]] = []
    for kind, schema in schemas.items():
        bare = {"type": kind}
        more.append(bare)
        more += _variants(bare, schema, ints)
    for action in listed:
        schema = schemas.get(action.get("type"), {})
        for variant in _variants(action, schema, ints):
            value = next((v for v in variant.values() if isinstance(v, list)), None)
            same_items = value is not None and sorted(value) == sorted(
                next(v for v in action.values() if isinstance(v, list)))
            (sure if same_items else more).append(variant)
        more += [{**action, "type": other} for other in schemas if other != action["type"]]
    unique = {json.dumps(a, sort_keys=True): a for a in more}
    sampled = picker.sample(list(unique.values()), min(CANDIDATES, len(unique)))
    return sure + sampled


def _normal(game: Game, action: dict[str, Any]) -> str:
    return json.dumps(game.parse_action(action).model_dump(mode="json"), sort_keys=True)


def _accepted(game: Game, state: Any, seat: int | None, action: dict[str, Any],
              at_ms: int) -> bool:
    try:
        game.validate(state, Move(seat, game.parse_action(action), at_ms))
    except EngineError:
        return False
    return True


def _check_state(game: Game, state: Any, players: int, at_ms: int,
                 picker: random.Random) -> None:
    seats: list[int | None] = [None, *range(players)]
    listed = {seat: game.legal_actions(state, seat) for seat in seats}
    every = [a for actions in listed.values() for a in actions]
    candidates = _neighbourhood(game, every, players, picker)
    closing = getattr(game, "closing_action", None)
    for seat in seats:
        legal = {_normal(game, a) for a in listed[seat]}
        if seat is None and closing is not None:
            # The system also sends the closing action when the room closes (the counter's
            # "new counter": docs/games/panika-counter.md), which no timer lists.
            legal.add(_normal(game, closing))
        for action in candidates:
            accepted = _accepted(game, state, seat, action, at_ms)
            if accepted:
                assert _normal(game, action) in legal, (
                    f"{game.id}: seat {seat} may send {action}, which legal_actions does not list "
                    f"({listed[seat]})")
        for action in listed[seat]:
            assert _accepted(game, state, seat, action, at_ms), (
                f"{game.id}: seat {seat}'s listed {action} is refused")


@pytest.mark.parametrize("game_id", GAMES)
def test_legal_lists_exactly_the_actions_the_rules_accept(game_id: str) -> None:
    """Item 3 of issue 25: in random reachable states of every game (its fewest and most
    players), a neighbourhood of candidate actions is accepted exactly where it is listed."""
    game = registry.get_game(game_id)
    picker = random.Random(f"legal-{game_id}")
    for players in sorted({game.min_players, min(game.max_players, 5), game.max_players}):
        rng = SeededRng(f"legal-{game_id}-{players}".encode())
        state = game.setup(players, game.parse_options({}), rng)
        for step in range(STEPS):
            if game.outcome(state) is not None:
                break
            at_ms = 1000 * (step + 1)
            if step % CHECK_EVERY == 0:
                _check_state(game, state, players, at_ms, picker)
            choices = [(seat, action) for seat in [None, *range(players)]
                       for action in game.legal_actions(state, seat)]
            people = [c for c in choices if c[0] is not None]
            seat, action = picker.choice(people or choices)
            game.step(state, Move(seat, game.parse_action(action), at_ms), rng)
