"""The shared engine interface, its errors, seeded randomness, the bot seam, a game's package
object and the game registry."""

from .errors import EngineError, IllegalAction, MalformedAction, NotYourTurn
from .interface import (
    SYSTEM, ActionModel, Event, Game, GameOptions, Move, Outcome, ReplayStep, Timer,
    ranks_from_scores,
)
from .movelog import LogEntry, MoveLog, moves_json
from .package import ENTRY_POINT_GROUP, GamePackage
from .registry import all_games, all_packages, get_game, get_package, register, register_package
from .rng import SeededRng, new_seed, seed_commitment

__all__ = [
    "ENTRY_POINT_GROUP", "SYSTEM", "ActionModel", "EngineError", "Event", "Game", "GameOptions",
    "GamePackage", "IllegalAction", "LogEntry", "MalformedAction", "Move", "MoveLog",
    "NotYourTurn", "Outcome", "ReplayStep", "SeededRng", "Timer", "all_games", "all_packages", "get_game",
    "get_package", "new_seed", "moves_json", "ranks_from_scores", "register",
    "register_package", "seed_commitment",
]
