"""Every game over the real WebSocket: a room made over HTTP, players who join with nicknames, the host's start, a match
played from the ``legal`` lists the frames carry, to its end (an open table's ``new_counter``
when it is offered), the record saved, and the stored match replayable with its draws
(``GET /api/matches/{id}``). Every action sent is accepted (no ``error`` frame), each player's
state frames are their own seat's, and the table view's carry no legal list."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.bots import has_bots, make_bot
from app.engine import Game
from app.engine.proof import check_match
from tests.clock import wait_until
from tests.live import Client, ClientPool, LiveServer

from .games import GAMES, game_id, option_sets

MOVES = 1000
OPEN_TABLE_MOVES = 40
"""An open table (the counter) ends its match with its closing action after this many moves."""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    var: Path = tmp_path_factory.mktemp("conformance") / "var"
    with LiveServer(var, ping_interval_seconds=0.5, ws_messages_per_second=100_000,
                    bot_think_scale=0.01) as server:
        yield server


def _caught_up(players: list[Client], match: int, version: int) -> None:
    """Every player holds the state frame of ``version`` (or a later one)."""
    for client in players:
        held = client.latest_state()
        if held is not None and (held["match"], held["version"]) >= (match, version):
            continue
        client.wait_for("state", lambda f: (f["match"], f["version"]) >= (match, version),
                        timeout=20)


def _play(game: Game[Any, Any], players: list[Client]) -> None:
    """The people play from their frames' ``legal`` lists (as the game's computer player would
    choose, else at random) until the match ends (nothing offered and no timer running), or for
    an open table until its closing action ended it."""
    picker = random.Random(f"ws-{game.id}")
    deciders = {id(c): make_bot(game.id, i, "hard", f"ws-{game.id}-{i}") if has_bots(game.id)
                else None for i, c in enumerate(players)}
    host = players[0]
    for number in range(MOVES):
        state = host.latest_state()
        assert state is not None
        if state["match"] > 1:
            return  # an open table started its next match: the last one ended
        _caught_up(players, state["match"], state["version"])
        able = [c for c in players if (c.latest_state() or {}).get("legal")]
        if not able and not state["active"] and not state["timers"]:
            return  # over
        if not able:  # a timer's or a bot's move comes
            _caught_up(players, state["match"], state["version"] + 1)
            continue
        client = picker.choice(able)
        frame = client.latest_state()
        legal = frame["legal"]
        decider = deciders[id(client)]
        decision = decider.decide(frame) if decider is not None else None
        if game.closing_action in legal and number >= OPEN_TABLE_MOVES:
            action = game.closing_action
        else:
            action = decision.action if decision is not None else picker.choice(legal)
        client.action(action, ref=frame["version"])
        _caught_up(players, state["match"], state["version"] + 1)
    raise AssertionError(f"{game.id}: the match did not end in {MOVES} moves")


def _only_stale_refusals(client: Client) -> None:
    """An action may be refused only when the match moved on (a bot or a timer played) between
    the frame it was chosen from (its ``ref`` is that frame's version) and its arrival: a state
    frame of a later version reached the client before the error did."""
    newest = -1
    for frame in client.frames:
        if frame["type"] == "state":
            newest = max(newest, frame["version"])
        elif frame["type"] == "error":
            assert frame.get("ref") is not None and newest > frame["ref"], frame


@pytest.mark.parametrize("game", GAMES, ids=game_id)
def test_a_match_over_the_websocket_to_its_stored_record(game: Game[Any, Any],
                                                         live: LiveServer) -> None:
    created = live.create_room(game.id, "P0", options=option_sets(game)[-1])
    code = created["code"]
    with ClientPool() as pool:
        host = pool(live, code)
        host.join(token=created["token"])
        players = [host]
        if game.open_table:
            players.append(pool(live, code))
            players[-1].join("P1")
        else:  # a computer player fills the table: it plays quickly, and well
            for _ in range(max(2, game.min_players) - 1):
                host.send({"type": "add_bot", "difficulty": "hard"})
                host.wait_for("room", lambda f: sum(m.get("bot") is not None
                                                    for m in f["members"]) >= 1)
        table = pool(live, code)
        table.join(watch=True)
        if not game.open_table:
            host.send({"type": "start"})
        host.wait_for("state")
        _play(game, players)
        for client in [*players, table]:
            client.drain(0.2)
        for client in players:
            _only_stale_refusals(client)
        assert not [f for f in table.frames if f["type"] == "error"]
        for client in players:
            seats = {f["seat"] for f in client.frames if f["type"] == "state"}
            assert seats == {client.seat}, (client.seat, seats)
        assert all("legal" not in f for f in table.frames if f["type"] == "state")
        (seed_hash,) = {f["result"]["seed_hash"] for f in host.frames
                        if f["type"] == "room" and f["status"] == "finished"}
    # The stored match, known by its seed's hash (no answer names its room: docs/protocol.md,
    # "HTTP API"); the writer stores it a moment after the end.
    stored: list[dict[str, Any]] = []

    def saved() -> bool:
        with live.http() as http:
            for listed in http.get("/api/matches", params={"game": game.id}).json():
                match = http.get(f"/api/matches/{listed['id']}").json()
                if match["seed_hash"] == seed_hash:
                    stored.append(match)
                    return True
        return False

    wait_until(saved, what=f"{game.id}: the finished match stored")
    assert stored[0]["game"] == game.id and stored[0]["draws"] is not None, \
        stored[0].get("draws_error")
    # The match proves itself: its chance steps, recorded live, each named; its events and
    # outcome as the rules make them again (the whole check, app/engine/proof.py).
    assert all(isinstance(d["name"], str) and d["name"] for d in stored[0]["draws"])
    verdict = check_match(stored[0])
    assert verdict.fair, (verdict.problems, verdict.unchecked)
