"""Helpers for the realtime tests: waiting on frames by index, rooms of joined clients, a member
who stops reading and a flood of chat for it, and a Panika bot table that drives a whole match
over real WebSockets."""

from __future__ import annotations

import base64
import json
import os
import secrets
import socket
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


# --- a member who stops reading -------------------------------------------------------------------

FLOOD_LINES = 3000
"""The most chat lines a test sends a member who stopped reading (about 1 MB): under the 2.7 MB
the kernel took from such a member before its send buffer was bounded, four times what the
bounded buffers and the backlog of 512 frames hold (about 800 lines; app/http_protocol.py)."""


def silent_socket(site: LiveServer, code: str, deflate: bool = False) -> socket.socket:
    """A WebSocket client of room ``code`` that joins as "Slow" and then never reads (a tiny
    receive buffer); ``deflate``: it asks for permessage-deflate, so that its frames take the
    usual ASGI path rather than the direct writer (app/realtime/transport/wire.py)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", site.port))
    key = base64.b64encode(os.urandom(16)).decode()
    extensions = "Sec-WebSocket-Extensions: permessage-deflate\r\n" if deflate else ""
    sock.sendall((f"GET /ws/{code} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n{extensions}"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    response = b""
    while b"\r\n\r\n" not in response:
        response += sock.recv(1)
    assert b" 101 " in response
    assert (b"permessage-deflate" in response.lower()) == deflate
    payload = json.dumps({"type": "join", "nickname": "Slow"}).encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)
    return sock


def flood_chat(sender: Client, done: Callable[[], bool], lines: int = FLOOD_LINES) -> int:
    """Chat lines of 300 random characters (compression gains little on them) from ``sender``
    until ``done()`` or ``lines`` were sent; the number sent. The flood goes at the server's
    pace, each burst relayed back to ``sender`` before the next: the server's own backlog stays
    small, so it answers the test's HTTP requests on a busy machine, while a silent reader's
    buffers fill all the same."""
    sent = 0
    while sent < lines and not done():
        for _ in range(49):
            sender.send({"type": "chat", "text": secrets.token_urlsafe(225)})
        last = f"line {sent + 50} " + secrets.token_urlsafe(210)
        sender.send({"type": "chat", "text": last})
        sent += 50
        wait_frame(sender, lambda f: f["type"] == "chat" and f["text"] == last,  # noqa: B023
                   since=len(sender.frames), timeout=60)
    return sent


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
