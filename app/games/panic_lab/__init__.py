"""Panic Lab: a real-time race to find the escaped amoeba on a ring of tiles."""

from .game import PanicLabGame
from .solver import SearchNeverEnds, Solution, Step, solve

GAME = PanicLabGame()

__all__ = ["GAME", "PanicLabGame", "SearchNeverEnds", "Solution", "Step", "solve"]
