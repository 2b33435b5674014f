"""Latency fairness through the room (docs/games/panic-lab.md; docs/fairness.md): the room's
core measures each connection's round trip from its pings and pongs, a claim carries its
sender's round trip, and with ``latency_fair`` the claim made first in real time wins though it
arrived second. Driven through the room's core at named times, so the outcome is the rules' for
exactly these times, whatever the machine's speed (tests/games/panic_lab/test_lab_ws.py plays
the same race over a real slow line)."""

from __future__ import annotations

import orjson
import pytest

from app.realtime.room import protocol as p
from app.realtime.room.effects import Control
from tests.games.panic_lab.rings import answer as answer_of
from tests.realtime.core_helpers import at, join, of_type, only, room


def _ping_t(effects: list) -> int:
    (ping,) = [orjson.loads(c.text) for c in only(effects, Control)
               if orjson.loads(c.text)["type"] == "ping"]
    return ping["t"]


def _state(effects: list, conn) -> dict:  # type: ignore[no-untyped-def]
    return of_type(effects, conn, "state")[-1]


@pytest.mark.parametrize("fair", [True, False], ids=["latency_fair", "arrival_order"])
def test_the_claim_made_first_wins_only_when_latency_fair(fair: bool) -> None:
    core = room("panic_lab")
    ann, _ = join(core, "Ann")
    bob, _ = join(core, "Bob")
    # One ping to both; Ann answers after 20 ms, Bob (a slow line) after 260 ms.
    t = _ping_t(core.tick(at(1)))
    core.frame(ann, p.Pong(type="pong", t=t), at(1.020))
    core.frame(bob, p.Pong(type="pong", t=t), at(1.260))
    assert (ann.rtt_ms, bob.rtt_ms) == (20, 260)
    core.frame(ann, p.SetOptions(type="set_options", options={
        "latency_fair": fair, "countdown_seconds": 2}), at(2))
    core.frame(ann, p.Start(type="start"), at(3))
    revealed = core.timers_due(at(5))  # the countdown's 2 s: the dice are out
    view = _state(revealed, ann)["view"]
    assert view["phase"] == "search"
    answer = answer_of(core.state.match.state)  # type: ignore[union-attr]
    # Ann's claim arrives 125 ms after the reveal, Bob's 312 ms after it: Bob's was made 52 ms
    # in (312 less his 260 ms round trip), Ann's 105 ms (125 less her 20 ms). (Times a float
    # holds exactly, so the match's milliseconds are these.)
    core.frame(ann, p.Action(type="action", action={"type": "claim", "tile": answer}),
               at(5.125))
    second = core.frame(bob, p.Action(type="action", action={"type": "claim", "tile": answer}),
                        at(5.3125))
    claims = [m for m in core.state.match.log if m.seat is not None]  # type: ignore[union-attr]
    assert [(m.seat, m.at_ms, m.rtt_ms) for m in claims[:1]] == [(0, 2125, 20)]
    if fair:
        assert [(m.seat, m.at_ms, m.rtt_ms) for m in claims] == [(0, 2125, 20), (1, 2312, 260)]
        # Decided once no claim can beat Bob's: at his claim (every player has claimed), or at
        # the latest when Ann's settle window (300 - 20 ms) closes.
        settled = second + core.timers_due(at(5.5))
        end = _state(settled, ann)["view"]["last_round"]
        assert end["winner"] == 1
        reactions = {c["seat"]: c["reaction_ms"] for c in end["claims"]}
        assert reactions == {0: 105, 1: 52}
    else:
        (error,) = of_type(second, bob, "error")
        assert error["code"] == "illegal_action" and "decided" in error["message"]
        end = _state(core.frame(ann, p.Resync(type="resync"), at(5.5)), ann)["view"]
        assert end["last_round"]["winner"] == 0
