"""``PaniqueGame``: the engine interface over ``rules`` and ``view`` (docs/games/panique.md)."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any, Literal, Union

from pydantic import Field, RootModel, StrictInt

from app.engine import (
    ActionModel, Event, Game, GameOptions, IllegalAction, Move, NotYourTurn, Outcome, ReplayStep,
    SeededRng, Timer,
)

from . import rules
from .board import SPACES
from .state import PaniqueState
from .tables import TABLES
from .view import public_view, seat_view
from .view import view_parts as build_view_parts




class RollAction(ActionModel):
    """Roll the die the game waits on (a player's own, the Circle of Life, or a detail roll).
    Sent by the system (seat ``None``) when the roller's 10 s run out."""

    type: Literal["roll"]


class ChooseAction(ActionModel):
    """Make the pending choice: the Butler's ``accept``/``decline``, the Ally's ``A``/``B``/``C``
    (``target``: the other heir, for B and C), or ``rest``/``stay`` on a shared space."""

    type: Literal["choose"]
    option: Literal["accept", "decline", "A", "B", "C", "rest", "stay"]
    target: StrictInt | None = Field(None, ge=0, le=4)
    """A JSON integer (not a string or a boolean), a seat 0 to 4."""


class TimeoutAction(ActionModel):
    """System only: the choice timer ran out; the choice's default is taken."""

    type: Literal["timeout"]


AnyAction = Annotated[Union[RollAction, ChooseAction, TimeoutAction], Field(discriminator="type")]


class PaniqueAction(RootModel[AnyAction]):
    pass


class PaniqueOptions(GameOptions):
    choice_seconds: int = Field(
        20, ge=5, le=60, title="Seconds to choose",
        description="Seconds to make a choice (the Butler's offer, the Ally's option, a rest) "
                    "before the default is taken.",
    )


class PaniqueEnding(StrEnum):
    """How a night in the house ends (docs/games/panique.md, "Endings"); the state's
    ``ending`` holds one of these values."""

    ESCAPE = "escape"
    """An heir escaped the house and wins."""
    SOLO_ESCAPE = "solo_escape"
    """The one heir of a solo game escaped."""
    LAST_ALIVE = "last_alive"
    """Every other heir is out: the last heir alive wins."""
    SOLO_DEATH = "solo_death"
    """The one heir of a solo game is out."""
    DAWN = "dawn"
    """The match's last move (``MAX_MOVES``) came with heirs still inside: nobody wins."""


class PaniqueGame(Game[PaniqueState, PaniqueOptions]):
    id = "panique"
    title = "Panique"
    pitch = "Dice and a track through a haunted house: survive the Lethal Encounter Tables."
    min_players = 1
    max_players = 5
    Options = PaniqueOptions
    Action = PaniqueAction
    Ending = PaniqueEnding
    system_actions = frozenset({"timeout"})
    shared_actions = frozenset({"roll"})
    max_moves = rules.MAX_MOVES
    """The rules' own limit: its last move ends the match at dawn (``rules.dawn``)."""
    replay_marks = ("turn",)

    def replay_step(self, move: Move, events: list[Event]) -> ReplayStep:
        """Every move a step of its own; an heir's movement roll (a turn's start) carries the
        mark ``turn``."""
        turn = any(e.kind == "roll" and e.data.get("purpose") == "move" for e in events)
        return ReplayStep(marks=("turn",) if turn else ())

    def setup(self, players: int, options: PaniqueOptions, rng: SeededRng) -> PaniqueState:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Panique needs 1 to 5 heirs, not {players}")
        return rules.new_state(players, options.choice_seconds)

    def check(self, state: PaniqueState, move: Move) -> None:
        action, seat = move.action, move.seat
        pending = state.pending
        if state.phase == "over" or pending is None:
            raise IllegalAction("the match is over")
        choice = rules.is_choice(pending)
        if action.type == "timeout":
            if not choice:
                raise IllegalAction("no choice is waiting")
            return
        if seat is not None and seat not in pending.seats:
            raise NotYourTurn("the game is not waiting on you")
        if action.type == "roll" and choice:
            raise IllegalAction("a choice is waiting, not a roll")
        if action.type == "choose":
            if not choice:
                raise IllegalAction("a roll is waiting, not a choice")
            if seat is None:
                raise IllegalAction("only a player may choose")
            self._check_choice(state, action)

    @staticmethod
    def _check_choice(state: PaniqueState, action: ChooseAction) -> None:
        if action.option not in rules.allowed_options(state):
            raise IllegalAction(f"{action.option!r} is not an option now")
        if action.option in rules.TARGETED:
            if action.target not in rules.ally_targets(state):
                raise IllegalAction("choose another heir still in the house")
        elif action.target is not None:
            raise IllegalAction(f"option {action.option} takes no target")

    def apply(self, state: PaniqueState, move: Move, rng: SeededRng) -> list[Event]:
        state.moves += 1
        events = self._apply(state, move, rng)
        if state.phase != "over" and state.moves >= rules.MAX_MOVES:
            events += rules.dawn(state)
        return events

    def _apply(self, state: PaniqueState, move: Move, rng: SeededRng) -> list[Event]:
        action = move.action
        if action.type == "roll":
            return rules.roll(state, move.seat, rng)
        if action.type == "choose":
            return rules.choose(state, action.option, action.target)
        pending = state.pending
        assert pending is not None
        option = rules.DEFAULTS[pending.purpose]
        return rules.choose(state, option, None, timed_out=True)

    hidden_information = False
    """Everything in Panique is public (docs/games/panique.md); its dice are rolled when the
    roll is made, so no future roll waits in the state."""

    def hidden_variant(self, state: PaniqueState, seat: int | None,
                       rng: SeededRng) -> PaniqueState:
        return copy.deepcopy(state)

    def rules_data(self) -> dict[str, Any]:
        """The board and every table, for the rules page (its rules/ templates)."""
        return {"spaces": SPACES, "tables": list(TABLES.values()),
                "titles": {t.id: t.title for t in TABLES.values()},
                "roll_seconds": rules.ROLL_SECONDS}

    def legal_actions(self, state: PaniqueState, seat: int | None) -> list[dict[str, Any]]:
        """Every action ``seat`` may send now, as JSON (empty when the game does not wait on it);
        ``seat=None``: the system's, that is its timer's action (engine interface)."""
        pending = state.pending
        if state.phase == "over" or pending is None:
            return []
        if seat is None:
            return [dict(timer.action) for timer in self.timers(state)]
        if seat not in pending.seats:
            return []
        if not rules.is_choice(pending):
            return [{"type": "roll"}]
        out: list[dict[str, Any]] = []
        for option in rules.allowed_options(state):
            if option in rules.TARGETED:
                out += [{"type": "choose", "option": option, "target": t}
                        for t in rules.ally_targets(state)]
            else:
                out.append({"type": "choose", "option": option})
        return out

    def view(self, state: PaniqueState, seat: int | None) -> dict[str, Any]:
        return seat_view(state, public_view(state), seat, self.legal_actions)

    def view_parts(
        self, state: PaniqueState, seats: Iterable[int | None]
    ) -> tuple[dict[str, Any], dict[int | None, dict[str, Any]]]:
        """Everything is public but ``you`` and ``legal`` (``Game.views`` joins the parts; the
        room encodes the public part once a move)."""
        return build_view_parts(state, seats, self.legal_actions)

    def revealed_view(self, state: PaniqueState) -> dict[str, Any]:
        """Nothing in Panique is hidden (a die not yet rolled is not in the state): the public
        view with an empty ``revealed`` (docs/games/panique.md, "The revealed view")."""
        return {**self.view(state, None), "revealed": {}}

    def outcome(self, state: PaniqueState) -> Outcome | None:
        """Winners rank 1; then heirs still alive before those out, further along first, the
        later out before the earlier. Score: the space reached (docs/games/panique.md, decision
        13)."""
        if state.phase != "over":
            return None
        n = state.players
        scores = [h.space for h in state.heirs]

        def key(seat: int) -> tuple[int, int, int]:
            h = state.heirs[seat]
            out_rank = state.out_order.index(seat) if seat in state.out_order else n
            return (seat in state.winners, h.status != "out", out_rank * 100 + h.space)

        keys = [key(s) for s in range(n)]
        ranks = [1 + sum(1 for other in keys if other > mine) for mine in keys]
        ending = PaniqueEnding(state.ending)
        details = {PaniqueEnding.DAWN: {"n": rules.MAX_MOVES},
                   PaniqueEnding.SOLO_DEATH: {"heir": 0}}.get(ending, {})
        return Outcome(scores=scores, ranks=ranks, winners=list(state.winners), ending=ending,
                       details=details)

    def timers(self, state: PaniqueState) -> list[Timer]:
        pending = state.pending
        if state.phase == "over" or pending is None:
            return []
        if rules.is_choice(pending):
            return [Timer(f"choice:{state.serial}", state.choice_seconds, {"type": "timeout"},
                          "Choose", tuple(pending.seats))]
        return [Timer(f"roll:{state.serial}", rules.ROLL_SECONDS, {"type": "roll"}, "Roll",
                      tuple(pending.seats))]

    def active_seats(self, state: PaniqueState) -> list[int]:
        if state.phase == "over" or state.pending is None:
            return []
        return list(state.pending.seats)
