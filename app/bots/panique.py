"""Panique's computer player (docs/bots.md, "Panique"; the rules: docs/games/panique.md).

Most of Panique is dice: the bot rolls whenever a roll is its to make. The choices are where a
player matters, and the bot makes the ones that keep its heir alive and moving:

- **The Butler's offer** (accept: half the time the Slime Pit, space 5, and a lost turn; half the
  time 1 Life Point lost and back to Enter; refuse: a turn lost). Accepting only pays right at the
  start of the house with full health (the Slime Pit is then a step forward), so the bot refuses
  otherwise.
- **The Ally** (A: forward 2; B: another heir back 2; C: forward 1 and another heir back 1). It
  escapes if two steps reach Leave the House; when the heir furthest along is another player's
  and ahead, it sends that heir back two (B); otherwise it moves forward two (A).
- **Resting** (+1 Life Point, the next turn lost): at 1 or 2 Life Points. A lost turn costs
  about four spaces, a Life Point is one encounter survived; most matches of two heirs end with
  the last heir alive (docs/games/panique.md, "Simulation"), and measured over thousands of
  matches resting at 2 wins more often than resting only at 1 (docs/bots.md).

Easy makes a random choice now and then (a third of the time). Hard plays as normal: the game
has three kinds of choice and normal already makes the best we measured.
"""

from __future__ import annotations

from typing import Any

from .base import Action, Bot, Frame

LEAVE = 29
"""Leave the House (docs/games/panique.md, decision 1)."""
SLIME_PIT = 5
ROLL = {"type": "roll"}
REST_AT = 2
"""Rest at this many Life Points or fewer."""
CARELESS = {"easy": 1 / 3, "normal": 0.0, "hard": 0.0}


class PaniqueBot(Bot):
    game_id = "panique"
    hard_plays_as_normal = True

    def choose(self, frame: Frame, legal: list[Action]) -> tuple[Action, float] | None:
        if ROLL in legal:
            return ROLL, self.think(400, 1500)
        view = frame["view"]
        pending = view.get("pending") or {}
        if self.random.random() < CARELESS[self.difficulty]:
            return self.random.choice(legal), self.think(800, 2500)
        choice = self.choice(view, pending.get("purpose"), legal)
        return choice, self.think(1200, 3000)

    def choice(self, view: dict[str, Any], purpose: str | None, legal: list[Action]) -> Action:
        heirs = view["heirs"]
        me = heirs[self.seat]
        living = [h for h in heirs if h["status"] == "in"]

        def option(name: str, target: int | None = None) -> Action | None:
            wanted = {"type": "choose", "option": name}
            if target is not None:
                wanted["target"] = target
            return wanted if wanted in legal else None

        if purpose == "butler":
            early = me["space"] < SLIME_PIT - 2 and me["life"] >= 3
            return option("accept" if early else "decline") or legal[0]
        if purpose == "ally":
            if me["space"] + 2 >= LEAVE:
                return option("A") or legal[0]
            rivals = [h for h in living if h["seat"] != self.seat]
            leader = max(rivals, key=lambda h: h["space"], default=None)
            if leader is not None and leader["space"] > me["space"]:
                return option("B", leader["seat"]) or option("A") or legal[0]
            return option("A") or legal[0]
        if purpose == "rest":
            return option("rest" if me["life"] <= REST_AT else "stay") or legal[0]
        return self.random.choice(legal)
