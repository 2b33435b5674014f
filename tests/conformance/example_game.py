"""High Card: a tiny game that lives only in the tests, to show that a new game needs nothing
but its package to pass the conformance suite, over the real WebSocket too.

2 to 4 players. Twelve cards (1 to 12) are shuffled; each player is dealt three, face down, and
the rest is the draw pile. Players play one card each in turn; when everyone has played, the
highest card takes the trick (a point), and everyone draws a card while the pile has one. The
trick's winner leads the next one. When the hands are empty the match is over: most points wins,
ties share. A turn timer (``turn_seconds``) plays the turn's lowest card for a player who runs
out of time (the system's ``timeout``). Hidden: every hand but your own, and the pile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field, RootModel

from app.engine import (
    ActionModel, Event, Game, GameOptions, IllegalAction, Move, NotYourTurn, Outcome, SeededRng,
    Timer, ranks_from_scores,
)

HAND = 3
CARDS = list(range(1, 13))

CATALOG = {
    "en": {
        "event.high_card.play": "{seat:seat} plays {card}",
        "event.high_card.trick": "{seat:seat} takes the trick",
        "event.high_card.timeout": "{seat:seat} ran out of time",
        "event.high_card.over": "The match is over",
    },
    "de": {
        "event.high_card.play": "{seat:seat} spielt {card}",
        "event.high_card.trick": "{seat:seat} gewinnt den Stich",
        "event.high_card.timeout": "{seat:seat} hat keine Zeit mehr",
        "event.high_card.over": "Das Spiel ist aus",
    },
}
"""The game's event wordings, as a new game adds them to app/i18n/<lang>.json."""


@dataclass(slots=True)
class HighCardState:
    players: int
    turn_seconds: int
    hands: list[list[int]]
    pile: list[int]
    lead: int = 0
    turn: int = 0
    table: list[tuple[int, int]] = field(default_factory=list)
    """(seat, card) of the trick so far."""
    points: list[int] = field(default_factory=list)
    serial: int = 0
    over: bool = False


class PlayAction(ActionModel):
    type: Literal["play"]
    card: Annotated[int, Field(ge=1, le=12)]


class TimeoutAction(ActionModel):
    type: Literal["timeout"]


class HighCardAction(RootModel[Annotated[PlayAction | TimeoutAction, Field(discriminator="type")]]):
    pass


class HighCardOptions(GameOptions):
    turn_seconds: int = Field(10, ge=1, le=60, description="Seconds per turn.")


class HighCardGame(Game[HighCardState, HighCardOptions]):
    id = "high_card"
    title = "High Card"
    pitch = "Play your highest card at the right moment."
    min_players = 2
    max_players = 4
    Options = HighCardOptions
    Action = HighCardAction
    system_actions = frozenset({"timeout"})
    max_moves = len(CARDS)
    """Every move plays a card (a timeout plays the lowest): twelve cards, twelve moves."""

    def setup(self, players: int, options: HighCardOptions, rng: SeededRng) -> HighCardState:
        deck = list(CARDS)
        rng.shuffle(deck)
        hands = [sorted(deck[i * HAND:(i + 1) * HAND]) for i in range(players)]
        return HighCardState(players, options.turn_seconds, hands, deck[players * HAND:],
                             points=[0] * players)

    def check(self, state: HighCardState, move: Move) -> None:
        if state.over:
            raise IllegalAction("the match is over")
        if move.action.type == "timeout":
            return
        if move.seat != state.turn:
            raise NotYourTurn("wait for your turn")
        assert move.seat is not None
        if move.action.card not in state.hands[move.seat]:
            raise IllegalAction("that card is not in your hand")

    def apply(self, state: HighCardState, move: Move, rng: SeededRng) -> list[Event]:
        seat = state.turn
        events = []
        if move.action.type == "timeout":
            events.append(Event("{seat:%d} ran out of time" % seat, seat, "timeout"))
            card = min(state.hands[seat])
        else:
            card = move.action.card
        state.hands[seat].remove(card)
        state.table.append((seat, card))
        events.append(Event("{seat:%d} plays %d" % (seat, card), seat, "play", {"card": card}))
        state.serial += 1
        state.turn = (seat + 1) % state.players
        if len(state.table) == state.players:
            winner = max(state.table, key=lambda played: played[1])[0]
            state.points[winner] += 1
            state.table = []
            state.lead = state.turn = winner
            events.append(Event("{seat:%d} takes the trick" % winner, winner, "trick"))
            for s in range(state.players):
                if state.pile:
                    state.hands[s].append(state.pile.pop())
                    state.hands[s].sort()
            if not any(state.hands):
                state.over = True
                events.append(Event("The match is over", None, "over"))
        return events

    def view(self, state: HighCardState, seat: int | None) -> dict[str, Any]:
        return {
            "hand": list(state.hands[seat]) if seat is not None else None,
            "hand_sizes": [len(h) for h in state.hands],
            "pile": len(state.pile),
            "table": [{"seat": s, "card": c} for s, c in state.table],
            "points": list(state.points),
            "turn": None if state.over else state.turn,
        }

    def revealed_view(self, state: HighCardState) -> dict[str, Any]:
        """Every hand and the pile, for a finished match's replay."""
        return {**self.view(state, None), "revealed": {
            "hands": [list(h) for h in state.hands], "pile": list(state.pile)}}

    def outcome(self, state: HighCardState) -> Outcome | None:
        if not state.over:
            return None
        best = max(state.points)
        winners = [s for s in range(state.players) if state.points[s] == best]
        return Outcome(list(state.points), ranks_from_scores(state.points), winners,
                       " and ".join("{seat:%d}" % s for s in winners) + " win")

    def timers(self, state: HighCardState) -> list[Timer]:
        if state.over:
            return []
        return [Timer(f"turn:{state.serial}", state.turn_seconds, {"type": "timeout"}, "Turn",
                      (state.turn,))]

    def active_seats(self, state: HighCardState) -> list[int]:
        return [] if state.over else [state.turn]

    def legal_actions(self, state: HighCardState, seat: int | None) -> list[dict[str, Any]]:
        if state.over:
            return []
        if seat is None:
            return [{"type": "timeout"}]
        if seat != state.turn:
            return []
        return [{"type": "play", "card": card} for card in state.hands[seat]]

    def hidden_variant(self, state: HighCardState, seat: int | None,
                       rng: SeededRng) -> HighCardState:
        """The other hands and the pile dealt again from what they hold together."""
        unseen = [c for s in range(state.players) if s != seat for c in state.hands[s]]
        unseen += state.pile
        rng.shuffle(unseen)
        hands = [list(h) for h in state.hands]
        for s in range(state.players):
            if s != seat:
                hands[s], unseen = sorted(unseen[:len(hands[s])]), unseen[len(hands[s]):]
        return HighCardState(state.players, state.turn_seconds, hands, unseen, state.lead,
                             state.turn, list(state.table), list(state.points), state.serial,
                             state.over)


GAME = HighCardGame()
