"""Bad actions never hurt a room, in every game (docs/protocol.md: bad input gets a clear error
for that client and changes nothing): random action objects from random seats (and a spectator)
in a running match either are a legal move, applied (the version rises by one), or get exactly
one ``error`` to the sender (``malformed_action``, ``illegal_action``, ``not_your_turn`` or
``spectator``) with its ``ref``, nothing to anyone else, and the match unchanged."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import registry
from app.games import load_all
from app.realtime import protocol as p
from tests.realtime.core_helpers import at, frames_to, join, of_type, room

load_all()
GAMES = sorted(g.id for g in registry.all_games() if not g.open_table)
TYPES = ["play", "tap", "claim", "roll", "choose", "collect", "turn", "party", "steal", "swap",
         "timeout", "reveal", "settle", "next_round", "auto_tap", "close_last_card",
         "last_card", "new_round", "reset", "burst", "", "PLAY"]
KEYS = ["type", "cards", "card", "tile", "option", "target", "flip", "victim", "mushroom",
        "seat", "count", "x"]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 130), st.floats(-2, 200),
                    st.text(max_size=6), st.sampled_from(TYPES + ["A", "B", "C", "rest", "stay"]))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=4), st.dictionaries(
    st.sampled_from(KEYS), SCALARS, max_size=3))
ACTIONS = st.one_of(
    st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4),
    st.fixed_dictionaries({"type": st.sampled_from(TYPES)},
                          optional={k: VALUES for k in KEYS[1:]}),
)
REFUSED = {"malformed_action", "illegal_action", "not_your_turn", "spectator"}


@pytest.mark.parametrize("game_id", GAMES)
@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_random_action_is_applied_or_refused_to_its_sender_alone(game_id, data):
    game = registry.get_game(game_id)
    core = room(game_id)
    players = [join(core, f"P{i}")[0] for i in range(max(2, game.min_players))]
    core.frame(players[0], p.Start(type="start"), at(1))
    watcher, _ = join(core, "Spec", 2)
    everyone = [*players, watcher]
    assert core.match is not None
    for step in range(8):
        sender = data.draw(st.sampled_from(everyone))
        action = data.draw(ACTIONS)
        before = core.match.version if core.match else None
        effects = core.frame(sender, p.Action(type="action", action=action, ref=step),
                             at(3 + step))
        errors = of_type(effects, sender, "error")
        if errors:
            assert [(e["code"] in REFUSED, e.get("ref")) for e in errors] == [(True, step)]
            assert core.match is not None and core.match.version == before
            for other in everyone:
                if other is not sender:
                    assert frames_to(effects, other) == []
        else:
            assert core.match is not None and core.match.version == before + 1
