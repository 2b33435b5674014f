"""Computer players: one policy module per game behind the seam in ``base`` (docs/bots.md).

``make_bot(game_id, seat, difficulty, seed)`` builds the bot for a seat; ``has_bots`` says whether
a game has one, ``BOT_GAMES`` lists the games of this package's policies. A game added elsewhere
(the conformance suite's example) registers its policy with ``register_policy``. The stand-alone Panika counter has none: it is a tool for people playing
with real cards, and a computer cannot see their table.
"""

from __future__ import annotations

from typing import Any

from .base import DIFFICULTIES, MAX_DELAY_MS, Bot, Decision, Difficulty, RandomLegalBot
from .panic_lab import PanicLabBot
from .panik_pilze import PanikPilzeBot
from .panika import PanikaBot
from .panique import PaniqueBot

POLICIES: dict[str, type[Bot]] = {
    "panika": PanikaBot,
    "panic_lab": PanicLabBot,
    "panique": PaniqueBot,
    "panik_pilze": PanikPilzeBot,
}

BOT_GAMES: frozenset[str] = frozenset(POLICIES)


def has_bots(game_id: str) -> bool:
    """Whether ``make_bot`` gives computer players for this game (not the counter)."""
    return game_id in POLICIES


def register_policy(game_id: str, policy: type[Bot]) -> None:
    """Computer players for a game this package does not know."""
    POLICIES[game_id] = policy


def unregister_policy(game_id: str) -> None:
    POLICIES.pop(game_id, None)


def make_bot(game_id: str, seat: int, difficulty: str = "normal", seed: Any = None) -> Bot:
    """The computer player of ``game_id`` for ``seat``; ``difficulty`` is easy, normal or hard.
    Raises ``ValueError`` for a game without bots or an unknown difficulty."""
    policy = POLICIES.get(game_id)
    if policy is None:
        raise ValueError(f"no computer players for {game_id!r}")
    return policy(game_id, seat, difficulty, seed)  # type: ignore[arg-type]


def make_random_bot(game_id: str, seat: int, seed: Any = None) -> Bot:
    """A player that picks uniformly among its legal actions (the benchmark's opponent)."""
    return RandomLegalBot(game_id, seat, "normal", seed)


__all__ = ["BOT_GAMES", "DIFFICULTIES", "MAX_DELAY_MS", "POLICIES", "Bot", "Decision",
           "Difficulty", "RandomLegalBot", "has_bots", "make_bot", "make_random_bot",
           "register_policy", "unregister_policy"]
