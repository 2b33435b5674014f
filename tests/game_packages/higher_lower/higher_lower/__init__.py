"""Higher or Lower: a game that lives only in the tests, found through its entry point like any
other (docs/adding-a-game.md)."""

from pathlib import Path

from app.engine import GamePackage

from .bots import HigherLowerBot
from .game import HigherLowerGame

GAME = HigherLowerGame()

PACKAGE = GamePackage(GAME, HigherLowerBot, Path(__file__).resolve().parent, position=90,
                      quick_options={"turn_seconds": 3})
"""What the site takes (its entry point, pyproject.toml)."""

__all__ = ["GAME", "PACKAGE", "HigherLowerGame"]
