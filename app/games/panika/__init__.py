"""Panika: play cards, tap the shared counter, and do not make it burst."""

from pathlib import Path

from app.engine import GamePackage

from .bots import PanikaBot
from .game import PanikaGame

GAME = PanikaGame()

PACKAGE = GamePackage(
    GAME, PanikaBot, Path(__file__).resolve().parent, position=10,
    quick_options={"turn_seconds": 10},
)
"""What the site takes (the entry point ``panic_party.games`` names it, pyproject.toml)."""

__all__ = ["GAME", "PACKAGE", "PanikaGame"]
