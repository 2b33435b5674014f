"""``PanikaGame``: the engine interface over ``rules`` and ``view`` (see docs/games/panika.md)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any, Literal, Union

from pydantic import Field, RootModel

from app.engine import (
    ActionModel, Event, Game, GameOptions, IllegalAction, Move, NotYourTurn, Outcome, ReplayStep,
    SeededRng, Timer, ranks_from_scores,
)

from . import hidden, rules
from .state import PanikaState
from .view import revealed_view
from .view import view as build_view
from .view import view_parts as build_view_parts

TAPS = frozenset({"tap", "auto_tap"})
"""The actions that pay the taps a play owes."""

CardId = Annotated[int, Field(ge=0, le=119)]




class PlayAction(ActionModel):
    """Play one card, or two (two identical vegetables, or any two under Play Two; in order)."""

    type: Literal["play"]
    cards: list[CardId] = Field(min_length=1, max_length=2)


class TapAction(ActionModel):
    """One tap on the counter by the seat that owes taps."""

    type: Literal["tap"]


class LastCardAction(ActionModel):
    """Call "Last card!"."""

    type: Literal["last_card"]


class AutoTapAction(ActionModel):
    """System only: the 8 s tap timer ran out; the current tapper's remaining taps happen."""

    type: Literal["auto_tap"]


class CloseLastCardAction(ActionModel):
    """System only: the 3 s "Last card!" window closed without a call."""

    type: Literal["close_last_card"]


class TimeoutAction(ActionModel):
    """System only: the turn timer ran out; a card is played for the absent player."""

    type: Literal["timeout"]


AnyAction = Annotated[
    Union[PlayAction, TapAction, LastCardAction, AutoTapAction, CloseLastCardAction,
          TimeoutAction],
    Field(discriminator="type"),
]


class PanikaAction(RootModel[AnyAction]):
    pass


class PanikaOptions(GameOptions):
    turn_seconds: int = Field(
        30, ge=10, le=120,
        description="Seconds a player has to play before a card is played for them.",
    )


class PanikaEnding(StrEnum):
    """How a Panika match ends: its rules end every match one way (docs/games/panika.md,
    "Endings")."""

    CARDS_GONE = "cards_gone"
    """Someone has no cards left, in hand or pile (everyone who has none wins together)."""


