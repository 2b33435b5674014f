"""Panika: play cards, tap the shared counter, and do not make it burst."""

from .game import PanikaGame

GAME = PanikaGame()

__all__ = ["GAME", "PanikaGame"]
