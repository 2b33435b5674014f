"""Finished matches for tests, made the quick way: bots play them to the end in-process
(app/bots/arena.py), the stand-alone counter follows a script of taps, and the store keeps them
as a room does (app/realtime/room/life.py: the ending and its details, one result per
seat)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from app.bots import make_bot
from app.bots.arena import play_match
from app.db.matches import MatchRecord, PlayerResult, save_match
from app.engine import Move, Outcome, get_game, seed_commitment
from app.engine.replay import Replay
from app.games import load_all

load_all()

NAMES = ["Ann", "Bob", "Cleo", "Dan", "Eve"]


def bot_match(game_id: str, seed: bytes, players: int = 3, options: dict[str, Any] | None = None,
              difficulty: str = "normal") -> tuple[list[Move], Outcome]:
    """A whole match of ``game_id`` played by bots: its action log and its outcome."""
    bots = [make_bot(game_id, seat, difficulty, seed=f"{seed.hex()}-{seat}")
            for seat in range(players)]
    result = play_match(game_id, bots, seed, options)
    assert result.outcome is not None and not result.rejected, (game_id, result.rejected)
    return result.log, result.outcome


def counter_match(seed: bytes, bursts: int = 2, tappers: int = 2) -> tuple[list[Move], Outcome]:
    """A stand-alone counter (all ten seats, ``tappers`` of them tapping in turn) that bursts
    ``bursts`` times, each next round started by the system's timer, then a "new counter"."""
    game = get_game("panika_counter")
    assert game is not None
    run = Replay(game, game.max_players, {}, seed)
    log: list[Move] = []
    at_ms = 0

    def play(seat: int | None, action: dict[str, Any], after_ms: int) -> None:
        nonlocal at_ms
        at_ms += after_ms
        move = Move(seat, action, at_ms, 0 if seat is None else 30)
        run.step(move)
        log.append(move)

    for _ in range(bursts):
        seat = 0
        play(seat, {"type": "tap"}, 400)
        play(1 % tappers, {"type": "back"}, 300)
        while run.state.phase == "counting":
            play(seat, {"type": "tap"}, 250)
            seat = (seat + 1) % tappers
        play(None, {"type": "new_round"}, 3000)
    play(0, {"type": "new_counter"}, 500)
    outcome = game.outcome(run.state)
    assert outcome is not None
    return log, outcome


def finished_match(game_id: str, seed: bytes, options: dict[str, Any] | None = None,
                   players: int = 3) -> tuple[int, list[Move], Outcome]:
    """A finished match of any game: (its seat count, its log, its outcome)."""
    if game_id == "panika_counter":
        log, outcome = counter_match(seed)
        return 10, log, outcome
    log, outcome = bot_match(game_id, seed, players, options)
    return players, log, outcome


def store(db: Any, game_id: str, seed: bytes, players: int, log: list[Move], outcome: Outcome,
          options: dict[str, Any] | None = None, names: list[str] | None = None,
          bots: str | None = None, seed_hash: str | None = None) -> int:
    """Store the match as a room does; returns its id. A match is stored once per seed hash:
    a second record with the same seed needs a ``seed_hash`` of its own."""
    names = names or NAMES
    nicknames = {s: names[s] if s < len(names) else f"Seat {s + 1}" for s in range(players)}
    now = datetime.now(UTC)
    results = [PlayerResult(s, nicknames[s], outcome.scores[s], outcome.ranks[s],
                            s in outcome.winners, bots) for s in range(players)]
    duration = timedelta(milliseconds=log[-1].at_ms if log else 0)
    return save_match(db, record=MatchRecord(
        game=game_id, room_code="TEST", options=options or {}, seed=seed.hex(),
        seed_hash=seed_hash or seed_commitment(seed), started_at=now - duration, ended_at=now,
        ending=str(outcome.ending), details=dict(outcome.details), players=results, log=log))
