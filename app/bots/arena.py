"""Matches played in-process by bots, as the room would run them (tests and bench/bots.py).

One match: the engine, a simulated clock, the rules' timers fired as the room fires them (a
timer starts when its key appears in ``timers(state)`` and is dropped when the key goes), and
for every seat a bot that receives only the state frames a seated client would receive: built
from ``view(state, seat)``, ``legal_actions(state, seat)``, ``active_seats(state)``, the
visible timers with the milliseconds left, and the events of the last move. The arena keeps one
pending decision per seat (each frame replaces it, docs/bots.md "The seam") and applies the
earliest due action or timer; a player's move carries the simulated time as ``at_ms``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.engine import EngineError, Event, Game, Move, Outcome
from app.engine.registry import get_game
from app.engine.replay import Replay

from app.engine.bots import Bot, Frame

FrameHook = Callable[[int, Frame], None]


def legal_actions(game: Game, state: Any, seat: int) -> list[dict[str, Any]]:
    """The seat's legal actions, from the engine (``Game.legal_actions``)."""
    return list(game.legal_actions(state, seat))


def event_frame(event: Event) -> dict[str, Any]:
    """An event as the room sends it (``{seat:N}`` markers left in: a bot needs no names)."""
    frame: dict[str, Any] = {"text": event.text, "seat": event.seat, "kind": event.kind}
    if event.data:
        frame["data"] = dict(event.data)
    if event.transient:
        frame["transient"] = True
    return frame


def seat_frame(game: Game, state: Any, seat: int, common: dict[str, Any]) -> Frame:
    """The state frame the room sends to ``seat``: its view and legal actions, and the shared
    ``version``, ``active``, ``timers`` and ``events`` (docs/protocol.md)."""
    return {"type": "state", "seat": seat, "view": game.view(state, seat),
            "legal": legal_actions(game, state, seat), **common}


def frame_now(game: Game, state: Any, seat: int, *, events: Sequence[Event] = (),
              version: int = 1) -> Frame:
    """A state frame for ``seat`` with the rules' timers just started (full time left)."""
    common = {
        "version": version,
        "active": list(game.active_seats(state)),
        "timers": [{"key": t.key, "label": t.label, "seats": list(t.seats),
                    "remaining_ms": int(t.seconds * 1000)}
                   for t in game.timers(state) if t.visible],
        "events": [event_frame(e) for e in events],
    }
    return seat_frame(game, state, seat, common)


@dataclass(slots=True)
class MatchResult:
    outcome: Outcome | None
    """None if the match hit ``max_moves`` or ``max_ms`` without ending."""
    moves: int
    sim_ms: int
    rejected: list[tuple[int, dict[str, Any], str]] = field(default_factory=list)
    """Bot actions the engine refused: (seat, action, error). Always empty for correct bots."""
    log: list[Move] = field(default_factory=list)
    """Every applied move, as the room's action log keeps it (a match to store and replay)."""


def play_match(
    game_id: str | Game[Any, Any],
    bots: Sequence[Bot],
    seed: bytes,
    options: dict[str, Any] | None = None,
    *,
    max_moves: int = 50_000,
    max_ms: int = 6 * 3600 * 1000,
    on_frame: FrameHook | None = None,
) -> MatchResult:
    """Play one match of ``len(bots)`` seats (``bots[i]`` plays seat i) to its end; the game is
    named by its id (the registry's) or given."""
    game = get_game(game_id) if isinstance(game_id, str) else game_id
    if game is None:
        raise ValueError(f"unknown game {game_id!r}")
    run = Replay(game, len(bots), options, seed)  # the match's one path: set up, then step
    state = run.state
    now = 0
    version = 0
    running: dict[str, tuple[int, Any]] = {}
    pending: dict[int, tuple[int, int, dict[str, Any]]] = {}
    order = itertools.count()
    result = MatchResult(None, 0, 0)

    def sync_timers() -> None:
        wanted = {t.key: t for t in game.timers(state)}
        for key in list(running):
            if key not in wanted:
                del running[key]
        for key, timer in wanted.items():
            if key not in running:
                running[key] = (now + int(timer.seconds * 1000), timer)

    def send_state(events: list[Event]) -> None:
        nonlocal version
        version += 1
        common = {
            "version": version,
            "active": list(game.active_seats(state)),
            "timers": [{"key": key, "label": t.label, "seats": list(t.seats),
                        "remaining_ms": max(0, deadline - now)}
                       for key, (deadline, t) in running.items() if t.visible],
            "events": [event_frame(e) for e in events],
        }
        for seat, bot in enumerate(bots):
            frame = seat_frame(game, state, seat, common)
            if on_frame is not None:
                on_frame(seat, frame)
            bot.observe(frame)
            decision = bot.decide(frame)
            if decision is None:
                pending.pop(seat, None)
            else:
                pending[seat] = (now + decision.delay_ms, next(order), decision.action)

    sync_timers()
    send_state([])
    while game.outcome(state) is None:
        if result.moves >= max_moves or now > max_ms:
            return result
        next_timer = min(running.items(), key=lambda kv: kv[1][0], default=None)
        next_bot = min(pending.items(), key=lambda kv: kv[1][:2], default=None)
        if next_timer is None and next_bot is None:
            return result  # nothing can happen any more: the match is stuck
        if next_bot is not None and (next_timer is None or next_bot[1][0] <= next_timer[1][0]):
            seat, (due, _, raw) = next_bot
            del pending[seat]
            now = max(now, due)
            try:
                move = Move(seat, game.parse_action(raw), now)
                events = run.step(move)
            except EngineError as exc:
                result.rejected.append((seat, raw, str(exc)))
                continue
        else:
            assert next_timer is not None
            key, (deadline, timer) = next_timer
            del running[key]
            now = max(now, deadline)
            move = Move(None, game.parse_action(dict(timer.action)), now)
            events = run.step(move)
        result.log.append(move.logged())
        result.moves += 1
        result.sim_ms = now
        if game.outcome(state) is None:
            sync_timers()
        else:
            running.clear()
            pending.clear()
        send_state(events)
    result.outcome = game.outcome(state)
    return result
