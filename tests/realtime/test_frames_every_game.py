"""State frames in every game: over whole random matches, every frame's view, legal actions,
active seats and timers are the engine's of that moment, for every seat and the table view, and
every state frame is whole (docs/protocol.md, "Server to client"). The room's core is driven
directly (no socket)."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from app.engine import get_game, registry
from app.games import load_all
from app.realtime.room import protocol as p
from app.realtime.transport.connection import Connection
from app.realtime.room.core import RoomCore
from app.realtime.room.effects import Effect, Send, SendEach
from app.realtime.room.tokens import SeatTokens
from tests.realtime.core_helpers import at

load_all()
GAMES = sorted(g.id for g in registry.all_games())
def states_to(effects: list[Effect], conn: Connection) -> list[dict[str, Any]]:
    out = []
    for effect in effects:
        if isinstance(effect, Send) and conn in effect.conns:
            texts = [effect.text]
        elif isinstance(effect, SendEach):
            texts = [text for c, text in effect.frames if c is conn]
        else:
            continue
        out.extend(f for f in map(orjson.loads, texts) if f["type"] == "state")
    return out


class Seat:
    """One seat's (or the table's) connection and the last state frame it was sent."""

    def __init__(self) -> None:
        self.conn = Connection()
        self.latest: dict[str, Any] | None = None
        self.frames = 0

    def check(self, effects: list[Effect]) -> None:
        for frame in states_to(effects, self.conn):
            assert "patch" not in frame and "base" not in frame  # always whole
            self.latest = frame
            self.frames += 1


@pytest.mark.parametrize("game_id", GAMES)
def test_state_frames_show_the_engines_view_legal_actions_and_timers(game_id):
    game = get_game(game_id)
    players = min(max(3, game.min_players), game.max_players)
    core = RoomCore(code="ABCD", game=game, public=False, tokens=SeatTokens("k"), now=at(0))
    pairs: list[Seat] = []
    table = Seat()
    for i in range(players):
        pair = Seat()
        pairs.append(pair)
        joined = core.frame(pair.conn, p.Join(type="join", nickname=f"P{i}"), at(0))
        for seat in [*pairs, table]:
            seat.check(joined)
    table.check(core.frame(table.conn, p.Join(type="join", watch=True), at(0)))
    everyone = [*pairs, table]

    def step(effects: list[Effect]) -> None:
        for pair in everyone:
            pair.check(effects)
        match = core.state.match
        if core.state.status != "playing" or match is None:
            return
        # The frames show the game's timers now: keys, labels and seats (app/realtime/room/timers.py).
        expected = sorted((t.key, t.label, list(t.seats)) for t in game.timers(match.state)
                          if t.visible)
        active = list(game.active_seats(match.state))
        for pair in everyone:
            frame = pair.latest
            if frame and (frame["match"], frame["version"]) == (core.state.match_number, match.version):
                where = (game_id, match.version, frame["seat"])
                assert sorted((t["key"], t["label"], t["seats"]) for t in frame["timers"]) \
                    == expected, where
                # ...and its seat's view, legal actions and the seats waited on, as the engine
                # gives them (a seat's own view only; the table's is the public one).
                seat = frame["seat"]
                assert frame["view"] == orjson.loads(orjson.dumps(game.view(match.state, seat))), \
                    where
                assert frame.get("legal") == (None if seat is None else orjson.loads(
                    orjson.dumps(game.legal_actions(match.state, seat)))), where
                assert frame["active"] == active, where

    picker = random.Random(game_id)
    clock = 1.0
    step(core.frame(pairs[0].conn, p.Start(type="start"), at(clock)))
    for _ in range(400):
        clock += 0.25
        if core.state.status != "playing":  # over: the host asks for another (a new match number)
            step(core.frame(pairs[0].conn, p.Rematch(type="rematch"), at(clock)))
            continue
        movers = [pair for pair in pairs if pair.latest and pair.latest.get("legal")]
        if movers:
            pair = picker.choice(movers)
            action = picker.choice(pair.latest["legal"])
            step(core.frame(pair.conn, p.Action(type="action", action=action), at(clock)))
        else:  # nobody may act: the next timer fires
            clock += 120
            step(core.timers_due(at(clock)))
    assert all(pair.frames > 5 for pair in everyone), [pair.frames for pair in everyone]
