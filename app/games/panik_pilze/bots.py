"""Panik Pilze's computer player (docs/bots.md, "Panik Pilze"; the rules:
docs/games/panik-pilze.md).

- **Memory.** A display card's down side is public for one moment: the transient ``lay`` event
  of the move that laid it out (``was``: the side everyone saw on the pile). A card turned over
  shows its old up side as its new down side. The bot keeps both, per display number; easy
  forgets some (each with a chance).
- **Each turn** every legal action is scored by the baskets it leaves: mushrooms the action takes
  (visible ones; a turned card whose down side it remembers; an unknown down side or a card still
  to be laid out counts by its chance, about one in four: the pad with one more mushroom weighs
  that much), a steal's swing, then the scoring pad on those baskets: our total minus the best other total, plus a little for every
  mushroom of a type whose majority is still open (the cards of that type not yet in any basket
  could still change it). A Mushroom Party or Steal card is worth keeping for a big moment, and a
  swap is the fallback when nothing gains.
- Easy forgets and is noisy; normal remembers everything with a little noise; hard takes the
  best action and also counts what its turn leaves in the display for the next player.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from app.engine.bots import Action, Bot, Frame

from .cards import ACTION_CARDS, MUSHROOM_COPIES, MUSHROOMS
from .scoring import score_baskets, totals


CARDS_PER_TYPE = MUSHROOM_COPIES * (len(MUSHROOMS) - 1)
"""Each type is on one side of 24 cards (it pairs with each other type 6 times)."""
UNKNOWN_SIDE = 1 / (len(MUSHROOMS) - 1)
"""The chance that an unseen side is a given type (it differs from the side we see)."""
OPEN_MAJORITY = 0.25
CLOSED_MAJORITY = 0.05
FLEXIBLE_CARD = 0.4
"""What a Party or Steal card in hand is worth beyond its use now."""
SWAP_VALUE = 0.1


@dataclass(frozen=True, slots=True)
class Habits:
    forget: float
    """The chance to forget a down side as it is seen."""
    noise: float
    next_player: float
    """Weight of what the display left behind offers the next player."""


HABITS = {
    "easy": Habits(forget=0.5, noise=0.6, next_player=0.0),
    "normal": Habits(forget=0.0, noise=0.3, next_player=0.0),
    "hard": Habits(forget=0.0, noise=0.0, next_player=0.5),
}


class PanikPilzeBot(Bot):
    game_id = "panik_pilze"

    def __init__(self, game_id: str, seat: int, difficulty: str = "normal",
                 seed: Any = None) -> None:
        super().__init__(game_id, seat, difficulty, seed)  # type: ignore[arg-type]
        self.habits = HABITS[self.difficulty]
        self.down: dict[int, str] = {}
        """Display number -> the down side this bot remembers."""
        self._display: dict[int, str] = {}

    # --- memory ------------------------------------------------------------------------------
    def observe(self, frame: Frame) -> None:
        for event in frame.get("events") or []:
            data = event.get("data") or {}
            if event.get("kind") == "lay" and "was" in data:
                self._remember(data["id"], data["was"])
            elif event.get("kind") == "flip" and data.get("id") in self._display:
                self._remember(data["id"], self._display[data["id"]])
        display = frame["view"].get("display") or []
        for card in display:  # the memory aid shows every down side
            if "down" in card:
                self.down[card["id"]] = card["down"]
        self._display = {card["id"]: card["up"] for card in display}
        self.down = {i: side for i, side in self.down.items() if i in self._display}

    def _remember(self, display_id: int, side: str) -> None:
        if self.random.random() < self.habits.forget:
            self.down.pop(display_id, None)
        else:
            self.down[display_id] = side

    # --- the decision ------------------------------------------------------------------------
    def choose(self, frame: Frame, legal: list[Action]) -> tuple[Action, float] | None:
        view = frame["view"]
        noise = self.habits.noise
        best = max(range(len(legal)), key=lambda i: self.value(view, legal[i])
                   + (self.random.gauss(0, noise) if noise else 0.0))
        return legal[best], self.think(1200, 3000)

    def value(self, view: dict[str, Any], action: Action) -> float:
        """The expected worth of ``action`` in points of lead."""
        counts = [dict(p["basket"]) for p in view["players"]]
        display = view["display"]
        kind = action["type"]
        bonus = 0.0
        left = list(display)
        if kind == "collect":
            card = ACTION_CARDS[action["card"]]
            kind_taken = card.mushroom
            assert kind_taken is not None  # a collect card names its mushroom
            if card.action == "draw":
                gain, left = self._after_draw(view, kind_taken, card.count)
            else:
                gain, left = self._after_turn(display, kind_taken, action["flip"])
            whole = math.floor(gain)
            chance = gain - whole  # one more with this chance: weigh both pads
            counts[self.seat][kind_taken] += whole
            if chance > 0:
                more = [dict(c) for c in counts]
                more[self.seat][kind_taken] += 1
                bonus += chance * (self.standing(more) - self.standing(counts))
        elif kind == "party":
            taken = action["mushroom"]
            counts[self.seat][taken] += sum(1 for c in display if c["up"] == taken)
            left = [c for c in display if c["up"] != taken]
            bonus -= FLEXIBLE_CARD
        elif kind == "steal":
            counts[self.seat][action["mushroom"]] += 1
            counts[action["victim"]][action["mushroom"]] -= 1
            bonus -= FLEXIBLE_CARD
        else:
            bonus += SWAP_VALUE * len(action["cards"])
        if self.habits.next_player:
            bonus -= self.habits.next_player * _best_party(left) * 0.5
        return self.standing(counts) + bonus

    def _after_draw(self, view: dict[str, Any], taken: str, count: int
                    ) -> tuple[float, list[dict[str, Any]]]:
        """Mushrooms a Draw card takes: the visible ones plus the chance of each card laid out
        (the pile's top shows the side that goes down; the card's other side comes up)."""
        display = view["display"]
        gain = float(sum(1 for c in display if c["up"] == taken))
        pile = view["pile"]["count"]
        if pile >= 1:
            gain += 0.0 if view["pile"]["top"] == taken else UNKNOWN_SIDE
        if count == 2 and pile >= 2:
            gain += 1 / len(MUSHROOMS)
        return gain, [c for c in display if c["up"] != taken]

    def _after_turn(self, display: list[dict[str, Any]], taken: str, flip: list[int]
                    ) -> tuple[float, list[dict[str, Any]]]:
        gain = 0.0
        left = []
        for card in display:
            if card["id"] not in flip:
                if card["up"] == taken:
                    gain += 1
                else:
                    left.append(card)
                continue
            if card["up"] == taken:
                continue  # turned away from the type we take
            known = self.down.get(card["id"])
            if known is None:
                gain += UNKNOWN_SIDE
            elif known == taken:
                gain += 1
            else:
                left.append({"id": card["id"], "up": known})
        return gain, left

    def standing(self, counts: list[dict[str, int]]) -> float:
        """Our total minus the best other total on these baskets, plus a little for each
        mushroom of a type whose majority is still open."""
        players = len(counts)
        pad = totals(score_baskets(counts), players)
        others = [pad[s] for s in range(players) if s != self.seat]
        value: float = pad[self.seat] - (max(others) if others else 0)
        for m in MUSHROOMS:
            mine = counts[self.seat][m]
            rival = max((counts[s][m] for s in range(players) if s != self.seat), default=0)
            still = CARDS_PER_TYPE - sum(c[m] for c in counts)
            contested = abs(mine - rival) <= still
            value += (OPEN_MAJORITY if contested else CLOSED_MAJORITY) * mine
        return value


def _best_party(display: list[dict[str, Any]]) -> int:
    """The most cards of one type a display offers."""
    ups = [c["up"] for c in display]
    return max((ups.count(m) for m in set(ups)), default=0)
