"""The stand-alone Panika counter, for people playing with the physical cards."""

from .game import PanikaCounterGame

GAME = PanikaCounterGame()

__all__ = ["GAME", "PanikaCounterGame"]
