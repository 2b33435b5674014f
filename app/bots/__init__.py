"""Computer players: each game's policy, from its package, behind the seam in ``app.engine.bots``
(docs/bots.md).

``make_bot(game_id, seat, difficulty, seed)`` builds the bot for a seat from the policy class the
game's package names (``GamePackage.bots``); ``has_bots`` says whether a game has one,
``bot_games()`` lists the registered games that do, ``bot_levels`` the levels a game's policy
plays (the host's menu lists them, each with its game's description: docs/decisions/0059). A
game without bots (an open table, which is a tool for people playing with real cards: a
computer cannot see their table) names none.
"""

from __future__ import annotations

from typing import Any

from app.engine.bots import (
    DIFFICULTIES, MAX_DELAY_MS, Bot, Decision, Difficulty, RandomLegalBot, level_text_key,
)
from app.engine.registry import all_packages, get_package


def policy(game_id: str) -> type[Bot] | None:
    """The policy class of ``game_id``'s computer players, or ``None``."""
    package = get_package(game_id)
    return package.bots if package is not None else None


def has_bots(game_id: str) -> bool:
    """Whether ``make_bot`` gives computer players for this game."""
    return policy(game_id) is not None


def bot_levels(game_id: str) -> tuple[str, ...]:
    """The levels ``game_id``'s computer players play, easiest first; none without bots."""
    chosen = policy(game_id)
    return chosen.levels if chosen is not None else ()


def bot_games() -> list[str]:
    """The ids of the registered games with computer players, in the lobby's order."""
    return [p.id for p in all_packages() if p.bots is not None]


def make_bot(game_id: str, seat: int, difficulty: str = "normal", seed: Any = None) -> Bot:
    """The computer player of ``game_id`` for ``seat``; ``difficulty`` is one of its
    ``bot_levels`` (easy, normal or hard). Raises ``ValueError`` for a game without bots or a
    level it does not play."""
    chosen = policy(game_id)
    if chosen is None:
        raise ValueError(f"no computer players for {game_id!r}")
    return chosen(game_id, seat, difficulty, seed)  # type: ignore[arg-type]


def make_random_bot(game_id: str, seat: int, seed: Any = None) -> Bot:
    """A player that picks uniformly among its legal actions (the benchmark's opponent)."""
    return RandomLegalBot(game_id, seat, "normal", seed)


__all__ = ["DIFFICULTIES", "MAX_DELAY_MS", "Bot", "Decision", "Difficulty", "RandomLegalBot",
           "bot_games", "bot_levels", "has_bots", "level_text_key", "make_bot", "make_random_bot",
           "policy"]
