"""The seam between a computer player and the room (docs/bots.md, "The seam").

It is part of what a game hands the site, beside its rules (``GamePackage.bots``, as
boardgame.io's ``ai.enumerate`` is part of its game object), so it lives with the engine: a
game's policy imports it from here and never from the site's ``app.bots``.

A bot is an ordinary seat. It sees exactly what a seated client sees: the state frames the room
sends to that seat, i.e. ``{"type": "state", "version", "seat", "view", "legal", "active",
"timers", "events"}`` where ``view`` is ``game.view(state, seat)``, ``legal`` is
``game.legal_actions(state, seat)``, ``timers`` the visible timers with ``remaining_ms`` and
``events`` the event frames of the last move (``{"text", "seat", "kind", "data"?}``). It never
receives the state.

The room's contract with a bot:

- every state frame for the bot's seat goes to ``observe(frame)`` first (in order, none
  skipped), then to ``decide(frame)``;
- ``decide`` returns a ``Decision`` (one action of ``frame["legal"]``, exactly as listed, and a
  thinking time) or ``None`` (nothing to do now);
- a bot has at most one pending decision: each ``decide`` replaces the pending one (``None``
  cancels it). So an action always rests on the latest frame, and a bot that wants to keep a
  plan across frames (a claim in a race while others claim) returns it again with the time left.
- a bot only reads a frame: it changes none of its objects, then or later (it copies what it
  wants to change). The room hands it the frame as a value that shares its objects with the
  other seats' frames, the game's views and module constants (app/realtime/room/frames.py,
  ``to_bot``): decoding a copy for each bot seat cost more than the rest of its frame;
  tests/bots/test_frames_unchanged.py holds every bot to this;
- when the thinking time has passed the room puts the action in its queue like a player's
  action. Thinking times are bounded (``MAX_DELAY_MS``; a race's reaction times by the time the
  rules give the race).

A policy offers the levels its class lists (``levels``: the engine's three unless it says
otherwise; ``normal`` always, the stand-in's), and its game's texts say what each level means,
its speed or its skill, where the host picks one (``game.<id>.bots.<level>``,
docs/decisions/0059).

Bots use their own ``random.Random(seed)``: never the global generator, never the match's
``SeededRng`` (a bot must not change what a replay draws).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

Difficulty = Literal["easy", "normal", "hard"]
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "normal", "hard")

MAX_DELAY_MS = 3000
"""The longest thinking time for an ordinary move (a card, a tap, a call)."""

Frame = dict[str, Any]
Action = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Decision:
    """What a bot will do: ``action`` (one entry of the frame's ``legal`` list) after
    ``delay_ms`` milliseconds of thinking."""

    action: Action
    delay_ms: int


class Bot(ABC):
    """A computer player for one seat of one game. Subclasses implement ``choose``."""

    game_id: str
    levels: ClassVar[tuple[Difficulty, ...]] = DIFFICULTIES
    """The levels this policy plays, easiest first, in the order the host's menu lists them."""

    def __init__(self, game_id: str, seat: int, difficulty: Difficulty = "normal",
                 seed: int | str | bytes | None = None) -> None:
        if difficulty not in self.levels:
            raise ValueError(f"unknown difficulty {difficulty!r}")
        self.game_id = game_id
        self.seat = seat
        self.difficulty: Difficulty = difficulty
        self.random = random.Random(seed)

    def observe(self, frame: Frame) -> None:
        """Every state frame for this seat, in order. The default remembers nothing."""

    def decide(self, frame: Frame) -> Decision | None:
        """The action to take now (after a thinking time), or None."""
        legal = frame.get("legal") or []
        if not legal:
            return None
        choice = self.choose(frame, legal)
        if choice is None:
            return None
        action, delay_ms = choice
        if action not in legal:  # a policy bug must never reach the room as an illegal action
            raise AssertionError(f"{type(self).__name__} chose {action!r}, not in legal")
        return Decision(action, max(0, int(delay_ms)))

    @abstractmethod
    def choose(self, frame: Frame, legal: list[Action]) -> tuple[Action, float] | None:
        """The policy: an action of ``legal`` and a thinking time in ms, or None."""

    # --- helpers for policies --------------------------------------------------------------
    def think(self, low_ms: float, high_ms: float) -> int:
        """A human-like thinking time: log-uniform between the bounds, at most MAX_DELAY_MS."""
        low, high = max(1.0, low_ms), max(1.0, high_ms)
        value = low * (high / low) ** self.random.random()
        return int(min(value, MAX_DELAY_MS))


def level_text_key(game_id: str, level: str) -> str:
    """The key of a level's description in its game's texts (what the host's menu says)."""
    return f"game.{game_id}.bots.{level}"


class RandomLegalBot(Bot):
    """Uniform over ``legal``: the benchmark's opponent (and a baseline, not a policy)."""

    def choose(self, frame: Frame, legal: list[Action]) -> tuple[Action, float] | None:
        return self.random.choice(legal), self.think(200, 1500)
