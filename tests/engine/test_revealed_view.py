"""The revealed view (``Game.revealed_view``, docs/games/<game>.md "The revealed view"): once a
match is over, its replay may show everything. For every game, at every step of random legal
matches, the revealed view is the public view plus every secret the state holds (every seat's
hand, every hidden side, the burst number, the answer and claims of a search), while no seat's
``view`` carries any of it; and no frame a live room sends ever carries ``revealed``."""

from __future__ import annotations

import importlib
import random
from types import ModuleType
from typing import Any

import orjson
import pytest

import app.games
from app.engine import Move, SeededRng, registry
from app.realtime.room import protocol as p
from app.realtime.transport.connection import Connection
from tests.realtime.core_helpers import at, frames_to, room

app.games.load_all()
GAMES = sorted(g.id for g in registry.all_games())
STEPS = 300


def _declared(game_id: str) -> ModuleType:
    """The game's tests declare what its state keeps secret: tests/games/<id>/revealed.py, with
    ``secrets(state)`` and, where the revealed view shows them otherwise than as its
    ``revealed`` field, ``shown(view)``, and ``public(key, value)`` for a public field the
    revealed view draws more fully (docs/adding-a-game.md)."""
    try:
        return importlib.import_module(f"tests.games.{game_id}.revealed")
    except ModuleNotFoundError as missing:
        raise AssertionError(f"declare what {game_id}'s state keeps secret in "
                             f"tests/games/{game_id}/revealed.py") from missing


def secrets(game_id: str, state: Any) -> dict[str, Any]:
    result: dict[str, Any] = _declared(game_id).secrets(state)
    return result


def shown(game_id: str, revealed_view: dict[str, Any]) -> dict[str, Any]:
    show = getattr(_declared(game_id), "shown", lambda view: view["revealed"])
    result: dict[str, Any] = show(revealed_view)
    return result


def public(game_id: str, key: str, value: Any) -> Any:
    return getattr(_declared(game_id), "public", lambda key, value: value)(key, value)


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
        public_view = game.view(state, None)
        # The public view's fields, unchanged (where a game's revealed view draws a field more
        # fully, its ``public`` gives the public part back).
        for key, value in public_view.items():
            assert public(game_id, key, revealed[key]) == value, (game_id, key)
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
