"""The games the conformance suite checks, and the random matches it plays them with.

Every registered game, the game that lives only in the tests (tests/game_packages/) among them:
no test names a game, so a new game is checked by registering it. Matches are driven by the
engine's own ``legal_actions`` lists (players, and the system's timers), with the game's default
options and, for each yes/no option, that option turned on.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from app.engine import EngineError, Event, Game, Move, SeededRng, all_games
from app.games import load_all

load_all()

GAMES: list[Game[Any, Any]] = all_games()
"""Every game of the registry."""


def game_id(game: Game[Any, Any]) -> str:
    return game.id


def option_sets(game: Game[Any, Any]) -> list[dict[str, Any]]:
    """The default options; each yes/no option turned on (one at a time); and every number at
    its smallest (the shortest matches: fewest tokens to win, shortest timers)."""
    schema = game.Options.model_json_schema().get("properties", {})
    flags = [name for name, field in schema.items() if field.get("type") == "boolean"]
    smallest = {name: field["minimum"] for name, field in schema.items()
                if field.get("type") == "integer" and "minimum" in field}
    return [{}, *({name: True} for name in flags), *([smallest] if smallest else [])]


def sampled() -> bool:
    """The fast tier (``--fast``, tests/conftest.py) samples: the fewest and the most players and
one seed of each option set; the whole suite plays every count and seed asked for
(docs/testing.md, "The fast tier"). Read when asked: this module may be imported before
    the option is seen."""
    return os.environ.get("PANIC_PARTY_TEST_TIER") == "fast"


def player_counts(game: Game[Any, Any]) -> list[int]:
    if sampled():
        return sorted({game.min_players, game.max_players})
    return sorted({game.min_players, min(game.min_players + 1, game.max_players),
                   game.max_players})


@dataclass
class Step:
    """One move of a random match: the state after it, and what it did."""

    state: Any
    move: Move
    events: list[Event]
    number: int


class RandomMatch:
    """A match played at random from the legal lists: mostly the players (often their first
    listed action, which drives a counter to its burst and a turn to its end), sometimes the
    system's timers (turn limits, windows)."""

    def __init__(self, game: Game[Any, Any], players: int, options: dict[str, Any],
                 seed: str, *, first: float = 0.5) -> None:
        self.game = game
        self.players = players
        self.options = options
        self.seed = seed.encode()
        self.rng = SeededRng(self.seed)
        self.state = game.setup(players, game.parse_options(options), self.rng)
        self.picker = random.Random(seed)
        self.first = first
        self.log: list[Move] = []
        self.clock = 0
        """The match's time in milliseconds (each move's ``at_ms``)."""
        self.late = 0
        """Listed actions not played because the time had moved past them."""

    def choices(self) -> list[tuple[int | None, dict[str, Any]]]:
        game, state = self.game, self.state
        listed = {s: game.legal_actions(state, s) for s in range(self.players)}
        people = [(s, a) for s, actions in listed.items() for a in actions]
        timers = [(None, a) for a in game.legal_actions(state, None)]
        if people and (not timers or self.picker.random() < 0.85):
            if self.picker.random() < self.first:
                return [(s, a) for s, a in people if a == listed[s][0]]
            return people
        return timers

    def pick(self, options: list[tuple[int | None, dict[str, Any]]]
             ) -> tuple[int | None, dict[str, Any]]:
        """The move to play of ``options`` (``choices``): one at random."""
        return self.picker.choice(options)

    def steps(self, limit: int = 400) -> Iterator[Step]:
        """Up to ``limit`` moves. Time passes between them (0.1 to 2 s); a listed action that the
        time made too late (Panic Lab's latency-fair window) is not played: the next choice is
        made at the later time."""
        game = self.game
        for number in range(1, limit + 1):
            if game.outcome(self.state) is not None:
                return
            options = self.choices()
            if not options:
                return
            seat, action = self.pick(options)
            self.clock += self.picker.choice([100, 100, 400, 2000])
            move = Move(seat, game.parse_action(action), self.clock,
                        self.picker.choice([0, 40, 400]))
            try:
                game.validate(self.state, move)
            except EngineError:
                self.late += 1
                continue
            events = game.apply(self.state, move, self.rng)
            self.log.append(move)
            yield Step(self.state, move, events, number)


def matches(game: Game[Any, Any], *, seeds: int = 3, limit: int = 400,
            first: float = 0.5) -> Iterator[RandomMatch]:
    """Random matches of every player count and option set, ``seeds`` each (not yet played;
    one each in the fast tier)."""
    if sampled():
        seeds = 1
    for options in option_sets(game):
        for players in player_counts(game):
            for seed in range(seeds):
                name = f"{game.id}-{players}-{sorted(options.items())}-{seed}"
                yield RandomMatch(game, players, options, name, first=first)
