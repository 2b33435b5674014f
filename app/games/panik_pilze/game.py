"""``PanikPilzeGame``: the engine interface over ``rules``, ``scoring`` and ``view``
(docs/games/panik-pilze.md)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from itertools import permutations
from typing import Annotated, Any, Literal, Union

from pydantic import Field, RootModel

from app.engine import (
    ActionModel, Event, Game, GameOptions, IllegalAction, Move, NotYourTurn, Outcome, ReplayStep,
    SeededRng, Timer,
    ranks_from_scores,
)
from app.engine.interface import EXPERT

from . import hidden, rules
from .cards import ACTION_CARDS, MUSHROOMS
from .scoring import score_baskets, totals
from .state import PilzeState
from .view import revealed_view
from .view import view as build_view
from .view import view_parts as build_view_parts
from .view import winners

ActionId = Annotated[int, Field(ge=0, le=25)]
Mushroom = Literal["schlaubi", "chef", "knuddel", "panik", "gifti"]




class CollectAction(ActionModel):
    """Play a collect card; ``flip`` names the display cards (by their ``id``) a "turn" card
    turns over: exactly as many as the card says, all different; empty for a "draw" card."""

    type: Literal["collect"]
    card: ActionId
    flip: list[int] = Field(default_factory=list, max_length=2)


class PartyAction(ActionModel):
    """Play a Mushroom Party card for one mushroom type."""

    type: Literal["party"]
    card: ActionId
    mushroom: Mushroom


class StealAction(ActionModel):
    """Play a Steal card: the top card of seat ``victim``'s stack of ``mushroom``."""

    type: Literal["steal"]
    card: ActionId
    victim: int = Field(ge=0, le=4)
    mushroom: Mushroom


class SwapAction(ActionModel):
    """Put 1 to 3 hand cards on the action discard pile and draw as many."""

    type: Literal["swap"]
    cards: list[ActionId] = Field(min_length=1, max_length=3)


class TimeoutAction(ActionModel):
    """System only: the turn timer ran out; the simplest legal turn is played (decision 12)."""

    type: Literal["timeout"]


AnyAction = Annotated[
    Union[CollectAction, PartyAction, StealAction, SwapAction, TimeoutAction],
    Field(discriminator="type"),
]


class PilzeAction(RootModel[AnyAction]):
    pass


class PilzeOptions(GameOptions):
    memory_aid: bool = Field(
        False, title="Memory aid",
        description="Show everyone the hidden down sides of the display cards.",
    )
    turn_timer: bool = Field(
        False, title="Turn timer",
        description="Limit each turn; when time runs out a simple turn is played for the player.",
    )
    turn_seconds: int = Field(
        60, ge=15, le=300, title="Seconds per turn",
        description="The turn limit when the turn timer is on.", json_schema_extra=EXPERT,
    )


class PilzeEnding(StrEnum):
    """How a Panik Pilze match ends (docs/games/panik-pilze.md, "Endings"): scored the same
    way either way."""

    PILE_EMPTY = "pile_empty"
    """The last mushroom card left the pile (by a draw action or in the refill)."""
    TURN_LIMIT = "turn_limit"
    """Turn ``rules.MAX_TURNS`` was the last (docs/decisions/0038)."""


