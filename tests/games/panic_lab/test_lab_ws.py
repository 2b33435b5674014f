"""Panic Lab over real WebSockets: a live uvicorn server, real clients, real arbitration.

The server runs in the test process, so a test reads the round's secret answer straight from
the room's match state (after the reveal) and the room's action log (the arrival order the room
recorded). Every client is read continuously by a background pump, so the server's pings are
answered at once and the measured round trips are the line's, not the test's idle time.

The game's timers are shortened in-process (``quick_timers``): the countdown and the result
pause, never the search or the latency-fair settle window, which stay exact.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from app.games.panic_lab import PanicLabGame, solve
from app.games.panic_lab.game import capped_rtt
from tests.live import Client, LiveServer

from .delay_proxy import DelayProxy

Frame = dict[str, Any]
LINE_DELAY = 0.12
"""The slow client's added one-way delay, each direction (so about 240 ms more round trip)."""


# --- fixtures and helpers ----------------------------------------------------------------------
@pytest.fixture
def quick_timers(monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    """Shorten the countdown and the result pause; a test may change the seconds."""
    seconds = {"countdown": 0.4, "result": 0.3}
    original = PanicLabGame.timers

    def timers(self: PanicLabGame, state: Any) -> list[Any]:
        out = []
        for timer in original(self, state):
            kind = timer.key.split(":")[0]
            if kind in seconds:
                timer = dataclasses.replace(timer, seconds=seconds[kind])
            out.append(timer)
        return out

    monkeypatch.setattr(PanicLabGame, "timers", timers)
    return seconds


class Pump:
    """Reads every client's frames in background threads (``Client.recv`` answers pings)."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def add(self, client: Client) -> None:
        def run() -> None:
            while not self._stop.is_set():
                try:
                    client.recv(timeout=0.05)
                except TimeoutError:
                    continue
                except (ConnectionClosed, OSError):
                    return

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(2)


@pytest.fixture
def pump() -> Iterator[Pump]:
    p = Pump()
    yield p
    p.stop()


def wait(client: Client, pred: Callable[[Frame], bool], since: int = 0,
         timeout: float = 5.0) -> Frame:
    """The first frame at index >= ``since`` matching ``pred`` (the pump keeps reading)."""
    deadline = time.monotonic() + timeout
    i = since
    while True:
        frames = client.frames
        while i < len(frames):
            if pred(frames[i]):
                return frames[i]
            i += 1
        if time.monotonic() > deadline:
            raise TimeoutError(f"no matching frame in {timeout} s; last: {frames[-3:]}")
        time.sleep(0.002)


def state_where(pred: Callable[[Frame], bool]) -> Callable[[Frame], bool]:
    return lambda f: f["type"] == "state" and pred(f["view"])


def phase(name: str, round_: int) -> Callable[[Frame], bool]:
    return state_where(lambda v: v["phase"] == name and v["round"] == round_)


def decided(round_: int) -> Callable[[Frame], bool]:
    return state_where(lambda v: v["last_round"] is not None and v["last_round"]["round"] == round_)


def wrong_claim(frame: Frame) -> bool:
    return frame["type"] == "state" and any(e["kind"] == "wrong" for e in frame["events"])


def error_with(ref: int) -> Callable[[Frame], bool]:
    return lambda f: f["type"] == "error" and f.get("ref") == ref


class Lab:
    """One Panic Lab room on the live server: its clients (host first) and the room itself."""

    def __init__(self, server: LiveServer, code: str, clients: list[Client]) -> None:
        self.server, self.code, self.clients = server, code, clients

    @property
    def room(self) -> Any:
        return self.server.registry.get(self.code)

    @property
    def state(self) -> Any:
        return self.room.state.match.state

    def answer(self) -> int:
        """The secret answer of the round in play (read after the reveal), checked by the solver."""
        state = self.state
        assert state.roll is not None and state.solution is not None
        assert solve(state.ring, state.roll).answer == state.solution.answer
        return state.solution.answer

    def wrong_tile(self) -> int:
        """A claimable tile (an amoeba or a room) that is not the answer."""
        answer = self.answer()
        return next(i for i, t in enumerate(self.state.ring)
                    if t.type not in ("lab", "vent") and i != answer)

    def claims_logged(self) -> list[Any]:
        return [m for m in self.room.state.match.log if m.action["type"] == "claim"]

    def start(self) -> None:
        self.clients[0].send({"type": "start"})
        for c in self.clients:
            wait(c, phase("countdown", 1))

    def reveal(self, round_: int) -> int:
        """Wait until every client has the dice of ``round_``; return the answer."""
        for c in self.clients:
            wait(c, phase("search", round_))
        return self.answer()


def open_lab(
    server: LiveServer, clients: list[Client], pump: Pump, names: tuple[str, ...] = ("Ann", "Bob"),
    options: dict[str, Any] | None = None, lines: dict[str, Any] | None = None,
    watchers: int = 0,
) -> Lab:
    """A room with ``names`` joined (the host first); ``lines[name]`` connects that client
    through something with ``ws_url`` (a delay proxy) instead of directly. The pump reads all."""
    created = server.create_room("panic_lab", names[0])
    code = created["code"]
    lines = lines or {}
    joined: list[Client] = []
    for i, name in enumerate(names):
        c = Client(lines.get(name, server), code)
        clients.append(c)
        c.join(token=created["token"]) if i == 0 else c.join(nickname=name)
        joined.append(c)
    for _ in range(watchers):
        w = Client(server, code)
        clients.append(w)
        w.join(watch=True)
    if options:
        joined[0].send({"type": "set_options", "options": options})
    for c in clients[-len(joined) - watchers:]:
        pump.add(c)
    for c in joined:
        wait(c, lambda f: f["type"] == "room" and len(f["members"]) == len(names)
             and all(f["options"][k] == v for k, v in (options or {}).items()))
    assert [c.seat for c in joined] == [None] * len(names)
    return Lab(server, code, joined)


def assert_no_secrets(client: Client) -> None:
    """Walk every frame ``client`` received, in order.

    - Before round 1's reveal, no frame mentions the dice at all (no ``"arrow"`` anywhere: the
      ring's tiles have no arrow, only a die does); in every countdown frame the view's dice are
      null and no event carries a roll.
    - While a round is open (search or settling), no frame holds another seat's claimed tile or
      the answer: the only ``"tile"`` is this seat's own ``my_claim``, the only ``last_round``
      is an earlier round's, and no event carries ``answer``.
    """
    seen_dice = False
    assert len(client.raw) == len(client.frames)
    for raw, frame in zip(client.raw, client.frames, strict=True):
        if frame["type"] != "state":
            if not seen_dice:
                assert '"arrow"' not in raw, raw
            assert '"tile"' not in raw, raw
            continue
        view = frame["view"]
        if view["dice"] is not None:
            seen_dice = True
        if not seen_dice:
            assert '"arrow"' not in raw, raw
        if view["phase"] == "countdown":
            assert view["dice"] is None
            assert all(e["kind"] != "reveal" and "dice" not in e.get("data", {})
                       for e in frame["events"])
        rest = copy.deepcopy(frame)
        # ``legal`` lists every claimable tile of the public ring (or none once this seat has
        # claimed): the same for every seat, whatever the answer, so it tells nothing.
        legal = rest.pop("legal", [])
        claimable = {i for i, t in enumerate(view["ring"]) if t["type"] not in ("lab", "vent")}
        assert {a["tile"] for a in legal} in (claimable, set()), frame
        rest_view = rest["view"]
        mine = rest_view.pop("my_claim", None)
        if frame["seat"] is None:
            assert mine is None and "my_claim" not in view
        last = rest_view.pop("last_round")
        if view["phase"] in ("search", "settling"):
            assert last is None or last["round"] < view["round"], frame
            assert '"answer"' not in json.dumps(rest), frame
        assert '"tile"' not in json.dumps(rest), frame


# --- the tests ---------------------------------------------------------------------------------
def test_simultaneous_right_claims_first_to_reach_the_room_wins(
    server: LiveServer, clients: list[Client], pump: Pump, quick_timers: dict[str, float]
) -> None:
    lab = open_lab(server, clients, pump)
    ann, bob = lab.clients
    lab.start()
    for round_ in (1, 2, 3):
        answer = lab.reveal(round_)
        before = len(lab.claims_logged())
        go = threading.Barrier(2)

        def claim(client: Client, ref: int) -> None:
            go.wait()
            client.action({"type": "claim", "tile": answer}, ref=ref)

        threads = [threading.Thread(target=claim, args=(c, 100 + round_)) for c in (ann, bob)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ends = [wait(c, decided(round_)) for c in (ann, bob)]
        last = ends[0]["view"]["last_round"]
        assert all(e["view"]["last_round"] == last for e in ends)

        # The room logged the claims in the order they reached it: the first one won.
        logged = lab.claims_logged()[before:]
        assert len(logged) == 1, "the second right claim arrives after the round is decided"
        first = logged[0].seat
        assert logged[0].action == {"type": "claim", "tile": answer}
        assert last["winner"] == first and last["ended_by"] == "found" and last["answer"] == answer
        assert last["claims"] == [{"seat": first, "tile": answer, "correct": True}]
        # The other one was told its claim came too late, and nothing else changed for it. Its
        # claim may reach the room during the result pause ("decided") or, on a loaded machine,
        # after the pause has ended and the next countdown begun ("wait for the dice").
        loser = (ann, bob)[1 - first]
        err = wait(loser, error_with(100 + round_))
        assert err["code"] == "illegal_action"
        assert err["message"] in ("this round is decided", "wait for the dice")
        winner_frame = wait((ann, bob)[first], decided(round_))
        assert winner_frame["view"]["players"][first]["tokens"] >= 1
        assert not any(f["type"] == "error" and f.get("ref") == 100 + round_
                       for f in (ann, bob)[first].frames)
    tokens = [p["tokens"] for p in lab.clients[0].latest_state()["view"]["players"]]
    assert sum(tokens) == 3
    for c in lab.clients:
        assert_no_secrets(c)


def test_a_wrong_claim_costs_a_token_and_locks_the_player_out(
    server: LiveServer, clients: list[Client], pump: Pump, quick_timers: dict[str, float]
) -> None:
    lab = open_lab(server, clients, pump, names=("Ann", "Bob", "Cy"))
    ann, bob, cy = lab.clients
    lab.start()
    # Round 1: Ann wins a token.
    answer = lab.reveal(1)
    ann.action({"type": "claim", "tile": answer})
    for c in lab.clients:
        wait(c, decided(1))
    # Round 2: Ann claims wrong and loses it; Bob claims wrong with nothing to lose.
    answer = lab.reveal(2)
    wrong = lab.wrong_tile()
    mark = len(ann.frames)
    ann.action({"type": "claim", "tile": wrong}, ref=1)
    hit = wait(ann, wrong_claim, since=mark)
    view = hit["view"]
    assert view["phase"] == "search"
    assert view["players"][0] == {"seat": 0, "tokens": 0, "claimed": True, "locked": True}
    assert view["my_claim"] == {"tile": wrong}
    assert hit["events"][0]["text"] == "{seat:0} claimed wrong and loses a token"
    assert 0 not in hit["active"] and {1, 2} <= set(hit["active"])
    # Locked out: a second claim, even the right one, is refused and changes nothing.
    version = lab.room.state.match.version
    ann.action({"type": "claim", "tile": answer}, ref=2)
    err = wait(ann, error_with(2), since=mark)
    assert err["code"] == "illegal_action" and "already claimed" in err["message"]
    assert lab.room.state.match.version == version
    assert [m.seat for m in lab.claims_logged()[1:]] == [0]
    # Bob has no token: a wrong claim still locks him out, it costs nothing. (His frames from
    # here on: Ann's wrong claim has reached him first, so it is not taken for his.)
    wait(bob, lambda f: f["type"] == "state" and f["version"] >= version)
    mark = len(bob.frames)
    bob.action({"type": "claim", "tile": wrong}, ref=3)
    hit = wait(bob, wrong_claim, since=mark)
    assert hit["events"][0]["text"] == "{seat:1} claimed wrong (no token to lose)"
    assert hit["view"]["players"][1] == {"seat": 1, "tokens": 0, "claimed": True, "locked": True}
    bob.action({"type": "claim", "tile": answer}, ref=4)
    assert wait(bob, error_with(4))["code"] == "illegal_action"
    # Cy finds it; everyone then sees all three claims in arrival order.
    cy.action({"type": "claim", "tile": answer})
    end = wait(ann, decided(2))["view"]
    assert end["last_round"]["winner"] == 2
    assert end["last_round"]["claims"] == [
        {"seat": 0, "tile": wrong, "correct": False},
        {"seat": 1, "tile": wrong, "correct": False},
        {"seat": 2, "tile": answer, "correct": True},
    ]
    assert [p["tokens"] for p in end["players"]] == [0, 0, 1]
    for c in lab.clients:
        assert_no_secrets(c)


def test_a_claim_before_the_reveal_is_rejected_and_changes_nothing(
    server: LiveServer, clients: list[Client], pump: Pump, quick_timers: dict[str, float]
) -> None:
    quick_timers["countdown"] = 1.0
    lab = open_lab(server, clients, pump)
    ann, bob = lab.clients
    lab.start()
    countdown = wait(ann, phase("countdown", 1))
    version = countdown["version"]
    assert lab.state.roll is None and lab.state.solution is None  # no secret exists yet
    mark = len(ann.frames)
    for tile in range(len(countdown["view"]["ring"])):
        ann.action({"type": "claim", "tile": tile}, ref=tile + 1)
    for tile in range(len(countdown["view"]["ring"])):
        err = wait(ann, error_with(tile + 1), since=mark)
        assert err["code"] == "illegal_action" and err["message"] == "wait for the dice"
    # Nothing moved: no new state, no logged claim, still the countdown.
    assert lab.room.state.match.version == version
    assert lab.claims_logged() == []
    assert lab.state.phase == "countdown" and lab.state.roll is None
    assert not any(f["type"] == "state" for f in ann.frames[mark:])
    # After the reveal Ann has her claim as if nothing had happened.
    answer = lab.reveal(1)
    search = wait(ann, phase("search", 1))
    assert search["view"]["players"][0] == {"seat": 0, "tokens": 0, "claimed": False,
                                            "locked": False}
    assert search["view"]["my_claim"] is None
    ann.action({"type": "claim", "tile": answer})
    assert wait(bob, decided(1))["view"]["last_round"]["winner"] == 0
    for c in lab.clients:
        assert_no_secrets(c)


@pytest.mark.parametrize("fair", [True, False], ids=["latency_fair", "arrival_order"])
def test_behind_a_slow_line_the_first_claim_in_real_time_wins_only_when_latency_fair(
    server: LiveServer, clients: list[Client], pump: Pump, quick_timers: dict[str, float],
    fair: bool,
) -> None:
    """Bob's line adds 120 ms each way. Bob claims at T (it reaches the room at about T+120);
    Ann claims at T+60 (it reaches the room at about T+60). Over a real line the times are the
    machine's, so this checks what holds whatever they are: the room measured Bob's round trip
    through the line (at least the 240 ms it adds) and his claim carries it, and the winner is
    the one the rules pick for the claims as logged (latency-fair: the earliest arrival less
    its capped round trip within the first claim's window; else the first arrival). That the
    claim made first in real time wins only when latency-fair, for exact times, is
    test_lab_room_latency.py's."""
    with DelayProxy(server.port, LINE_DELAY) as line:
        lab = open_lab(server, clients, pump, options={"latency_fair": fair},
                       lines={"Bob": line})
        ann, bob = lab.clients
        # Let the room measure both round trips over a few pings (every 0.5 s here).
        ids = str(ann.member), str(bob.member)
        line_ms = 2 * LINE_DELAY * 1000
        measured = wait(ann, lambda f: f["type"] == "ping"
                        and f["rtt"].get(ids[1], 0) >= line_ms and ids[0] in f["rtt"], timeout=30)
        ann_rtt, bob_rtt = measured["rtt"][ids[0]], measured["rtt"][ids[1]]
        lab.start()
        answer = lab.reveal(1)  # waits for Bob, who sees the dice about 120 ms after Ann
        t0 = time.monotonic()
        bob.action({"type": "claim", "tile": answer}, ref=1)
        time.sleep(max(0.0, t0 + 0.06 - time.monotonic()))  # the race: Ann a moment later
        ann.action({"type": "claim", "tile": answer}, ref=2)
        end = wait(ann, decided(1), timeout=30)["view"]["last_round"]
        assert wait(bob, decided(1), timeout=30)["view"]["last_round"] == end

        logged = lab.claims_logged()
        first = logged[0]
        by_seat = {m.seat: m for m in logged}
        if fair:
            if 1 in by_seat:  # taken (within the first claim's window): it carries his line
                assert by_seat[1].rtt_ms >= line_ms
            # The claims logged are those within the window; the quickest reaction wins, ties
            # to the earlier arrival.
            best = min(logged, key=lambda m: (m.at_ms - capped_rtt(m.rtt_ms), logged.index(m)))
            assert end["winner"] == best.seat, (end, [(m.seat, m.at_ms, m.rtt_ms) for m in logged])
            reactions = {c["seat"]: c["reaction_ms"] for c in end["claims"]}
            found = next(e for e in wait(ann, decided(1))["events"] if e["kind"] == "found")
            assert found["text"] == f"{{seat:{best.seat}}} found it in {reactions[best.seat]} ms!"
        else:
            assert end["winner"] == first.seat, end
            assert end["claims"] == [{"seat": first.seat, "tile": answer, "correct": True}]
            assert len(logged) == 1
            late = lab.clients[1 - first.seat]
            err = wait(late, error_with(2 if first.seat == 1 else 1))
            assert err["code"] == "illegal_action" and "decided" in err["message"]
        print(f"rtt ann={ann_rtt} bob={bob_rtt} claims={end['claims']}")
        for c in lab.clients:
            assert_no_secrets(c)


def test_no_frame_shows_the_dice_before_the_reveal_nor_a_claim_before_the_round_ends(
    server: LiveServer, clients: list[Client], pump: Pump, quick_timers: dict[str, float]
) -> None:
    """Three players and a table view; latency-fair, so a right claim waits hidden in the
    settling window while others still play. Two rounds; then every frame is walked."""
    lab = open_lab(server, clients, pump, names=("Ann", "Bob", "Cy"),
                   options={"latency_fair": True}, watchers=1)
    ann, bob, cy = lab.clients
    table = clients[-1]
    lab.start()
    for round_ in (1, 2):
        answer = lab.reveal(round_)
        ann.action({"type": "claim", "tile": lab.wrong_tile()})
        wait(cy, state_where(lambda v: v["players"][0]["locked"] and v["round"] == round_))
        bob.action({"type": "claim", "tile": answer})
        settling = wait(cy, phase("settling", round_))
        assert settling["view"]["players"][1]["claimed"] is True
        assert settling["view"]["dice"] is not None
        for c in (*lab.clients, table):
            wait(c, decided(round_), timeout=3)
    end = wait(table, decided(2))["view"]["last_round"]
    assert end["winner"] == 1 and [c["seat"] for c in end["claims"]] == [0, 1]
    # The countdown of round 3 comes too: its dice must not show either.
    wait(table, phase("countdown", 3))
    for c in (*lab.clients, table):
        assert any(f["type"] == "state" and f["view"]["phase"] == "settling" for f in c.frames)
        assert_no_secrets(c)
