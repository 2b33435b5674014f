"""The chance log of a finished match: every draw it made from its seeded generator, in order.

A match replays exactly from (seed, options, action log); replaying it with a ``RecordingRng``
yields each draw with its operation, arguments and result. ``GET /api/matches/{id}`` includes
them as ``draws``, and ``static/verify_match.py`` re-derives each one from the revealed seed
with nothing but the Python standard library (docs/fairness.md).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from .interface import Game, Move
from .replay import replay
from .registry import get_game
from .rng import RecordingRng

log = logging.getLogger(__name__)


def chance_log(
    game: Game[Any, Any], players: int, options: dict[str, Any] | None, seed: bytes, moves: Iterable[Move]
) -> list[dict[str, Any]]:
    """Replay a match (the one replay, app/engine/replay.py) and return every draw it made."""
    rng = RecordingRng(seed)
    replay(game, players, options, seed, moves, rng=rng)
    return rng.draws


def with_draws(match: dict[str, Any]) -> dict[str, Any]:
    """A stored match (``app.db.matches.get_match``) with its ``draws`` added.

    If the match cannot be replayed (a game no longer offered, rules changed since), ``draws``
    is ``None`` and ``draws_error`` says why: the seed and the log are still there to check.
    """
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
