"""Higher or Lower's rules (README.md beside the package): a pure engine behind the site's one
interface, as every game is (docs/adding-a-game.md)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, RootModel

from app.engine import (
    ActionModel, Event, Game, GameOptions, IllegalAction, Move, NotYourTurn, Outcome, SeededRng,
    Timer, ranks_from_scores,
)

CARDS = range(1, 51)
DEFAULT_GUESS = "higher"
"""What the turn timer says for a player who runs out of time."""


@dataclass(slots=True)
class HigherLowerState:
    players: int
    turn_seconds: int
    deck: list[int]
    """The face-down cards, the next one last: the only secret."""
    seen: list[int]
    """Every card turned so far, in order; the last is the current card."""
    lives: list[int]
    points: list[int]
    turn: int = 0
    serial: int = 0
    last: dict[str, Any] | None = None
    """The last guess: ``{"seat", "guess", "card", "right"}``."""
    over: bool = False


class GuessAction(ActionModel):
    type: Literal["guess"]
    guess: Literal["higher", "lower"]


class TimeoutAction(ActionModel):
    type: Literal["timeout"]


class HigherLowerAction(RootModel[Annotated[GuessAction | TimeoutAction,
                                            Field(discriminator="type")]]):
    pass


class HigherLowerOptions(GameOptions):
    lives: int = Field(3, ge=1, le=5, title="Lives",
                       description="Wrong guesses a player may make before they are out.")
    turn_seconds: int = Field(15, ge=2, le=60, title="Seconds per turn",
                              description="Seconds to guess before the timer guesses higher.")


class HigherLowerEnding(StrEnum):
    """How a match ends: the deck ran out (its bound), or one player or none is left."""

    DECK_EMPTY = "deck_empty"
    LAST_PLAYER = "last_player"


class HigherLowerGame(Game[HigherLowerState, HigherLowerOptions]):
    id = "higher_lower"
    title = "Higher or Lower"
    pitch = "Is the next card higher or lower? Guess right, keep your lives."
    min_players = 2
    max_players = 6
    Options = HigherLowerOptions
    Action = HigherLowerAction
    Ending = HigherLowerEnding
    system_actions = frozenset({"timeout"})
    max_moves = len(CARDS) - 1
    """Every move turns a card, and one is face up from the start: at most 49 moves."""

    def setup(self, players: int, options: HigherLowerOptions,
              rng: SeededRng) -> HigherLowerState:
        deck = list(CARDS)
        rng.shuffle(deck, step="deck")
        first = deck.pop()
        return HigherLowerState(players, options.turn_seconds, deck, [first],
                                [options.lives] * players, [0] * players)

    def check(self, state: HigherLowerState, move: Move) -> None:
        if state.over:
            raise IllegalAction("the match is over")
        if move.action.type == "guess" and move.seat != state.turn:
            raise NotYourTurn("wait for your turn")

    def apply(self, state: HigherLowerState, move: Move, rng: SeededRng) -> list[Event]:
        seat = state.turn
        events = []
        guess = DEFAULT_GUESS
        if move.action.type == "timeout":
            events.append(Event("{seat:%d} ran out of time" % seat, seat, "timeout"))
        else:
            guess = move.action.guess
        current, card = state.seen[-1], state.deck.pop()
        right = card > current if guess == "higher" else card < current
        state.seen.append(card)
        state.serial += 1
        state.last = {"seat": seat, "guess": guess, "card": card, "right": right}
        data = {"guess": guess, "card": card}
        if right:
            state.points[seat] += 1
            events.append(Event("{seat:%d} said %s: %d, right" % (seat, guess, card), seat,
                                "guess", {"msg": "right", **data}))
        else:
            state.lives[seat] -= 1
            events.append(Event("{seat:%d} said %s: %d, a life lost" % (seat, guess, card), seat,
                                "guess", {"msg": "wrong", **data}))
            if state.lives[seat] == 0:
                events.append(Event("{seat:%d} is out" % seat, seat, "out"))
        alive = [s for s in range(state.players) if state.lives[s] > 0]
        if not state.deck or len(alive) <= 1:
            state.over = True
            msg = "deck_empty" if not state.deck else "last_one"
            text = "The deck is empty" if not state.deck else "One player is left"
            events.append(Event(text, None, "over", {"msg": msg}))
        else:
            state.turn = next(s for s in [*range(seat + 1, state.players), *range(seat + 1)]
                              if state.lives[s] > 0)
        return events

    def view(self, state: HigherLowerState, seat: int | None) -> dict[str, Any]:
        return {
            "current": state.seen[-1],
            "seen": list(state.seen),
            "deck": len(state.deck),
            "lives": list(state.lives),
            "points": list(state.points),
            "turn": None if state.over else state.turn,
            "last": dict(state.last) if state.last else None,
            "you": seat,
        }

    def revealed_view(self, state: HigherLowerState) -> dict[str, Any]:
        """The public view and the deck's order (the next card last)."""
        return {**self.view(state, None), "revealed": {"deck": list(state.deck)}}

    def outcome(self, state: HigherLowerState) -> Outcome | None:
        if not state.over:
            return None
        best = max(state.points)
        winners = [s for s in range(state.players) if state.points[s] == best]
        ending = HigherLowerEnding.DECK_EMPTY if not state.deck else \
            HigherLowerEnding.LAST_PLAYER
        return Outcome(list(state.points), ranks_from_scores(state.points), winners, ending,
                       {"n": best})

    def timers(self, state: HigherLowerState) -> list[Timer]:
        if state.over:
            return []
        return [Timer(f"turn:{state.serial}", state.turn_seconds, {"type": "timeout"}, "Turn",
                      (state.turn,))]

    def active_seats(self, state: HigherLowerState) -> list[int]:
        return [] if state.over else [state.turn]

    def legal_actions(self, state: HigherLowerState, seat: int | None) -> list[dict[str, Any]]:
        if state.over:
            return []
        if seat is None:
            return [{"type": "timeout"}]
        if seat != state.turn:
            return []
        return [{"type": "guess", "guess": "higher"}, {"type": "guess", "guess": "lower"}]

    def hidden_variant(self, state: HigherLowerState, seat: int | None,
                       rng: SeededRng) -> HigherLowerState:
        """The same match with the face-down cards in another order."""
        deck = list(state.deck)
        rng.shuffle(deck)
        return HigherLowerState(state.players, state.turn_seconds, deck, list(state.seen),
                                list(state.lives), list(state.points), state.turn, state.serial,
                                dict(state.last) if state.last else None, state.over)
