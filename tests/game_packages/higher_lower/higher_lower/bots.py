"""Higher or Lower's computer player: it counts the cards not yet seen above and below the
current one (all from its seat's view) and says what is likelier; easy guesses at random now
and then, normal sometimes, hard never."""

from __future__ import annotations

from app.engine.bots import Action, Bot, Frame

from .game import CARDS

MISTAKES = {"easy": 0.4, "normal": 0.15, "hard": 0.0}
"""How often each difficulty says the less likely."""


def likelier(current: int, seen: list[int]) -> str:
    """"higher" when more of the unseen cards are above ``current`` (ties: higher)."""
    unseen = set(CARDS) - set(seen)
    above = sum(1 for card in unseen if card > current)
    return "higher" if above * 2 >= len(unseen) else "lower"


class HigherLowerBot(Bot):
    def choose(self, frame: Frame, legal: list[Action]) -> tuple[Action, float] | None:
        guesses = [a for a in legal if a["type"] == "guess"]
        if not guesses:
            return None
        view = frame["view"]
        best = likelier(view["current"], view["seen"])
        if self.random.random() < MISTAKES[self.difficulty]:
            best = "lower" if best == "higher" else "higher"
        action = next(a for a in guesses if a["guess"] == best)
        return action, self.think(400, 1500)
