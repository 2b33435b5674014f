"""Helpers for the realtime tests: waiting on frames by index, rooms of joined clients, and a
Panika bot table that drives a whole match over real WebSockets."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.live import Client, LiveServer

Frame = dict[str, Any]


def shorten_timers(monkeypatch: Any, game_id: str, seconds: float,
                   only: Callable[[Any], bool] | None = None) -> None:
    """Every timer of ``game_id`` (or those ``only`` picks, asked as each timer is made) lasts
    ``seconds`` at most, for a test whose server runs in its own process (``LiveServer``) and
    only needs a timer to fire: the engine's ``timers`` wrapped for the test (the games'
    options keep the rules' minimums)."""
    import dataclasses

    from app.engine import get_game

    game = get_game(game_id)
    original = type(game).timers

    def timers(state: Any) -> list[Any]:
        return [dataclasses.replace(t, seconds=min(t.seconds, seconds))
                if only is None or only(t) else t for t in original(game, state)]

    monkeypatch.setattr(game, "timers", timers)


def wait_frame(
    client: Client, pred: Callable[[Frame], bool], since: int = 0, timeout: float = 15.0
) -> Frame:
    """The first frame at index >= ``since`` of ``client.frames`` matching ``pred`` (receiving
    more as needed). Unlike ``Client.wait_for`` this never skips frames of other kinds. The
    timeout only bounds a broken run: a busy 2-core machine has taken more than 5 s to relay a
    frame between two nodes."""
    i = since
    deadline = time.monotonic() + timeout
    while True:
        while i < len(client.frames):
            frame = client.frames[i]
            i += 1
            if pred(frame):
                return frame
        left = deadline - time.monotonic()
        if left <= 0:
            recent = client.frames[since:][-5:]
            raise TimeoutError(f"no matching frame in {timeout} s; the last ones: {recent}")
        try:
            client.recv(timeout=left)
        except TimeoutError:
            pass


def of_type(kind: str, **fields: Any) -> Callable[[Frame], bool]:
    return lambda f: f.get("type") == kind and all(f.get(k) == v for k, v in fields.items())


def wait_type(client: Client, kind: str, since: int = 0, timeout: float = 5.0, **fields: Any):
    return wait_frame(client, of_type(kind, **fields), since, timeout)


def extra_frames(client: Client, since: int, quiet: float = 0.3) -> list[Frame]:
    """Frames that arrived at index >= ``since`` (after ``quiet`` seconds of reading), leaving
    out the server's periodic pings."""
    client.drain(quiet)
    return [f for f in client.frames[since:] if f["type"] != "ping"]


def marks(clients: list[Client]) -> list[int]:
    return [len(c.frames) for c in clients]


def room_of(
    server: LiveServer, open_client: Callable[[str], Client], game: str, players: int,
    names: tuple[str, ...] = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay"), **body: Any,
) -> tuple[str, list[Client]]:
    """A room of ``game`` with ``players`` joined members (the host first, by its token)."""
    created = server.create_room(game, names[0], **body)
    code = created["code"]
    host = open_client(code)
    host.join(token=created["token"])
    clients = [host]
    for name in names[1:players]:
        c = open_client(code)
        c.join(nickname=name)
        clients.append(c)
    # Everyone has seen the room with all members in it.
    for c in clients:
        wait_frame(c, lambda f: f["type"] == "room" and len(f["members"]) == players)
    return code, clients


def start_panika(clients: list[Client]) -> list[Frame]:
    """The host starts; returns each client's first state frame (clients ordered by seat)."""
    since = marks(clients)
    clients[0].send({"type": "start"})
    return [wait_type(c, "state", s) for c, s in zip(clients, since, strict=True)]


# --- Panika bots ---------------------------------------------------------------------------------

def card_taps(card: Frame) -> int:
    if card["kind"] == "number":
        return int(card["value"])
    if card["kind"] == "vegetable":
        return 5
    return 0


class PanikaTable:
    """Drives a Panika match with one bot per seat, each deciding only from its own client's
    latest ``state`` frame; after every move it waits until every client got the new version."""

    def __init__(self, clients: list[Client], timeout: float = 15.0) -> None:
        self.by_seat = {c.seat: c for c in clients if c.seat is not None}
        self.clients = clients
        self.timeout = timeout
        self.moves = 0

    def latest(self, seat: int) -> Frame:
        state = self.by_seat[seat].latest_state()
        assert state is not None
        return state

    @property
    def version(self) -> int:
        return max(self.latest(s)["version"] for s in self.by_seat)

    def next_move(self) -> tuple[int, dict[str, Any]] | None:
        """(seat, action) the bots make now, or None when the match is over."""
        for seat in self.by_seat:
            legal = self.latest(seat)["view"].get("legal") or {}
            if legal.get("last_card_due"):
                return seat, {"type": "last_card"}
        view = self.latest(next(iter(self.by_seat)))["view"]
        if view["phase"] == "over":
            return None
        if view["phase"] == "tapping":
            return view["tapping"]["seat"], {"type": "tap"}
        seat = view["turn"]
        mine = self.latest(seat)["view"]
        me = mine["players"][seat]
        n = mine["legal"]["cards"]
        assert n in (1, 2), mine["legal"]
        # The call counts when this play leaves one card in all (docs/games/panika.md, 10).
        if not me["last_card"] and len(mine["hand"]) + me["pile"] - n == 1:
            return seat, {"type": "last_card"}
        hand = sorted(mine["hand"], key=lambda c: (card_taps(c), c["id"]))
        return seat, {"type": "play", "cards": [c["id"] for c in hand[:n]]}

    def step(self) -> bool:
        """Make one move and wait for its state everywhere; False when the match is over."""
        move = self.next_move()
        if move is None:
            return False
        seat, action = move
        version = self.version
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

    def play_to_end(
        self, max_moves: int = 5000, on_step: Callable[[], None] | None = None
    ) -> int:
        while self.step():
            if on_step is not None:
                on_step()
            assert self.moves < max_moves, "the match did not end"
        return self.moves
