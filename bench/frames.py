"""The cost of a move inside the room, without sockets: whole state frames against deltas.

    .venv/bin/python bench/frames.py [--game panika] [--matches 40] [--players 4] [--seed 1]

A real ``Room`` (app/realtime/room.py) with ``--players`` seated connections and one table view,
whose sends only count bytes (no socket, no event-loop wait), plays whole matches in-process:
each move is an ``action`` frame handed to the room as the actor would (rules, views, frames,
sends), or a timer's action when no seat may act. Half the matches are played by connections
that joined without deltas, then half by connections that joined with ``"deltas": true``; each
match has its own random seed and the moves are chosen by the same rule from a generator seeded
with ``--seed``, so both halves see the same kind of play. Printed per half: the thread CPU time
per move (median of the matches, and the mean), and the average size of a state frame as sent,
over every state frame of the matches (the first, whole frame after the start included).
Nothing is saved (the room's save is a no-op) and no collection runs during a move
(``gc.disable`` while timing).

This is the steady measure of the room's own cost per move (docs/performance.md); the real
path adds uvicorn's WebSocket framing and the kernel, which grow with the bytes sent.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.engine import get_game  # noqa: E402
from app.games import load_all  # noqa: E402
from app.realtime import protocol as p  # noqa: E402
from app.realtime.connection import Connection  # noqa: E402
from app.realtime.effects import Now  # noqa: E402
from app.realtime.room import Room  # noqa: E402
from app.realtime.tokens import SeatTokens  # noqa: E402


class Counted:
    """What the room sent one connection: state frames and their bytes."""

    def __init__(self) -> None:
        self.states = 0
        self.state_bytes = 0

    async def send(self, message: dict) -> None:
        text = message.get("text")
        if text is not None and text.startswith('{"type":"state"'):
            self.states += 1
            self.state_bytes += len(text)


def on_frame(room: Room, conn: Connection, message: object) -> None:
    """What the room's actor does with a client's frame: the core decides, the room performs
    the effects (the frames sent are counted, so their encoding is in the move's time)."""
    room.perform(room.frame(conn, message, Now.read()))


async def _save(record, on_state):  # noqa: ANN001 - the room's SaveMatch, doing nothing
    return 1


def choose(room: Room, rng: random.Random) -> tuple[int | None, dict] | None:
    """A move: a seat's legal action (taps and calls first, else a random play), else a timer's
    action; None when the match is over."""
    match = room.match
    game = room.game
    if match is None or match.outcome() is not None:
        return None
    plays = []
    for seat in range(match.players):
        for action in game.legal_actions(match.state, seat):
            if action["type"] != "play":
                return seat, action
            plays.append((seat, action))
    if plays:
        return rng.choice(plays)
    system = game.legal_actions(match.state, None)
    return (None, system[0]) if system else None


async def play_match(room: Room, conns: list[Connection], rng: random.Random,
                     host: Connection) -> list[float]:
    """One match from the host's start to its end; the CPU seconds of each move."""
    on_frame(room, host, p.Start(type="start") if room.match_number == 0
             else p.Rematch(type="rematch"))
    by_seat = {c.seat: c for c in conns if c.seat is not None}
    times = []
    moves = 0
    while moves < 3000:
        move = choose(room, rng)
        if move is None:
            break
        seat, action = move
        gc.disable()
        t0 = time.thread_time()
        if seat is None:
            events = room.match.play(None, action)
            room._after_move(events)
            room.perform(room.take())
        else:
            on_frame(room, by_seat[seat], p.Action(type="action", action=action))
        times.append(time.thread_time() - t0)
        gc.enable()
        moves += 1
    await asyncio.sleep(0)  # the match's save task runs
    return times


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--game", default="panika")
    ap.add_argument("--matches", type=int, default=40, help="matches in all (half each way)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    load_all()
    results: dict[bool, dict] = {d: {"medians": [], "all": [], "states": 0, "bytes": 0}
                                 for d in (False, True)}
    for deltas in (False, True):
        rng = random.Random(args.seed)
        for _ in range(args.matches // 2):
            room = Room(code="BENCH", game=get_game(args.game), public=False,
                        tokens=SeatTokens("bench"), save_match=_save)
            sinks = [Counted() for _ in range(args.players + 1)]
            conns = [Connection(s.send) for s in sinks]
            for i, conn in enumerate(conns[:-1]):
                on_frame(room, conn, p.Join(type="join", nickname=f"bot{i}", deltas=deltas))
            on_frame(room, conns[-1], p.Join(type="join", watch=True, deltas=deltas))
            host = next(c for c in conns if c.member is not None and c.member.id == room.host)
            for sink in sinks:
                sink.states = sink.state_bytes = 0
            times = await play_match(room, conns, rng, host)
            room._timers.clear()
            r = results[deltas]
            r["medians"].append(statistics.median(times))
            r["all"].extend(times)
            r["states"] += sum(s.states for s in sinks)
            r["bytes"] += sum(s.state_bytes for s in sinks)
    for deltas in (False, True):
        r = results[deltas]
        print(f"{args.game} deltas={'on ' if deltas else 'off'} moves={len(r['all'])} "
              f"cpu_per_move median={1e6 * statistics.median(r['medians']):.1f}us "
              f"mean={1e6 * statistics.mean(r['all']):.1f}us "
              f"state_frame={r['bytes'] / max(1, r['states']):.0f}B "
              f"({r['states']} state frames to {args.players} seats and a table view)")


if __name__ == "__main__":
    asyncio.run(main())
