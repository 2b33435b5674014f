"""Panic Lab's rules engine: rounds of countdown, reveal, claims and result.

Phases, each ended by a system move from a timer or by the claims themselves::

    countdown --reveal--> search --(first correct claim)--------------------> result
                            |  \\--(latency-fair) settling --settle-------> result
                            \\--timeout / everyone wrong -------------------> result
    result --next_round--> countdown        (a token that reaches the target: over)
                                            (round MAX_ROUNDS decided: over, the most tokens win)

Time reaches the engine only as data: ``Move.at_ms`` (when the room received the move) and
``Move.rtt_ms`` (the sender's measured round trip). See docs/games/panic-lab.md.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import replace
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel

from app.engine import (
    Event,
    Game,
    IllegalAction,
    MalformedAction,
    Move,
    Outcome,
    ReplayStep,
    SeededRng,
    Timer,
    ranks_from_scores,
)

from .actions import (
    ClaimAction,
    NextRoundAction,
    PanicLabAction,
    PanicLabOptions,
    RevealAction,
    SettleAction,
    TimeoutAction,
)
from .solver import solve
from .state import Claim, PanicLabState
from .tiles import roll_dice, shuffled_ring
from .view import view as build_view
from .view import view_parts as build_view_parts

RTT_CAP_MS = 300
"""The most round-trip time latency-fair mode credits a claim with."""
RESULT_SECONDS = 6.0
"""How long the result (claims and path) stays up before the next countdown."""
MAX_ROUNDS = 250
"""The last round a match may have (docs/games/panic-lab.md, "The bound"): rounds nobody wins
(a timeout, every claim wrong) and tokens lost to wrong claims could go on for ever. Ten players
to ten tokens need at least 91 rounds; 250 rounds are two hours and more of play."""
MOVES_PER_ROUND = 3
"""A round's system moves besides the claims (at most one per seat): the reveal, a timeout or
a settle, and the next round."""

_SYSTEM_PHASE: dict[type, str] = {
    RevealAction: "countdown",
    TimeoutAction: "search",
    SettleAction: "settling",
    NextRoundAction: "result",
}
"""The phase in which each system action is expected."""


def _tokens(n: int) -> str:
    return "1 token" if n == 1 else f"{n} tokens"


def capped_rtt(rtt_ms: int) -> int:
    return min(max(rtt_ms, 0), RTT_CAP_MS)


def settle_window_ms(rtt_ms: int) -> int:
    """How long after the first correct claim (round trip ``rtt_ms``) a later claim can beat it.

    B beats A iff ``tB - cap(rttB) < tA - cap(rttA)``; as ``cap(rttB) <= 300`` this needs
    ``tB < tA + 300 - cap(rttA)``.
    """
    return RTT_CAP_MS - capped_rtt(rtt_ms)


class PanicLabEnding(StrEnum):
    """How a Panic Lab match ends (docs/games/panic-lab.md, "Endings")."""

    TOKENS_REACHED = "tokens_reached"
    """A player reached the target number of tokens."""
    ROUND_LIMIT = "round_limit"
    """Round ``MAX_ROUNDS`` was decided: the most tokens win (nobody, with no token)."""


class PanicLabGame(Game[PanicLabState, PanicLabOptions]):
    id: ClassVar[str] = "panic_lab"
    title: ClassVar[str] = "Panic Lab"
    pitch: ClassVar[str] = (
        "The dice name an amoeba and the lab it escaped from: follow it round the ring, "
        "through vents and mutation rooms, and be the first to put your hand on it."
    )
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 10
    Options = PanicLabOptions
    Action: ClassVar[type[BaseModel]] = PanicLabAction
    Ending: ClassVar[type[StrEnum]] = PanicLabEnding
    system_actions: ClassVar[frozenset[str]] = frozenset(
        {"reveal", "timeout", "settle", "next_round"})
    max_moves: ClassVar[int] = MAX_ROUNDS * (10 + MOVES_PER_ROUND)
    """250 rounds of at most 13 moves (ten claims and three moves of the system)."""
    replay_marks: ClassVar[tuple[str, ...]] = ("round",)

    def replay_step(self, move: Move, events: list[Event]) -> ReplayStep:
        """Every move a step of its own; the reveal (the dice show, a round's search begins)
        carries the mark ``round``."""
        return ReplayStep(marks=("round",) if any(e.kind == "reveal" for e in events) else ())

    # --- setup ---------------------------------------------------------------------------------
    def setup(self, players: int, options: PanicLabOptions, rng: SeededRng) -> PanicLabState:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Panic Lab needs 2 to 10 players, not {players}")
        ring = shuffled_ring(options.variant, rng)
        return PanicLabState(
            players=players,
            options=options,
            ring=ring,
            ring_json=[tile.to_json() for tile in ring],
            tokens=[0] * players,
        )

    # --- validate ------------------------------------------------------------------------------
    def check(self, state: PanicLabState, move: Move) -> None:
        action = self._action(move)
        if isinstance(action, ClaimAction):
            self._validate_claim(state, move, action)
            return
        if state.phase == "over":
            raise IllegalAction("the match is over")
        expected = _SYSTEM_PHASE[type(action)]
        if state.phase != expected:
            raise IllegalAction(f"{action.type} comes in the {expected} phase, not {state.phase}")

    def _validate_claim(self, state: PanicLabState, move: Move, action: ClaimAction) -> None:
        """The refusals in the order docs/games/panic-lab.md gives ("Refusals"), after the
        sender's (``Game.check_sender``): a tile outside the ring first (decision D4: it names no
        tile, in any phase), then the phase, the tile's kind, an earlier claim, the latency-fair
        window."""
        if action.tile >= len(state.ring):
            raise MalformedAction(f"tile: must be below {len(state.ring)}")
        seat = move.seat
        assert seat is not None  # Game.check_sender: a claim is a player's
        if state.phase == "over":
            raise IllegalAction("the match is over")
        if state.phase == "countdown":
            raise IllegalAction("wait for the dice")
        if state.phase == "result":
            raise IllegalAction("this round is decided")
        if state.ring[action.tile].type in ("lab", "vent"):
            raise IllegalAction("a lab or a vent is never the answer")
        if seat in state.claimed:
            raise IllegalAction("you have already claimed this round")
        if state.phase == "settling":
            assert state.settle_deadline_ms is not None
            if move.at_ms >= state.settle_deadline_ms:
                raise IllegalAction("this round is decided")

    # --- apply ---------------------------------------------------------------------------------
    def apply(self, state: PanicLabState, move: Move, rng: SeededRng) -> list[Event]:
        action = self._action(move)
        if isinstance(action, ClaimAction):
            assert move.seat is not None
            return self._claim(state, move, action.tile)
        if isinstance(action, RevealAction):
            return self._reveal(state, move, rng)
        if isinstance(action, TimeoutAction):
            return self._end_round(state, None, "timeout")
        if isinstance(action, SettleAction):
            return self._settle(state)
        return self._next_round(state)

    def _reveal(self, state: PanicLabState, move: Move, rng: SeededRng) -> list[Event]:
        roll = roll_dice(rng)
        state.roll = roll
        state.solution = solve(state.ring, roll)
        state.reveal_at_ms = move.at_ms
        state.phase = "search"
        return [Event(
            f"Find the {roll.kind} amoeba, escaped from the {roll.lab} lab "
            f"({roll.arrow} arrow).",
            kind="reveal",
            data={"dice": roll.to_json()},
        )]

    def _claim(self, state: PanicLabState, move: Move, tile: int) -> list[Event]:
        assert state.solution is not None and move.seat is not None
        seat = move.seat
        claim = Claim(
            seat=seat,
            tile=tile,
            at_ms=move.at_ms,
            rtt_ms=move.rtt_ms,
            correct=tile == state.solution.answer,
            reaction_ms=move.at_ms - state.reveal_at_ms - capped_rtt(move.rtt_ms),
        )
        state.claims.append(claim)
        state.claimed.add(seat)
        everyone = len(state.claimed) == state.players
        if not claim.correct:
            state.locked.add(seat)
            lost = state.tokens[seat] > 0
            if lost:
                state.tokens[seat] -= 1
                text = f"{{seat:{seat}}} claimed wrong and loses a token"
            else:
                text = f"{{seat:{seat}}} claimed wrong (no token to lose)"
            events = [Event(text, seat=seat, kind="wrong", data={
                "tokens": state.tokens[seat], "msg": "wrong_lost" if lost else "wrong"})]
            if everyone:
                if state.phase == "settling":
                    events += self._settle(state)
                else:
                    events += self._end_round(state, None, "all_wrong")
            return events
        if not state.options.latency_fair:
            return self._end_round(state, claim, "found")
        events = [Event(f"{{seat:{seat}}} claims!", seat=seat, kind="claim")]
        if state.phase == "search":
            window = settle_window_ms(move.rtt_ms)
            if window == 0:
                return events + self._end_round(state, claim, "found")
            state.phase = "settling"
            state.settle_deadline_ms = move.at_ms + window
            state.settle_seconds = window / 1000
        if everyone:
            events += self._settle(state)
        return events

    def _settle(self, state: PanicLabState) -> list[Event]:
        """Latency-fair: the quickest correct reaction wins; ties go to the earlier arrival."""
        _, _, best = min(
            (claim.reaction_ms, arrival, claim)
            for arrival, claim in enumerate(state.claims) if claim.correct
        )
        return self._end_round(state, best, "found")

    def _end_round(self, state: PanicLabState, winner: Claim | None, ended_by: str) -> list[Event]:
        assert state.solution is not None and state.roll is not None
        events: list[Event] = []
        answer = state.solution.answer
        if winner is not None:
            state.tokens[winner.seat] += 1
            text = f"{{seat:{winner.seat}}} found it!"
            data = {"answer": answer, "tokens": state.tokens[winner.seat], "msg": "found"}
            if state.options.latency_fair:
                text = f"{{seat:{winner.seat}}} found it in {winner.reaction_ms} ms!"
                data.update(msg="found_timed", ms=winner.reaction_ms)
            events.append(Event(text, seat=winner.seat, kind="found", data=data))
        elif ended_by == "timeout":
            events.append(Event("Time is up: nobody found it.", kind="timeout",
                                data={"answer": answer}))
        else:
            events.append(Event("Everyone claimed wrong: nobody scores.", kind="all_wrong",
                                data={"answer": answer}))
        state.last_round = {
            "round": state.round,
            "winner": None if winner is None else winner.seat,
            "ended_by": ended_by,
            "dice": state.roll.to_json(),
            **state.solution.to_json(),
            "claims": [claim.to_json(with_reaction=state.options.latency_fair)
                       for claim in state.claims],
        }
        state.settle_deadline_ms = None
        if winner is not None and state.tokens[winner.seat] >= state.options.target_tokens:
            state.phase = "over"
            state.winner = winner.seat
            events.append(Event(
                f"{{seat:{winner.seat}}} wins the match with {_tokens(state.tokens[winner.seat])}!",
                seat=winner.seat, kind="match_over", data={"n": state.tokens[winner.seat]},
            ))
        elif state.round >= MAX_ROUNDS:
            state.phase = "over"  # the bound: the most tokens win (``outcome``)
            events.append(Event(f"Round {state.round} was the last: the match is over.",
                                kind="limit", data={"round": state.round}))
        else:
            state.phase = "result"
        return events

    def _next_round(self, state: PanicLabState) -> list[Event]:
        state.round += 1
        state.phase = "countdown"
        state.roll = None
        state.solution = None
        state.reveal_at_ms = 0
        state.claims = []
        state.claimed = set()
        state.locked = set()
        state.settle_deadline_ms = None
        state.settle_seconds = 0.0
        return [Event(f"Round {state.round}: get ready.", kind="round", data={"round": state.round})]

    # --- what each seat sees -------------------------------------------------------------------
    def view(self, state: PanicLabState, seat: int | None) -> dict[str, Any]:
        return build_view(state, seat)

    def view_parts(
        self, state: PanicLabState, seats: Iterable[int | None]
    ) -> tuple[dict[str, Any], dict[int | None, dict[str, Any]]]:
        """The ring, dice, players and last round once, ``seat`` and ``my_claim`` per seat
        (``Game.views`` joins the parts; the room encodes the public part once a move)."""
        return build_view_parts(state, seats)

    def hidden_variant(self, state: PanicLabState, seat: int | None,
                       rng: SeededRng) -> PanicLabState:
        """The other seats' wrong claims of the round moved to other wrong tiles: where a claim
        lies stays hidden until the round is decided (everyone sees who claimed, and who is
        locked out for a wrong claim; the dice and the ring are public)."""
        variant = copy.copy(state)  # only the claims differ: they are a new list below
        if state.solution is None or state.phase not in ("search", "settling"):
            return variant
        wrong = [i for i, tile in enumerate(state.ring)
                 if tile.type not in ("lab", "vent") and i != state.solution.answer]
        variant.claims = [
            replace(claim, tile=rng.choice(wrong))
            if claim.seat != seat and not claim.correct else claim
            for claim in variant.claims
        ]
        return variant

    def revealed_view(self, state: PanicLabState) -> dict[str, Any]:
        """The public view with the round's secrets shown (docs/games/panic-lab.md, "The
        revealed view"), for a finished match's replay only: the answer once the dice are
        rolled, and every claim of the round with its tile (the players see only that a seat
        has claimed until the round is decided)."""
        latency = state.options.latency_fair
        return {**self.view(state, None), "revealed": {
            "answer": None if state.solution is None else state.solution.answer,
            "claims": [claim.to_json(with_reaction=latency) for claim in state.claims],
        }}

    def outcome(self, state: PanicLabState) -> Outcome | None:
        """The first to the target wins; a match that reached its last round (``MAX_ROUNDS``)
        is won by the most tokens, shared by a tie (nobody, when nobody has one)."""
        if state.phase != "over":
            return None
        scores = list(state.tokens)
        if state.winner is not None:
            return Outcome(
                scores=scores,
                ranks=ranks_from_scores(scores),
                winners=[state.winner],
                ending=PanicLabEnding.TOKENS_REACHED,
                details={"n": scores[state.winner]},
            )
        best = max(scores)
        winners = [s for s, n in enumerate(scores) if n == best] if best > 0 else []
        return Outcome(scores=scores, ranks=ranks_from_scores(scores), winners=winners,
                       ending=PanicLabEnding.ROUND_LIMIT,
                       details={"n": best, "rounds": state.round})

    def timers(self, state: PanicLabState) -> list[Timer]:
        r = state.round
        if state.phase == "countdown":
            return [Timer(f"countdown:{r}", float(state.options.countdown_seconds),
                          {"type": "reveal"}, label="Dice in")]
        if state.phase == "search":
            return [Timer(f"search:{r}", float(state.options.search_seconds),
                          {"type": "timeout"}, label="Time left")]
        if state.phase == "settling":
            return [Timer(f"settle:{r}", state.settle_seconds, {"type": "settle"},
                          label="Comparing reaction times", visible=False)]
        if state.phase == "result":
            return [Timer(f"result:{r}", RESULT_SECONDS, {"type": "next_round"},
                          label="Next roll in")]
        return []

    def active_seats(self, state: PanicLabState) -> list[int]:
        if state.phase in ("search", "settling"):
            return [s for s in range(state.players) if s not in state.claimed]
        return []

    def legal_actions(self, state: PanicLabState, seat: int | None) -> list[dict[str, Any]]:
        """A seat that has not claimed this round may claim any amoeba or mutation room once the
        dice are shown (labs and vents are never the answer); the system: its timers' actions."""
        if seat is None:
            return [dict(timer.action) for timer in self.timers(state)]
        if seat in state.claimed or state.phase not in ("search", "settling"):
            return []
        if not 0 <= seat < state.players:
            return []
        return [{"type": "claim", "tile": i} for i, tile in enumerate(state.ring)
                if tile.type not in ("lab", "vent")]

    # --- helpers -------------------------------------------------------------------------------
    def _action(self, move: Move) -> Any:
        action = move.action
        if isinstance(action, dict):
            return self.parse_action(action)
        if not isinstance(action, (ClaimAction, *_SYSTEM_PHASE)):
            raise MalformedAction("not a Panic Lab action")
        return action
