"""Panique: heirs race through a haunted house on the Circle of Life and survive the Lethal
Encounter Tables."""

from .game import PaniqueGame

GAME = PaniqueGame()

__all__ = ["GAME", "PaniqueGame"]
