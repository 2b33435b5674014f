"""Panik Pilze: double-sided mushroom cards, a memory display, action cards, majority scoring."""

from .game import PanikPilzeGame

GAME = PanikPilzeGame()

__all__ = ["GAME", "PanikPilzeGame"]
