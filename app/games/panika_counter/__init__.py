"""The stand-alone Panika counter, for people playing with the physical cards."""

from pathlib import Path

from app.engine import GamePackage

from .game import PanikaCounterGame

GAME = PanikaCounterGame()

PACKAGE = GamePackage(
    GAME, None, Path(__file__).resolve().parent, position=20,
)
"""What the site takes (the entry point ``panic_party.games`` names it, pyproject.toml)."""

__all__ = ["GAME", "PACKAGE", "PanikaCounterGame"]
