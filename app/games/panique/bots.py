"""Panique's computer player (docs/bots.md, "Panique"; the rules: docs/games/panique.md).

Most of Panique is dice: the bot rolls whenever a roll is its to make. The choices are where a
player matters, and the bot makes the ones that keep its heir alive and moving. ``heuristic`` is
the rule of thumb:

- **The Butler's offer** (accept: half the time the Slime Pit, space 5, and a lost turn; half the
  time 1 Life Point lost and back to Enter; refuse: a turn lost). Accepting only pays right at the
  start of the house with full health (the Slime Pit is then a step forward), so it refuses
  otherwise.
- **The Ally** (A: forward 2; B: another heir back 2; C: forward 1 and another heir back 1). It
  escapes if two steps reach Leave the House; when the heir furthest along is another player's
  and ahead, it sends that heir back two (B); otherwise it moves forward two (A).
- **Resting** (+1 Life Point, the next turn lost): at 1 or 2 Life Points. A lost turn costs
  about four spaces but also one encounter not met; most matches of two heirs end with the last
  heir alive (docs/games/panique.md, "Simulation"). At 3 Life Points the rest is offered too
  (docs/games/panique.md, decision 9) but gains no Life Point, so the bot keeps going.

The difficulties (docs/bots.md, "Panique": the game is mostly dice, so a difficulty is how often
the bot errs and how well it knows the rare situations):

- **hard** looks the situation up in ``bot_table.HARD_CHOICES``, derived by simulation with
  the real engine (``bench/panique_table.py``): for every choice met in matches of two heuristic
  players, each option was played out many times, and a situation's entry is the option that
  won measurably more often than the heuristic's. Where the table has no entry it plays the
  heuristic. It never errs.
- **normal** plays the heuristic but makes a random choice (uniform over ``legal``) 40% of the
  time, a player who does not always think it through.
- **easy** makes a random choice 80% of the time.
"""

from __future__ import annotations

from typing import Any

from app.engine.bots import Action, Bot, Frame

from .bot_table import HARD_CHOICES

LEAVE = 29
"""Leave the House (docs/games/panique.md, decision 1)."""
SLIME_PIT = 5
ROLL = {"type": "roll"}
REST_AT = 2
"""Rest at this many Life Points or fewer (at 3, where a rest gains nothing, keep going)."""
CARELESS = {"easy": 0.8, "normal": 0.4, "hard": 0.0}
"""How often each difficulty makes a random choice instead of its policy's (docs/bots.md)."""
BUCKET = 5
"""The Ally's situations group the spaces by fives (0-4, 5-9, ..., 25-28)."""

Heirs = list[dict[str, Any]]


def leader(heirs: Heirs, seat: int) -> dict[str, Any] | None:
    """The rival heir furthest along (the one a B or C is aimed at): among the living heirs
    other than ``seat``'s, a non-vampire first (a vampire cannot escape), then the furthest."""
    rivals = [h for h in heirs if h["status"] == "in" and h["seat"] != seat]
    return max(rivals, key=lambda h: (not h.get("vampire", False), h["space"]), default=None)


def heuristic(heirs: Heirs, seat: int, purpose: str) -> tuple[str, int | None]:
    """The rule of thumb (module docstring): the option and, for the Ally's B, its target."""
    me = heirs[seat]
    if purpose == "butler":
        return ("accept" if me["space"] < SLIME_PIT - 2 and me["life"] >= 3 else "decline"), None
    if purpose == "rest":
        return ("rest" if me["life"] <= REST_AT else "stay"), None
    if purpose == "ally":
        if me["space"] + 2 >= LEAVE:
            return "A", None
        rivals = [h for h in heirs if h["status"] == "in" and h["seat"] != seat]
        ahead = max(rivals, key=lambda h: h["space"], default=None)
        if ahead is not None and ahead["space"] > me["space"]:
            return "B", ahead["seat"]
        return "A", None
    raise ValueError(f"not a choice: {purpose!r}")


def situation(heirs: Heirs, seat: int, purpose: str, turn: int | None) -> str | None:
    """The key of ``HARD_CHOICES`` for this choice, or None when it has no situation (an Ally
    with no other heir in the house offers only A).

    What each choice depends on: the Butler, the heir's Life Points and space (exact below 8,
    where the Slime Pit may be a step forward); a rest, the Life Points of the heir and of the
    leading rival, and whether the heir resting is the active one (the rival moves next) or not;
    the Ally, where the two heirs are, by fives. A vampire heir (it dies at Leave the House) or a
    vampire rival (it cannot escape) changes what the moves are worth: those are their own
    situations, by Life Points only (they are rare)."""
    me = heirs[seat]
    rival = leader(heirs, seat)
    vamp = "V" if me.get("vampire") else ""
    if purpose == "butler":
        if vamp:
            return f"butler/V/L{me['life']}"
        where = f"{me['space']}" if me["space"] < 8 else "8+"
        return f"butler/L{me['life']}/s{where}"
    if purpose == "rest":
        other = rival["life"] if rival is not None else 0
        if vamp:
            return f"rest/V/L{me['life']}"
        return f"rest/L{me['life']}/o{other}/{'active' if turn == seat else 'other'}"
    if purpose == "ally":
        if rival is None:
            return None
        if vamp:
            return "ally/V"
        if rival.get("vampire"):
            return "ally/oV"
        mine = min(me["space"] // BUCKET, 5)
        theirs = min(rival["space"] // BUCKET, 5)
        return f"ally/m{mine}/o{theirs}"
    return None


def hard_choice(heirs: Heirs, seat: int, purpose: str, turn: int | None
                ) -> tuple[str, int | None]:
    """The table's option where it has one for this situation, else the heuristic's. A B or C
    from the table is aimed at the leading rival."""
    key = situation(heirs, seat, purpose, turn)
    entry = HARD_CHOICES.get(key) if key is not None else None
    if entry is None:
        return heuristic(heirs, seat, purpose)
    option = entry[0]
    if option in ("B", "C"):
        rival = leader(heirs, seat)
        assert rival is not None  # an Ally situation exists only with a rival in the house
        return option, rival["seat"]
    return option, None


class PaniqueBot(Bot):
    game_id = "panique"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.careless = CARELESS[self.difficulty]
        """How often this bot makes a random choice (its difficulty's; bench/panique_table.py
        sets it to 0 to measure the table against the heuristic alone)."""

    def choose(self, frame: Frame, legal: list[Action]) -> tuple[Action, float] | None:
        if ROLL in legal:
            return ROLL, self.think(400, 1500)
        view = frame["view"]
        pending = view.get("pending") or {}
        if self.random.random() < self.careless:
            return self.random.choice(legal), self.think(800, 2500)
        return self.choice(view, pending.get("purpose"), legal), self.think(1200, 3000)

    def choice(self, view: dict[str, Any], purpose: str | None, legal: list[Action]) -> Action:
        """The policy's choice as one entry of ``legal`` (an option it cannot find there, which
        the rules should never allow, falls back to the first legal action)."""
        if purpose not in ("butler", "ally", "rest"):
            return self.random.choice(legal)
        heirs = view["heirs"]
        if self.difficulty == "hard":
            option, target = hard_choice(heirs, self.seat, purpose, view.get("turn"))
        else:
            option, target = heuristic(heirs, self.seat, purpose)
        wanted: Action = {"type": "choose", "option": option}
        if target is not None:
            wanted["target"] = target
        if wanted in legal:
            return wanted
        fallback = {"type": "choose", "option": "A"}
        return fallback if fallback in legal else legal[0]
