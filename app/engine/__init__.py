"""The shared engine interface, its errors, seeded randomness and the game registry."""

from .errors import EngineError, IllegalAction, MalformedAction, NotYourTurn
from .interface import (
    SYSTEM, ActionModel, Event, Game, GameOptions, Move, Outcome, Timer, ranks_from_scores,
)
from .movelog import LogEntry, MoveLog, moves_json
from .registry import all_games, get_game, register
from .rng import SeededRng, new_seed, seed_commitment

__all__ = [
    "SYSTEM", "ActionModel", "EngineError", "Event", "Game", "GameOptions", "IllegalAction", "LogEntry", "MalformedAction", "Move",
    "MoveLog",
    "NotYourTurn", "Outcome", "SeededRng", "Timer", "all_games", "get_game", "new_seed",
    "moves_json", "ranks_from_scores", "register", "seed_commitment",
]
