"""Bots that play Panik Pilze over real WebSockets, each deciding only from its own client's
latest ``state`` frame; after every move the table waits until every client has the new version
(so the room's state is the one that produced the frames a test checks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.live import Client
from tests.realtime.helpers import marks, wait_frame

Frame = dict[str, Any]
MUSHROOMS = ("schlaubi", "chef", "knuddel", "panik", "gifti")


def bot_action(view: Frame, moves: int) -> dict[str, Any]:
    """A simple player: every fifth turn swaps some cards; otherwise plays the first playable
    card (a party for the type most shown, a steal from the first opponent stack there is)."""
    hand = view["hand"]
    display = view["display"]
    me = view["you"]
    if moves % 5 == 4:
        return {"type": "swap", "cards": [c["id"] for c in hand[: 1 + moves % 3]]}
    for card in hand:
        if card["kind"] == "collect":
            flip = [] if card["action"] == "draw" else [d["id"] for d in display[: card["count"]]]
            return {"type": "collect", "card": card["id"], "flip": flip}
        if card["kind"] == "party":
            best = max(MUSHROOMS, key=lambda m: sum(d["up"] == m for d in display))
            return {"type": "party", "card": card["id"], "mushroom": best}
        if view["legal"]["steal"]:
            for p in view["players"]:
                for m, n in p["basket"].items():
                    if p["seat"] != me and n:
                        return {"type": "steal", "card": card["id"], "victim": p["seat"],
                                "mushroom": m}
    return {"type": "swap", "cards": [hand[0]["id"]]}


class PilzeTable:
    def __init__(self, clients: list[Client], timeout: float = 5.0) -> None:
        self.by_seat = {c.seat: c for c in clients if c.seat is not None}
        self.clients = clients
        self.timeout = timeout
        self.moves = 0

    def latest(self, seat: int) -> Frame:
        state = self.by_seat[seat].latest_state()
        assert state is not None
        return state

    def step(self) -> bool:
        view = self.latest(next(iter(self.by_seat)))["view"]
        if view["phase"] == "over":
            return False
        seat = view["turn"]
        mine = self.latest(seat)
        action = bot_action(mine["view"], self.moves)
        version = mine["version"]
        since = marks(self.clients)
        actor = self.by_seat[seat]
        actor.action(action)
        for c, s in zip(self.clients, since, strict=True):
            frame = wait_frame(
                c, lambda f: (f["type"] == "state" and f["version"] > version)
                or (c is actor and f["type"] == "error"), s, self.timeout,
            )
            assert frame["type"] == "state", f"seat {seat} {action} refused: {frame}"
        self.moves += 1
        return True

    def play_to_end(self, max_moves: int = 1000,
                    on_step: Callable[[], None] | None = None) -> int:
        while self.step():
            if on_step is not None:
                on_step()
            assert self.moves < max_moves, "the match did not end"
        return self.moves
