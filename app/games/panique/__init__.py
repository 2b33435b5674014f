"""Panique: heirs race through a haunted house on the Circle of Life and survive the Lethal
Encounter Tables."""

from pathlib import Path

from app.engine import GamePackage

from .bots import PaniqueBot
from .game import PaniqueGame

GAME = PaniqueGame()

PACKAGE = GamePackage(
    GAME, PaniqueBot, Path(__file__).resolve().parent, position=50,
    quick_options={"choice_seconds": 5},
)
"""What the site takes (the entry point ``panic_party.games`` names it, pyproject.toml)."""

__all__ = ["GAME", "PACKAGE", "PaniqueGame"]
