"""What a match records of itself: every chance step it drew, and a digest of its events.

A live match runs on a ``RecordingRng``: each draw is a named chance step (the game's ``step``,
the operation, its arguments and result), kept in order and stored with the finished match
(``draws``). Its events, move by move, are folded into one SHA-256 (``EventDigest``), stored as
``events_digest``: the claim of what the players were told, compared with a replay's by the
whole check (app/engine/proof.py; docs/decisions/0053-chance-is-data-recorded-with-the-match.md).
A match stored before the draws were recorded gets them from a replay (``with_draws``).
``static/verify_match.py`` re-derives each draw from the revealed seed with nothing but the
Python standard library (docs/fairness.md).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from typing import Any

import orjson

from .interface import Event, Game, Move
from .replay import replay
from .registry import get_game
from .rng import RecordingRng

log = logging.getLogger(__name__)


class EventDigest:
    """The SHA-256 of a match's events: each applied move's events as one JSON array (orjson,
    no spaces) of arrays ``[text, seat, kind, data, transient]``, the moves' arrays one after
    another in their order; a move with no events adds ``[]``. Arrays, not the dataclasses:
    orjson encodes a dataclass four times slower, and this runs on every live move."""

    __slots__ = ("_hash",)

    def __init__(self) -> None:
        self._hash = hashlib.sha256()

    def add(self, events: list[Event]) -> None:
        self._hash.update(orjson.dumps([(e.text, e.seat, e.kind, e.data, e.transient)
                                        for e in events]))

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def events_digest(per_move: Iterable[list[Event]]) -> str:
    """The ``EventDigest`` of these moves' events."""
    digest = EventDigest()
    for events in per_move:
        digest.add(events)
    return digest.hexdigest()


def chance_log(
    game: Game[Any, Any], players: int, options: dict[str, Any] | None, seed: bytes, moves: Iterable[Move]
) -> list[dict[str, Any]]:
    """Replay a match (the one replay, app/engine/replay.py) and return every draw it made."""
    rng = RecordingRng(seed)
    replay(game, players, options, seed, moves, rng=rng)
    return rng.draws


def with_draws(match: dict[str, Any]) -> dict[str, Any]:
    """A stored match (``app.db.matches.get_match``) with its ``draws``: those recorded with it,
    else (a match stored before they were recorded) those a replay makes.

    If such a match cannot be replayed (a game no longer offered, rules changed since), ``draws``
    is ``None`` and ``draws_error`` says why: the seed and the log are still there to check.
    """
    if match.get("draws") is not None:
        return match
    game = get_game(match["game"])
    if game is None:
        return {**match, "draws": None, "draws_error": f"no game {match['game']!r} on this server"}
    moves = [Move.from_json(a) for a in match["actions"]]
    try:
        draws = chance_log(game, game.recorded_seats(match["players"]), match["options"],
                           bytes.fromhex(match["seed"]), moves)
    except Exception as error:  # noqa: BLE001 - the stored match is still worth showing
        log.exception("match %s does not replay", match.get("id"))
        return {**match, "draws": None, "draws_error": f"the match does not replay: {error}"}
    return {**match, "draws": draws}
