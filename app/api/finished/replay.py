"""A finished match again, move by move, as its board showed it (docs/protocol.md, "Watching a
match again").

The stored record (seed, options, action log) goes through the one replay
(``app.engine.replay.Replay``); after the set-up and after every move the board's data is taken:
the view through the chosen eyes (``revealed_view``, every secret shown, or one seat's own
``view`` as that seat saw it), the move's events, the seats the game waited on and the timers
as they stood just after the move (the room's own ``TimerBoard``, on the match's clock), and how
the move stands among the plays (``Game.replay_step``: whether it joins the play before, its
marks). A move the rules refuse today ends the replay there, and the answer says so; a match
whose game is gone, or whose set-up the rules refuse, does not replay at all (``Unreplayable``).

Finished matches never change, so each answer is built once, off the event loop, and kept,
compressed (app/api/finished/answers.py). However long its stored log, a replay has at most the
game's ``max_moves`` steps: today's rules refuse any move past the match's end.
"""

from __future__ import annotations

from typing import Any

import orjson

from app.engine import EngineError, Game, Move, ReplayStep, get_game
from app.engine.replay import Replay
from app.realtime.room.frames import event_frame
from app.realtime.room.timers import TimerBoard

EVERYTHING = "all"
"""The eyes that see every secret (the revealed view)."""

Eyes = int | None
"""A seat, or ``None`` for everything."""


class Unreplayable(Exception):
    """The match cannot be replayed at all here: its game is gone, or the rules refuse its
    set-up (its player count or options)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        """Pickled whole: it crosses from the builder process (app/api/finished/answers.py)."""
        return Unreplayable, (self.code, self.reason)


def _game_of(match: dict[str, Any]) -> Game:
    game = get_game(match["game"])
    if game is None:
        raise Unreplayable("unknown_game", f"this server has no game {match['game']!r} any more")
    return game


def _start(game: Game, match: dict[str, Any]) -> Replay:
    """The match set up again as it was: for as many seats as it was set up for (an open table
    lists only the seats someone sat in: ``Game.recorded_seats``)."""
    try:
        return Replay(game, game.recorded_seats(match["players"]), match["options"],
                      bytes.fromhex(match["seed"]))
    except (EngineError, ValueError) as error:
        raise Unreplayable("setup_refused", f"the rules refuse this match's set-up: {error}") \
            from error


def _step(game: Game, state: Any, eyes: Eyes, number: int, move: Move | None,
          events: list[Any], timers: TimerBoard) -> bytes:
    """One step of the answer, encoded at once (a view is read before the next move)."""
    at_ms = move.at_ms if move is not None else 0
    over = game.outcome(state) is not None
    if over:
        timers.clear()  # the room stops every timer when a match ends
    else:
        timers.sync(game.timers(state), at_ms / 1000)
    view = game.revealed_view(state) if eyes is None else game.view(state, eyes)
    place = game.replay_step(move, events) if move is not None else ReplayStep()
    return orjson.dumps({
        "move": number,
        "joins": place.joins,
        "marks": list(place.marks),
        "seat": move.seat if move is not None else None,
        "at_ms": at_ms,
        "action": move.action if move is not None else None,
        "events": [event_frame(e) for e in events],
        "active": list(game.active_seats(state)),
        "timers": timers.visible(at_ms / 1000),
        "view": view,
    })


def build_replay(match: dict[str, Any], eyes: Eyes) -> bytes:
    """The JSON answer of ``GET /api/matches/{id}/replay`` for ``match`` (as
    ``app.db.matches.get_match`` reads it) seen through ``eyes``. Raises ``Unreplayable``."""
    game = _game_of(match)
    run = _start(game, match)
    timers = TimerBoard()
    steps = [_step(game, run.state, eyes, 0, None, [], timers)]
    refused: dict[str, Any] | None = None
    for entry in match["actions"]:
        move = Move.from_json(entry)
        try:
            events = run.step(move)
        except EngineError as error:
            refused = {"move": run.applied + 1, "code": error.code, "reason": str(error)}
            break
        steps.append(_step(game, run.state, eyes, run.applied, move, events, timers))
    head = orjson.dumps({
        "match": match["id"],
        "game": game.id,
        "eyes": EVERYTHING if eyes is None else eyes,
        "players": [{"seat": p["seat"], "nickname": p["nickname"], "bot": p.get("bot")}
                    for p in match["players"]],
        "moves": len(match["actions"]),
        "complete": refused is None,
        "refused": refused,
        "marks": list(game.replay_marks),
    })
    return head[:-1] + b',"steps":[' + b",".join(steps) + b"]}"
