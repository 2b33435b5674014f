"""Panic Party: a hosted party-game website with a server that referees every move."""
