"""Panik Pilze: double-sided mushroom cards, a memory display, action cards, majority scoring."""

from pathlib import Path

from app.engine import GamePackage

from .bots import PanikPilzeBot
from .game import PanikPilzeGame

GAME = PanikPilzeGame()

PACKAGE = GamePackage(
    GAME, PanikPilzeBot, Path(__file__).resolve().parent, position=40,
    quick_options={"turn_timer": True, "turn_seconds": 15},
)
"""What the site takes (the entry point ``panic_party.games`` names it, pyproject.toml)."""

__all__ = ["GAME", "PACKAGE", "PanikPilzeGame"]
