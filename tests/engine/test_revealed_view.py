"""The revealed view (``Game.revealed_view``, docs/games/<game>.md "The revealed view"): once a
match is over, its replay may show everything. For every game, at every step of random legal
matches, the revealed view is the public view plus every secret the state holds (every seat's
hand, every hidden side, the burst number, the answer and claims of a search), while no seat's
``view`` carries any of it; and no frame a live room sends ever carries ``revealed``."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import orjson
import pytest

import app.games
from app.engine import Move, SeededRng, registry
from app.games.panik_pilze.cards import ACTION_JSON, other_side
from app.games.panika.cards import CARD_JSON
from app.realtime.room import protocol as p
from app.realtime.transport.connection import Connection
from tests.realtime.core_helpers import at, frames_to, room

app.games.load_all()
GAMES = sorted(g.id for g in registry.all_games())
STEPS = 300


SECRETS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "panika": lambda state: {
        "burst_at": state.burst_at,
        "hands": [[CARD_JSON[c] for c in hand] for hand in state.hands],
        "piles": [[CARD_JSON[c] for c in pile] for pile in state.piles]},
    "panika_counter": lambda state: {"burst_at": state.burst_at},
    "panic_lab": lambda state: {
        "answer": None if state.solution is None else state.solution.answer,
        "claims": [claim.tile for claim in state.claims]},
    "panik_pilze": lambda state: {
        "hands": [[ACTION_JSON[c] for c in hand] for hand in state.hands],
        "pile": [{"up": state.up[c], "down": other_side(c, state.up[c])} for c in state.pile],
        "action_pile": [ACTION_JSON[c] for c in state.action_pile],
        "downs": [other_side(c, state.up[c]) for c in state.display]},
    "panique": lambda state: {},
}
"""What each game's state keeps secret, read from the state itself (docs/games/<game>.md): a
new game declares its own here (docs/adding-a-game.md)."""

SHOWN: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "panic_lab": lambda view: {"answer": view["revealed"]["answer"],
                               "claims": [c["tile"] for c in view["revealed"]["claims"]]},
    "panik_pilze": lambda view: {**view["revealed"], "downs": [d["down"] for d in view["display"]]},
}
"""The same secrets as a game's revealed view shows them, where that is not its ``revealed``
field as it is."""


def secrets(game_id: str, state: Any) -> dict[str, Any]:
    assert game_id in SECRETS, f"declare what {game_id}'s state keeps secret in SECRETS"
    return SECRETS[game_id](state)


def shown(game_id: str, revealed_view: dict[str, Any]) -> dict[str, Any]:
    return SHOWN.get(game_id, lambda view: view["revealed"])(revealed_view)


def random_steps(game_id: str, players: int, seed: str):
    """Each state of a random legal match (players mostly, the timers sometimes)."""
    game = registry.get_game(game_id)
    picker = random.Random(seed)
    rng = SeededRng(seed.encode())
    state = game.setup(players, game.parse_options({}), rng)
    for step in range(STEPS):
        yield state
        if game.outcome(state) is not None:
            return
        # (never a "new counter", which ends the counter at once)
        people = [(s, a) for s in range(players) for a in game.legal_actions(state, s)
                  if a["type"] != "new_counter"]
        system = [(None, a) for a in game.legal_actions(state, None)]
        choices = people if people and (not system or picker.random() < 0.85) else system
        if not choices:
            return
        seat, action = picker.choice(choices)
        game.step(state, Move(seat, game.parse_action(action), 1000 * (step + 1),
                              picker.choice([0, 40])), rng)


@pytest.mark.parametrize("game_id", GAMES)
def test_the_revealed_view_is_the_public_view_with_every_secret_of_the_state(game_id):
    game = registry.get_game(game_id)
    players = game.max_players if game.open_table else min(4, game.max_players)
    steps = 0
    for state in random_steps(game_id, players, f"revealed-{game_id}"):
        steps += 1
        revealed = game.revealed_view(state)
        public = game.view(state, None)
        # The public view's fields, unchanged (Panik Pilze's display adds each card's down side).
        for key, value in public.items():
            if game_id == "panik_pilze" and key == "display":
                assert [{"id": d["id"], "up": d["up"]} for d in revealed[key]] == value
            else:
                assert revealed[key] == value, (game_id, key)
        assert shown(game_id, revealed) == secrets(game_id, state), (game_id, steps)
        # ...which no seat's own view carries.
        for seat in [None, *range(players)]:
            assert "revealed" not in game.view(state, seat)
    assert steps > 10, steps


def test_no_seat_sees_another_seats_hand_which_the_revealed_view_shows():
    game = registry.get_game("panika")
    for state in random_steps("panika", 3, "revealed-hands"):
        hands = game.revealed_view(state)["revealed"]["hands"]
        assert len(hands) == 3
        for seat in range(3):
            assert game.view(state, seat)["hand"] == hands[seat]


@pytest.mark.parametrize("game_id", GAMES)
def test_no_frame_of_a_live_room_carries_the_revealed_view(game_id):
    """A whole room, driven through its core: every frame sent to the seats and to a table view,
    over a match and a rematch, never has a ``revealed`` field."""
    game = registry.get_game(game_id)
    core = room(game_id)
    players = 1 if game.open_table else min(3, game.max_players)
    conns = [Connection() for _ in range(players)]
    table = Connection()
    texts: list[str] = []
    latest: dict[Connection, dict[str, Any]] = {}

    def collect(effects) -> None:  # type: ignore[no-untyped-def]
        """Keep every frame's text, and each connection's latest state frame."""
        for conn in [*conns, table]:
            for frame in frames_to(effects, conn):
                texts.append(orjson.dumps(frame).decode())
                if frame["type"] == "state":
                    latest[conn] = frame

    for i, conn in enumerate(conns):
        collect(core.frame(conn, p.Join(type="join", nickname=f"P{i}"), at(0)))
    collect(core.frame(table, p.Join(type="join", watch=True), at(0)))
    if not game.open_table:
        collect(core.frame(conns[0], p.Start(type="start"), at(1)))
    picker = random.Random(game_id)
    clock = 1.0
    for _ in range(250):
        clock += 0.3
        if core.state.status == "finished":
            collect(core.frame(conns[0], p.Rematch(type="rematch"), at(clock)))
            continue
        movers = [(c, f) for c, f in latest.items() if f.get("legal")]
        if movers:
            conn, frame = picker.choice(movers)
            collect(core.frame(conn, p.Action(type="action", action=picker.choice(
                frame["legal"])), at(clock)))
        else:
            clock += 120
            collect(core.timers_due(at(clock)))
    moves = sum(1 for text in texts if '"type":"state"' in text and '"move":' in text)
    assert moves > 50, moves
    assert not [text for text in texts if '"revealed"' in text]
