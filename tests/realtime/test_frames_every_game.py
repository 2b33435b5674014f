"""Delta state frames in every game: a client that joined with ``"deltas": true`` rebuilds,
patch by patch, exactly the whole frames a client of the same seat without deltas is sent, over
whole random matches, the table view included (docs/protocol.md, "Delta state frames"); and
every frame's view, legal actions, active seats and timers are the engine's of that moment. The room's core is driven directly
(no socket): each seat has two connections, one of each kind."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from app.engine import get_game, registry
from app.games import load_all
from app.realtime import protocol as p
from app.realtime.connection import Connection
from app.realtime.core import RoomCore
from app.realtime.delta import apply
from app.realtime.effects import Effect, Send, SendEach
from app.realtime.tokens import SeatTokens
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


class Pair:
    """One seat's (or the table's) two connections: the delta one's frames rebuilt."""

    def __init__(self) -> None:
        self.delta, self.whole = Connection(), Connection()
        self.held: dict[str, Any] | None = None
        self.latest: dict[str, Any] | None = None
        self.patches = 0

    def absorb(self, effects: list[Effect]) -> None:
        """Frames sent while the two connections join (one joined before the other)."""
        for frame in states_to(effects, self.delta):
            assert "patch" not in frame  # the first state frame after a join is whole
            self.held = frame
        whole = states_to(effects, self.whole)
        if whole:
            self.latest = whole[-1]

    def check(self, effects: list[Effect]) -> None:
        rebuilt = []
        for frame in states_to(effects, self.delta):
            if "patch" in frame:
                assert self.held is not None
                assert frame["base"] == [self.held["match"], self.held["version"]]
                self.held = apply(self.held, frame["patch"])
                self.patches += 1
            else:
                self.held = frame
            rebuilt.append(self.held)
        whole = states_to(effects, self.whole)
        assert rebuilt == whole
        if whole:
            self.latest = whole[-1]


@pytest.mark.parametrize("game_id", GAMES)
def test_delta_frames_rebuild_the_whole_frames_which_show_the_engines_view_and_timers(game_id):
    game = get_game(game_id)
    players = min(max(3, game.min_players), game.max_players)
    core = RoomCore(code="ABCD", game=game, public=False, tokens=SeatTokens("k"), now=at(0))
    pairs: list[Pair] = []
    table = Pair()

    def joined(effects: list[Effect]) -> list[Effect]:
        for pair in [*pairs, table]:
            pair.absorb(effects)
        return effects

    for i in range(players):
        pair = Pair()
        pairs.append(pair)
        effects = joined(core.frame(pair.delta, p.Join(type="join", nickname=f"P{i}",
                                                         deltas=True), at(0)))
        (welcome,) = [orjson.loads(e.text) for e in effects if isinstance(e, Send)
                      and pair.delta in e.conns and e.text.startswith('{"type":"welcome"')]
        joined(core.frame(pair.whole, p.Join(type="join", token=welcome["token"]), at(0)))
    joined(core.frame(table.delta, p.Join(type="join", watch=True, deltas=True), at(0)))
    joined(core.frame(table.whole, p.Join(type="join", watch=True), at(0)))
    everyone = [*pairs, table]

    def step(effects: list[Effect]) -> None:
        for pair in everyone:
            pair.check(effects)
        match = core.match
        if core.status != "playing" or match is None:
            return
        # The frames show the game's timers now: keys, labels and seats (app/realtime/timers.py).
        expected = sorted((t.key, t.label, list(t.seats)) for t in game.timers(match.state)
                          if t.visible)
        active = list(game.active_seats(match.state))
        for pair in everyone:
            frame = pair.latest
            if frame and (frame["match"], frame["version"]) == (core.match_number, match.version):
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
    step(core.frame(pairs[0].delta, p.Start(type="start"), at(clock)))
    for _ in range(400):
        clock += 0.25
        if core.status != "playing":  # over: the host asks for another (a new match number)
            step(core.frame(pairs[0].delta, p.Rematch(type="rematch"), at(clock)))
            continue
        movers = [pair for pair in pairs if pair.latest and pair.latest.get("legal")]
        if movers:
            pair = picker.choice(movers)
            action = picker.choice(pair.latest["legal"])
            conn = picker.choice((pair.delta, pair.whole))
            step(core.frame(conn, p.Action(type="action", action=action), at(clock)))
        else:  # nobody may act: the next timer fires
            clock += 120
            step(core.timers_due(at(clock)))
    assert all(pair.patches > 5 for pair in everyone), [pair.patches for pair in everyone]
