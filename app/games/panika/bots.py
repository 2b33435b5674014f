"""Panika's computer player (docs/bots.md, "Panika"; the rules: docs/games/panika.md).

What a careful player does, from the seat's view only:

- **The burst number.** It is uniform on 21..30 and the counter has not burst, so it is one of
  the values above the counter, each as likely. ``burst_chance(counter, taps)`` is the chance
  that ``taps`` more taps burst it; below 21 taps are safe.
- **Each play** is scored in cards: cards shed (two for a vegetable pair or a Play Two answer),
  minus the chance of bursting times the penalty (one card from every other player), minus what
  the safe cards spent (specials, 0s, vegetable pairs) would have been worth later when the
  counter is dangerous ("keep Tap! and Reverse for danger"), plus the pressure left on the next
  player (another player's burst gives away one of our cards). A Tap! also counts the others'
  taps and our extra turn.
- **"Last card!"**: called before the play that leaves one card in all (hand and pile); easy
  sometimes forgets (and then sometimes calls late, in the 3 s window).
- Taps are sent one by one, as the rules require.

Difficulties: hard scores every play exactly and takes the best; normal uses the same sums
without the Tap! follow-up and with a little noise; easy judges risk only roughly, does not save
its specials, is noisy and forgets "Last card!" now and then.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.engine.bots import Action, Bot, Frame

from .cards import CARDS
from .rules import BURST_MAX, BURST_MIN, play_effect


SAFE_LIMIT = BURST_MIN - 1
"""The counter never bursts at or below 20."""
UNSAFE_HAND = 0.3
"""About how often a hand of 4 holds no play that taps nothing (32 of the 120 cards are 0s or
specials, and vegetables pair up)."""
AVERAGE_PLAY_TAPS = 2.0
"""About what an unknown hand's play taps (numbers average 1.8, vegetables 5, specials 0)."""


def burst_chance(counter: int, taps: int) -> float:
    """P(the burst number is within ``taps`` taps above ``counter``), knowing it is above it."""
    if taps <= 0:
        return 0.0
    low = max(counter, SAFE_LIMIT)
    possible = BURST_MAX - low
    if possible <= 0:
        return 1.0
    hits = min(counter + taps, BURST_MAX) - low
    return max(0, hits) / possible


def is_safe(cards: list[int]) -> bool:
    """A play that taps nothing: a special, a 0, two identical vegetables."""
    return play_effect(cards)[0] == 0


@dataclass(frozen=True, slots=True)
class Style:
    """How a difficulty plays Panika."""

    reserve: float
    """What a safe card kept for later is worth, in cards, while the counter is safe."""
    pressure: float
    """Weight of the next player's chance to burst on the counter we leave."""
    play_two_gift: float
    """What the extra card a Play Two lets the next player shed is worth to us."""
    tap_follow_up: bool
    """Whether a Tap!'s others' taps and our extra turn are counted."""
    noise: float
    """Standard deviation of the noise added to each play's score (cards)."""
    rough_risk: bool
    """Judge risk by a rule of thumb (the counter above 24 is dangerous) rather than exactly."""
    forget_last_card: float
    """The chance to forget "Last card!" when it is due."""
    late_call: float
    """Having forgotten, the chance to still call within the 3 s window."""


STYLES: dict[str, Style] = {
    "easy": Style(reserve=0.0, pressure=0.0, play_two_gift=0.0, tap_follow_up=False,
                  noise=0.8, rough_risk=True, forget_last_card=0.35, late_call=0.5),
    "normal": Style(reserve=0.35, pressure=1.0, play_two_gift=0.0, tap_follow_up=False,
                    noise=0.3, rough_risk=False, forget_last_card=0.0, late_call=1.0),
    "hard": Style(reserve=0.5, pressure=1.0, play_two_gift=0.5, tap_follow_up=True,
                  noise=0.0, rough_risk=False, forget_last_card=0.0, late_call=1.0),
}

TAP = {"type": "tap"}
LAST_CARD = {"type": "last_card"}


