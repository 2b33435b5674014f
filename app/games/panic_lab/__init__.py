"""Panic Lab: a real-time race to find the escaped amoeba on a ring of tiles."""

from pathlib import Path

from app.engine import GamePackage

from .bots import PanicLabBot
from .game import PanicLabGame
from .solver import SearchNeverEnds, Solution, Step, solve

GAME = PanicLabGame()

PACKAGE = GamePackage(
    GAME, PanicLabBot, Path(__file__).resolve().parent, position=30,
    quick_options={"target_tokens": 2, "search_seconds": 15},
)
"""What the site takes (the entry point ``panic_party.games`` names it, pyproject.toml)."""

__all__ = ["GAME", "PACKAGE", "PanicLabGame", "SearchNeverEnds", "Solution", "Step", "solve"]
