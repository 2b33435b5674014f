"""Every game's ``action`` frames read in one msgspec pass give what the pydantic path gives
(docs/decisions/0031-one-strict-decode-of-an-action.md): the fast path may leave a frame to the
slow one, never accept one the slow one refuses or read it otherwise, and the text it keeps is
the log's form of the action (``orjson`` of ``model_dump(mode="json")``) byte for byte.

The frames: every action the games list in random matches, as sent, reordered and spaced, with
a ``ref`` or not; each with one field changed to a wrong or borderline value (text, float, flag,
null, list, object, an integer past 64 bits), removed, added, or its tag changed; the frame's own
fields changed the same way; and random JSON in each field (hypothesis)."""

from __future__ import annotations

import json
import random
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import EngineError, Game
from app.engine.actioncodec import codec_for
from app.engine.interface import ValidAction
from app.realtime.room.protocol import Action, ProtocolError, parse_client_frame

from .games import GAMES, game_id, matches

ODD_VALUES: list[Any] = [
    None, True, False, 0, -1, 1, 3.0, 0.5, "3", "", [], [1], [1, 2, 3, 4], {}, {"a": 1},
    2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30, "accept", "play",
]


def listed_actions(game: Game[Any, Any]) -> list[dict[str, Any]]:
    """Actions the game lists (for every seat and the system) in a few random matches: up to
    eight of each type."""
    seen: dict[str, dict[str, Any]] = {}
    for match in list(matches(game, seeds=1))[::3]:
        for step in match.steps(limit=60):
            for seat in [None, *range(match.players)]:
                for action in game.legal_actions(step.state, seat):
                    seen.setdefault(repr(action), action)
    rng = random.Random(game.id)
    kinds: dict[str, list[dict[str, Any]]] = {}
    for action in seen.values():
        kinds.setdefault(action["type"], []).append(action)
    return [a for found in kinds.values() for a in rng.sample(found, min(8, len(found)))]


def outcome(game: Game[Any, Any], text: str) -> tuple[Any, ...]:
    """What the room ends up with for ``text`` on the slow path: the frame's error, or the
    action's model (or its ``malformed_action``) and the ``ref``."""
    try:
        message = parse_client_frame(text)
    except ProtocolError as exc:
        return ("error", exc.code, exc.message, exc.ref)
    if not isinstance(message, Action):
        return ("other", type(message).__name__)
    try:
        model = game.parse_action(message.action)
    except EngineError as exc:
        return ("malformed", str(exc), message.ref)
    return ("action", model, message.ref)


def check(game: Game[Any, Any], text: str) -> bool:
    """The fast path agrees with the slow one on ``text``; True when it read it itself."""
    slow = outcome(game, text)
    try:
        message = parse_client_frame(text, game)
    except ProtocolError as exc:
        assert slow == ("error", exc.code, exc.message, exc.ref), text
        return False
    if not isinstance(message, Action) or not isinstance(message.action, ValidAction):
        assert outcome(game, text) == slow, text  # left to the slow path: the same answer
        return False
    assert slow[0] == "action", (text, slow)
    model = message.action.model
    assert model == slow[1] and type(model) is type(slow[1]) and message.ref == slow[2], text
    assert model.model_dump() == slow[1].model_dump(), text
    assert message.action.text == orjson.dumps(slow[1].model_dump(mode="json")).decode(), text
    return True


def frames_of(action: dict[str, Any], rng: random.Random) -> list[str]:
    """``action`` in frames as clients may send it, and with one thing wrong or borderline."""
    frames = [
        json.dumps({"type": "action", "action": action}, separators=(",", ":")),
        json.dumps({"action": dict(reversed(list(action.items()))), "ref": 7, "type": "action"}),
        json.dumps({"type": "action", "action": action, "ref": None}, indent=2),
    ]
    for key in action:
        frames.append(json.dumps({"type": "action",
                                  "action": {k: v for k, v in action.items() if k != key}}))
        for value in rng.sample(ODD_VALUES, 8):
            frames.append(json.dumps({"type": "action", "action": {**action, key: value}}))
        if isinstance(action[key], list) and action[key]:
            for value in rng.sample(ODD_VALUES, 4):
                frames.append(json.dumps({"type": "action",
                                          "action": {**action, key: [value, *action[key][1:]]}}))
    frames.append(json.dumps({"type": "action", "action": {**action, "extra": 1}}))
    for value in rng.sample(ODD_VALUES, 8):
        frames.append(json.dumps({"type": "action", "action": action, "ref": value}))
        frames.append(json.dumps({"type": "action", "action": action, "other": value}))
    inner = json.dumps(action)
    frames += [
        '{"type":"action","action":%s,"action":{"type":"nope"}}' % inner,
        '{"type":"action","action":{"type":"nope"},"action":%s}' % inner,
        '{"type":"join","type":"action","action":%s}' % inner,
        '{"type":"action","action":%s,"type":"chat"}' % inner,
        '{"type":"action","action":%s,"ref":1,"ref":2}' % inner,
        '{"type":"action","action":%s} x' % inner,
        '{"type":"action","action":%s,}' % inner,
        '\ufeff{"type":"action","action":%s}' % inner,
        '{"type":"action","action":%s}' % inner.replace('"type"', '"t\\u0079pe"'),
        '[{"type":"action","action":%s}]' % inner,
    ]
    return frames


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_the_fast_path_reads_every_action_as_the_slow_path_does(game: Game[Any, Any]) -> None:
    actions = listed_actions(game)
    assert actions
    if codec_for(game.Action) is None:
        pytest.skip(f"{game.id}'s actions have no codec: they take the pydantic path only")
    rng = random.Random(game.id)
    for action in actions:  # each listed action is read by the fast path
        assert check(game, json.dumps({"type": "action", "action": action})), action
        for text in frames_of(action, rng):
            check(game, text)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                               max_size=3),
    max_leaves=6,
)


@pytest.mark.parametrize("game", GAMES, ids=game_id)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_values_in_any_field_read_the_same_both_ways(game: Game[Any, Any],
                                                            data: st.DataObject) -> None:
    codec = codec_for(game.Action)
    if codec is None:
        return
    model = data.draw(st.sampled_from(sorted(codec.models.values(), key=lambda m: m.__name__)))
    action: dict[str, Any] = {"type": model.model_fields["type"].annotation.__args__[0]}
    for name in list(model.model_fields)[1:]:
        if data.draw(st.booleans()):
            action[name] = data.draw(JSON)
    ref = data.draw(st.none() | st.integers(-(2**65), 2**65) | JSON)
    check(game, json.dumps({"type": "action", "action": action, "ref": ref}))


def test_a_game_without_a_codec_still_reads_its_actions() -> None:
    """A room of a game whose action model has no codec: the slow path, as before."""
    from pydantic import RootModel

    from app.engine import ActionModel

    class Odd(ActionModel):
        type: str
        weight: float

    class OddAction(RootModel[Odd]):
        pass

    class OddGame:
        Action = OddAction

    assert codec_for(OddAction) is None
    message = parse_client_frame('{"type":"action","action":{"type":"x","weight":1}}',
                                 OddGame())  # type: ignore[arg-type]
    assert isinstance(message, Action) and message.action == {"type": "x", "weight": 1}