class PanikaBot(Bot):
    game_id = "panika"

    def __init__(self, game_id: str, seat: int, difficulty: str = "normal",
                 seed: Any = None) -> None:
        super().__init__(game_id, seat, difficulty, seed)  # type: ignore[arg-type]
        self.style = STYLES[self.difficulty]
        self._plan: tuple[tuple, list[int]] | None = None
        """The play chosen for this turn (kept while a "Last card!" call goes first)."""
        self._forgot: tuple | None = None
        """The turn whose "Last card!" this bot forgot (easy)."""
        self._late: bool | None = None
        """Having forgotten, whether it calls late in the open window."""

    # --- the decision ------------------------------------------------------------------------
    def choose(self, frame: Frame, legal: list[Action]) -> tuple[Action, float] | None:
        view = frame["view"]
        own = view.get("legal") or {}
        if TAP in legal:
            return TAP, self.think(120, 500)
        if own.get("last_card_due") and LAST_CARD in legal:
            if self._forgot is None:
                return LAST_CARD, self.think(300, 900)
            if self._late is None:  # decided once per window
                self._late = self.random.random() < self.style.late_call
            return (LAST_CARD, self.think(1500, 3000)) if self._late else None
        self._late = None
        plays = [a["cards"] for a in legal if a.get("type") == "play"]
        if not plays:
            return None
        key = _turn_key(view)
        if self._plan is None or self._plan[0] != key or self._plan[1] not in plays:
            self._plan = (key, self.best_play(view, plays))
            self._forgot = None
        cards = self._plan[1]
        me = view["players"][self.seat]
        # The draw keeps hand + pile, so the turn ends with one card (and an empty pile) exactly
        # when the play leaves one card in all (docs/games/panika.md, decision 10).
        leaves_one = len(view["hand"]) + me["pile"] - len(cards) == 1
        if leaves_one and not me["last_card"] and LAST_CARD in legal:
            if self._forgot != key:
                if self.random.random() < self.style.forget_last_card:
                    self._forgot = key
                else:
                    return LAST_CARD, self.think(300, 1000)
        return {"type": "play", "cards": list(cards)}, self.think(700, 2500)

    def best_play(self, view: dict[str, Any], plays: list[list[int]]) -> list[int]:
        scored = [(self.score(view, cards) + self.random.gauss(0, self.style.noise)
                   if self.style.noise else self.score(view, cards), i)
                  for i, cards in enumerate(plays)]
        return plays[max(scored)[1]]

    # --- the sums ----------------------------------------------------------------------------
    def risk(self, counter: int, taps: int) -> float:
        if self.style.rough_risk:
            return 0.0 if counter + taps <= 24 else min(1.0, (counter + taps - 24) / 4)
        return burst_chance(counter, taps)

    def score(self, view: dict[str, Any], cards: list[int]) -> float:
        """The play's expected worth in cards (higher is better)."""
        style = self.style
        players = len(view["players"])
        penalty = players - 1
        counter = view["counter"]
        hand = [c["id"] for c in view["hand"]]
        taps, special = play_effect(cards)
        effect = CARDS[special].special if special is not None else None
        burst = self.risk(counter, taps)
        value = len(cards) - burst * penalty
        after = counter + taps
        rest = [c for c in hand if c not in cards]
        # Safe cards spent while the counter is still safe are wasted: keep them for danger.
        danger_now = min((self.risk(counter, CARDS[c].taps) for c in hand
                          if not is_safe([c])), default=1.0)
        spent = sum(1 for c in cards if is_safe([c]))
        value -= style.reserve * spent * (1.0 - danger_now)
        if style.reserve and not _has_safe(rest):
            value -= style.reserve * 0.5 * (1.0 - danger_now)
        if effect == "tap":
            if style.tap_follow_up:
                others = burst_chance(after, players - 1)
                # Someone else bursts (we give a card away), or we play again at a higher count.
                again = after + players - 1
                next_risk = 0.0 if _has_safe(rest) else min(
                    (burst_chance(again, CARDS[c].taps) for c in rest), default=0.0)
                value += (1 - burst) * (others + (1 - others) * (1 - next_risk * penalty))
            return value
        # The next player faces the counter we leave; if they burst, we give them a card.
        # Play Two makes them tap more, but they also get rid of an extra card.
        next_taps = AVERAGE_PLAY_TAPS * (2 if effect == "play_two" else 1)
        next_burst = UNSAFE_HAND * burst_chance(after, int(round(next_taps)))
        value += style.pressure * (1 - burst) * next_burst
        if effect == "play_two":
            value -= style.play_two_gift * (1 - burst) * (1 - next_burst)
        return value


def _has_safe(cards: list[int]) -> bool:
    if any(is_safe([c]) for c in cards):
        return True
    vegs = [CARDS[c].vegetable for c in cards if CARDS[c].kind == "vegetable"]
    return len(vegs) != len(set(vegs))


def _turn_key(view: dict[str, Any]) -> tuple:
    """What identifies one turn of one player (a "Last card!" call does not change it)."""
    return (view["round"], view["discard_count"], view["turn"], view["play_two"],
            tuple(c["id"] for c in view["hand"]))