class PanikaGame(Game[PanikaState, PanikaOptions]):
    id = "panika"
    title = "Panika"
    pitch = "Play cards, tap the shared counter, and don't be the one who makes it burst."
    min_players = 2
    max_players = 6
    Options = PanikaOptions
    Action = PanikaAction
    Ending = PanikaEnding
    system_actions = frozenset({"auto_tap", "close_last_card", "timeout"})
    max_moves = rules.MAX_MOVES
    """The rules end every match by then (``rules.MAX_MOVES``; docs/games/panika.md, "The
    bound"): no limit of its own is needed."""
    replay_marks = ("burst",)

    def replay_step(self, move: Move, events: list[Event]) -> ReplayStep:
        """A tap (a player's, or the system's ``auto_tap``) pays for the card played before it,
        so it joins that play: a replay steps from play to play, not tap by tap. The move that
        bursts the counter carries the mark ``burst`` (docs/games/panika.md, "The replay")."""
        joins = move.action.get("type") in TAPS
        burst = any(e.kind == "burst" for e in events)
        return ReplayStep(joins=joins, marks=("burst",) if burst else ())

    def setup(self, players: int, options: PanikaOptions, rng: SeededRng) -> PanikaState:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Panika needs 2 to 6 players, not {players}")
        return rules.new_state(players, options.turn_seconds, rng)

    def check(self, state: PanikaState, move: Move) -> None:
        action, seat = move.action, move.seat
        kind = action.type
        if state.phase == "over":
            raise IllegalAction("the match is over")
        if kind == "play":
            assert seat is not None  # Game.check_sender: a player's action
            rules.check_play(state, seat, list(action.cards))
        elif kind == "tap":
            if state.phase != "tapping":
                raise IllegalAction("no taps are owed")
            if seat != state.tapper:
                if any(s == seat for s, _ in state.tap_queue):
                    raise NotYourTurn("wait: another player taps first")
                raise IllegalAction("you owe no taps")
        elif kind == "auto_tap":
            if state.phase != "tapping":
                raise IllegalAction("no taps are owed")
        elif kind == "close_last_card":
            if state.window is None:
                raise IllegalAction("no Last card! window is open")
        elif kind == "timeout":
            if state.phase != "play":
                raise IllegalAction("no one is choosing a card")
        elif kind == "last_card" and seat is not None \
                and not rules.last_card_counts(state, seat):
            # A false call changes nothing and is refused, so it is never logged as a move.
            raise IllegalAction("no 'Last card!' call counts now")

    def apply(self, state: PanikaState, move: Move, rng: SeededRng) -> list[Event]:
        action, seat = move.action, move.seat
        kind = action.type
        if kind == "last_card":
            assert seat is not None  # Game.check_sender: a player's action
            return rules.call_last_card(state, seat)
        if kind == "close_last_card":
            events = rules.close_window(state, rng)
            if rules.play_two_stranded(state):
                # The penalty took a card from the Play Two player, leaving one: they cannot
                # play two, so they take the Play Two penalty now (rulebook, "Play Two").
                events += rules.begin_turn(state, state.turn, rng)
            return events
        # Any other action closes an open "Last card!" window first (docs/games/panika.md: it
        # closes early when the next player acts), so the penalty comes before the play.
        events = rules.close_window(state, rng)
        if state.phase == "over":
            return events
        if kind == "tap":
            return events + rules.tap(state, 1, rng)
        if kind == "auto_tap":
            return events + rules.tap(state, state.tap_queue[0][1], rng, auto=True)
        if events and rules.play_two_stranded(state):
            # The penalty left the Play Two player one card: they cannot play (rulebook).
            if kind in ("play", "timeout"):
                events.append(Event("{seat:%d}'s play is void: a card went as a penalty"
                                    % state.turn, state.turn, "void"))
                return events + rules.begin_turn(state, state.turn, rng)
        if kind == "timeout":
            seat = state.turn
            events.append(Event("{seat:%d} ran out of time; a card is played for them" % seat,
                                seat, "timeout"))
            cards = rules.bot_play(state, seat)
            if state.cards_left(seat) - len(cards) == 1:
                # The bot never forgets "Last card!": it calls whenever this play can end the
                # turn with one card in all, even if the pile still holds it (the draw takes it).
                state.last_card_called[seat] = True
            return events + rules.play(state, seat, cards, rng)
        assert seat is not None  # a play: Game.check_sender made sure it is a player's
        cards = list(action.cards)
        if events and any(c not in state.hands[seat] for c in cards):
            # The penalty just took a card this play needed: the play is void, choose again.
            events.append(Event("{seat:%d}'s play is void: a card went as a penalty" % seat,
                                seat, "void"))
            return events
        return events + rules.play(state, seat, cards, rng)

    def view(self, state: PanikaState, seat: int | None) -> dict[str, Any]:
        return build_view(state, seat)

    def hidden_variant(self, state: PanikaState, seat: int | None,
                       rng: SeededRng) -> PanikaState:
        return hidden.hidden_variant(state, seat, rng)


    def view_parts(
        self, state: PanikaState, seats: Iterable[int | None]
    ) -> tuple[dict[str, Any], dict[int | None, dict[str, Any]]]:
        return build_view_parts(state, seats)

    def revealed_view(self, state: PanikaState) -> dict[str, Any]:
        return revealed_view(state)

    def outcome(self, state: PanikaState) -> Outcome | None:
        """Winners rank 1; the others by fewest cards left. Score: minus the cards left."""
        if state.phase != "over":
            return None
        scores = [-state.cards_left(s) for s in range(state.players)]
        return Outcome(scores=scores, ranks=ranks_from_scores(scores),
                       winners=list(state.winners), ending=PanikaEnding.CARDS_GONE)

    def timers(self, state: PanikaState) -> list[Timer]:
        if state.phase == "over":
            return []
        timers: list[Timer] = []
        if state.phase == "play":
            shown = rules.BURST_SHOW_SECONDS if state.turn_serial == state.burst_turn else 0
            timers.append(Timer(f"turn:{state.turn_serial}", state.turn_seconds + shown,
                                {"type": "timeout"}, "Turn", (state.turn,)))
        else:
            timers.append(Timer(f"autotap:{state.tap_serial}", rules.AUTO_TAP_SECONDS,
                                {"type": "auto_tap"}, "Tap", (state.tap_queue[0][0],)))
        if state.window is not None:
            timers.append(Timer(f"lastcard:{state.window_serial}", rules.LAST_CARD_SECONDS,
                                {"type": "close_last_card"}, "Last card!", (state.window,),
                                visible=False))
        return timers

    def active_seats(self, state: PanikaState) -> list[int]:
        if state.phase == "over":
            return []
        if state.phase == "tapping":
            return [state.tap_queue[0][0]]
        return [state.turn]

    def legal_actions(self, state: PanikaState, seat: int | None) -> list[dict[str, Any]]:
        """The plays ``rules.legal_plays`` lists, a tap for the seat that owes one, and "Last
        card!" where a call would count (``rules.last_card_counts``); the system: its timers'
        actions."""
        if state.phase == "over":
            return []
        if seat is None:
            return [dict(timer.action) for timer in self.timers(state)]
        if not 0 <= seat < state.players:
            return []
        plays = rules.legal_plays(state, seat)
        actions: list[dict[str, Any]] = [{"type": "play", "cards": cards} for cards in plays]
        if state.phase == "tapping" and seat == state.tapper:
            actions.append({"type": "tap"})
        if rules.last_card_counts(state, seat, plays):
            actions.append({"type": "last_card"})
        return actions