class PanikPilzeGame(Game[PilzeState, PilzeOptions]):
    id = "panik_pilze"
    title = "Panik Pilze"
    pitch = "Double-sided mushroom cards, a display with hidden down-sides, and majority scoring."
    min_players = 2
    max_players = 5
    Options = PilzeOptions
    Action = PilzeAction
    Ending = PilzeEnding
    system_actions = frozenset({"timeout"})
    max_moves = rules.MAX_TURNS
    """One move is one turn (a timeout plays the turn), and the rules end the game with turn
    ``MAX_TURNS`` at the latest."""

    replay_marks = ("party", "steal")
    """A replay steps turn by turn already (one move is one turn); it can jump to the turns a
    table remembers: the next Mushroom Party, the next steal (decision 0063)."""

    def replay_step(self, move: Move, events: list[Event]) -> ReplayStep:
        """Every turn a step of its own, marked ``party`` or ``steal`` when it was one."""
        return ReplayStep(marks=tuple(m for m in self.replay_marks
                                      if any(e.kind == m for e in events)))

    def setup(self, players: int, options: PilzeOptions, rng: SeededRng) -> PilzeState:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Panik Pilze needs 2 to 5 players, not {players}")
        seconds = options.turn_seconds if options.turn_timer else 0
        return rules.new_state(players, options.memory_aid, seconds, rng)

    # --- validate and apply ------------------------------------------------------------------
    def check(self, state: PilzeState, move: Move) -> None:
        action, seat = move.action, move.seat
        if state.phase == "over":
            raise IllegalAction("the match is over")
        if action.type == "timeout":
            if not state.turn_seconds:  # no turn timer: nothing runs out (legal_actions: [])
                raise IllegalAction("there is no turn timer")
            return
        if seat != state.turn:
            raise NotYourTurn("wait for your turn")
        if action.type == "collect":
            rules.check_collect(state, seat, action.card, list(action.flip))
        elif action.type == "party":
            rules.check_card(state, seat, action.card, "party")
        elif action.type == "steal":
            rules.check_steal(state, seat, action.card, action.victim, action.mushroom)
        elif action.type == "swap":
            rules.check_swap(state, seat, list(action.cards))

    def apply(self, state: PilzeState, move: Move, rng: SeededRng) -> list[Event]:
        action = move.action
        seat = state.turn  # the player whose turn it is plays, or the timeout plays for them
        events: list[Event] = []
        if action.type == "timeout":
            events.append(Event("{seat:%d} ran out of time; a turn is played for them" % seat,
                                seat, "timeout"))
            action = self.parse_action(self.simplest_turn(state, seat))
        if action.type == "collect":
            events += rules.play_collect(state, seat, action.card, list(action.flip), rng)
        elif action.type == "party":
            events += rules.play_party(state, seat, action.card, action.mushroom, rng)
        elif action.type == "steal":
            events += rules.play_steal(state, seat, action.card, action.victim, action.mushroom,
                                       rng)
        else:
            events += rules.play_swap(state, seat, list(action.cards), rng)
        if state.phase == "over":
            outcome = self.outcome(state)
            assert outcome is not None
            best = outcome.scores[outcome.winners[0]]
            events.append(Event(_win_text(outcome.winners, best), None, "win", {
                "winners": outcome.winners, "n": best,
                "msg": "win" if len(outcome.winners) == 1 else "win_shared"}))
        return events

    # --- what a seat may do --------------------------------------------------------------------
    def legal_actions(self, state: PilzeState, seat: int | None) -> list[dict[str, Any]]:
        """Every legal action of ``seat`` now, as raw JSON. For each hand card in hand order:
        a draw card; a turn card with every choice of display cards, in every order (the order
        named is the order they turn); a party card with each type; a steal card with each
        (opponent, type) there is. Then every swap (1 to 3 cards, in every order: they go on the
        discard pile in the order named). Exactly what ``validate`` accepts.
        The
        system (``seat=None``): its timer's action, ``{"type": "timeout"}``, while the turn timer
        runs."""
        if state.phase == "over":
            return []
        if seat is None:
            return [dict(timer.action) for timer in self.timers(state)]
        if seat != state.turn:
            return []
        serials = [state.serial[c] for c in state.display]
        hand = state.hands[seat]
        out: list[dict[str, Any]] = []
        for card in hand:
            spec = ACTION_CARDS[card]
            if spec.kind == "collect" and spec.action == "draw":
                out.append({"type": "collect", "card": card, "flip": []})
            elif spec.kind == "collect":
                out += [{"type": "collect", "card": card, "flip": list(pick)}
                        for pick in permutations(serials, spec.count)]
            elif spec.kind == "party":
                out += [{"type": "party", "card": card, "mushroom": m} for m in MUSHROOMS]
            else:
                out += [{"type": "steal", "card": card, "victim": v, "mushroom": m}
                        for v, m in rules.steal_targets(state, seat)]
        for size in range(1, len(hand) + 1):
            out += [{"type": "swap", "cards": list(pick)} for pick in permutations(hand, size)]
        return out

    def simplest_turn(self, state: PilzeState, seat: int) -> dict[str, Any]:
        """The turn a timeout plays (decision 12): the first entry of ``legal_actions``, that is
        the first hand card played in its first form (a draw card as it is, a turn card on the
        first display cards, a party for Schlaubi, a steal from the next opponent's first stack);
        a Steal with nothing to steal is passed over for the next card, and a hand of only such
        cards swaps its first card."""
        return self.legal_actions(state, seat)[0]

    # --- views, outcome, timers ----------------------------------------------------------------
    def view(self, state: PilzeState, seat: int | None) -> dict[str, Any]:
        return build_view(state, seat)

    def hidden_variant(self, state: PilzeState, seat: int | None, rng: SeededRng) -> PilzeState:
        return hidden.hidden_variant(state, seat, rng)


    def view_parts(
        self, state: PilzeState, seats: Iterable[int | None]
    ) -> tuple[dict[str, Any], dict[int | None, dict[str, Any]]]:
        return build_view_parts(state, seats)

    def revealed_view(self, state: PilzeState) -> dict[str, Any]:
        return revealed_view(state)

    def outcome(self, state: PilzeState) -> Outcome | None:
        """Scores are the scoring pad's totals; equal top totals share the victory."""
        if state.phase != "over":
            return None
        counts = [state.basket_counts(s) for s in range(state.players)]
        scores = totals(score_baskets(counts), state.players)
        won = winners(state)
        ending = PilzeEnding.TURN_LIMIT if state.end_cause == "limit" else PilzeEnding.PILE_EMPTY
        details = {"n": scores[won[0]]}
        if ending is PilzeEnding.TURN_LIMIT:
            details["turns"] = rules.MAX_TURNS
        return Outcome(scores=scores, ranks=ranks_from_scores(scores), winners=won,
                       ending=ending, details=details)

    def timers(self, state: PilzeState) -> list[Timer]:
        if state.phase == "over" or not state.turn_seconds:
            return []
        return [Timer(f"turn:{state.turn_serial}", state.turn_seconds, {"type": "timeout"},
                      "Turn", (state.turn,))]

    def active_seats(self, state: PilzeState) -> list[int]:
        return [] if state.phase == "over" else [state.turn]


def _win_text(won: list[int], best: int) -> str:
    """The win event's English text (its wording in the catalogs: ``event.panik_pilze.win``)."""
    markers = ["{seat:%d}" % s for s in won]
    names = markers[0] if len(won) == 1 else ", ".join(markers[:-1]) + " and " + markers[-1]
    verb = "wins" if len(won) == 1 else "win"
    return f"{names} {verb} with {best} point{'' if best == 1 else 's'}"
