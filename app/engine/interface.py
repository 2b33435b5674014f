"""The one small interface every game engine implements.

A game is a set of pure functions over a state object it owns (boardgame.io's shape, with
OpenSpiel's per-player observations):

- ``setup(players, options, rng)`` builds the initial state; chance comes only from ``rng``.
- ``parse_action(raw)`` turns a client's JSON object into the game's action model, or raises
  ``MalformedAction``.
- ``validate(state, move)`` raises ``IllegalAction``/``NotYourTurn`` when the move may not be
  played now: first the check every game shares (``check_sender``: a system-only action from a
  player, a player's action from the system, a seat outside the table), then the game's own
  rules (``check``). It never changes the state.
- ``apply(state, move, rng)`` performs a validated move, mutating the state, and returns the
  public events it caused. ``step`` is validate followed by apply.
- ``view(state, seat)`` is what one seat may see (``seat=None``: the public view for spectators
  and the table screen). Secrets never appear in a view they do not belong to.
- ``revealed_view(state)`` is the public view with every secret shown, for watching a finished
  match again (never sent to a room).
- ``outcome(state)`` is ``None`` while the match runs, then the scores and ranks and the
  match's ending: one of the game's ``Ending`` members (python-chess's ``Termination``) with the
  numbers its sentence needs. Engines write no summary sentence: the pages build it from the
  game's catalogs (``ending.<id>.<ending>``) in the reader's language (app/i18n/endings.py).
- ``timers(state)`` lists the timers the rules ask for now (a countdown before a reveal, a turn
  limit, an automatic completion). The room runs them; when one expires it applies the timer's
  action as a move by the system (``seat=None``). Engines never read a clock: the time a move was
  received reaches them as data (``Move.at_ms``) and is recorded in the action log.
- ``active_seats(state)`` are the seats the game waits on now (whose turn it is).
- ``legal_actions(state, seat)`` lists every action that seat may send now, as raw JSON.
- ``max_moves`` (a number, no default) is the most moves a match can have: the rules end every
  match by then.
- ``replay_step(move, events)`` says how a move stands in a finished match's replay: whether it
  continues the play of the move before (a tap paying a played card), and which marks it
  carries (a burst, a new round); ``replay_marks`` names those marks. Default: every move a play
  of its own, no marks (docs/decisions/0063).

The app's other hooks are here too, with defaults: ``Options`` (the game's typed options model),
``system_actions``/``shared_actions`` (who may send which action), ``open_table`` and
``closing_action`` (the stand-alone counter), ``rules_data`` (what the rules page shows).

Replay: a match is fully determined by its seed, its options and its action log (every ``Move``
including the system's), so ``replay`` rebuilds any state exactly.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import IllegalAction, MalformedAction
from .rng import SeededRng


class SeatedState(Protocol):
    """What the shared checks read of every game's state: its number of seats."""

    players: int


S = TypeVar("S", bound=SeatedState)
O = TypeVar("O", bound="GameOptions")

SYSTEM = None
"""The seat of moves made by the room's timers rather than by a player."""


@dataclass(frozen=True, slots=True)
class Move:
    """One entry of the action log: who acted, what they did, and when the room received it.

    The one type of a move everywhere: the engines
    get it with ``action`` parsed into the game's action model; the room's log, the journal,
    a restore, the match store and the fairness check keep it with ``action`` as its JSON
    object. As JSON (the database, the outbox, the API) it is ``to_json``/``from_json``; its
    number in the log (``seq``, from 1) is its position there (docs/architecture.md, "The
    room's core").
    """

    seat: int | None
    action: Any
    at_ms: int = 0
    """Milliseconds since the match started, as the room received the move."""
    rtt_ms: int = 0
    """The sender's measured network round trip when the move arrived (0 for the system)."""

    def logged(self) -> Move:
        """This move as the log keeps it: the action as normalised JSON."""
        action = self.action
        if isinstance(action, BaseModel):
            return Move(self.seat, action.model_dump(mode="json"), self.at_ms, self.rtt_ms)
        return self if isinstance(action, dict) else Move(
            self.seat, dict(action), self.at_ms, self.rtt_ms)

    def to_json(self) -> dict[str, Any]:
        """The move as stored and served: ``seat``, ``action``, ``at_ms``, ``rtt_ms``."""
        action = self.action
        if isinstance(action, BaseModel):
            action = action.model_dump(mode="json")
        return {"seat": self.seat, "action": action, "at_ms": self.at_ms, "rtt_ms": self.rtt_ms}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Move:
        """A move from its JSON object (a missing ``rtt_ms``, as in older records, is 0)."""
        return cls(data["seat"], data["action"], data["at_ms"], data.get("rtt_ms", 0))


class ValidAction:
    """A client's action validated with its frame in one pass (app/engine/actioncodec.py,
    docs/decisions/0031-one-strict-decode-of-an-action.md): the game's action model, and its
    normalised JSON text, which the log keeps as it is instead of dumping the model again.
    A plain class: made once per action frame, and a frozen dataclass costs four times as much
    to make."""

    __slots__ = ("model", "text")

    def __init__(self, model: Any, text: str) -> None:
        self.model = model
        self.text = text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ValidAction):
            return NotImplemented
        return self.model == other.model and self.text == other.text

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ValidAction({self.model!r}, {self.text!r})"


@dataclass(frozen=True, slots=True)
class Event:
    """A public line for the event log. ``text`` may name seats as ``{seat:N}``."""

    text: str
    seat: int | None = None
    kind: str = "info"
    data: dict[str, Any] = field(default_factory=dict)
    transient: bool = False
    """Sent with the move that caused it (for animation) but kept out of the event log."""


@dataclass(frozen=True, slots=True)
class Timer:
    """A timer the rules ask for: after ``seconds``, the system plays ``action``.

    ``key`` identifies this instance of the timer: while the key stays in ``timers(state)`` the
    timer keeps running; a new key (say, after another tap) restarts it.
    """

    key: str
    seconds: float
    action: dict[str, Any]
    label: str = ""
    seats: tuple[int, ...] = ()
    visible: bool = True


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """How one move stands in a finished match's replay (``Game.replay_step``): the replay's
    step buttons go a play at a time, and its jump buttons to the next move carrying a mark
    (docs/decisions/0063)."""

    joins: bool = False
    """The move continues the play of the move before it (a tap paying for a card just
    played), so one step of the replay shows them together."""
    marks: tuple[str, ...] = ()
    """The marks this move carries, each one of the game's ``replay_marks``."""


PLAY = ReplayStep()
"""A move that is a play of its own and carries no mark (the default)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished match, one entry per seat, and how it ended
    (docs/decisions/0058-outcomes-name-their-ending.md)."""

    scores: list[int]
    ranks: list[int]
    """1 is best; tied seats share a rank."""
    winners: list[int]
    ending: StrEnum
    """What ended the match: a member of the game's ``Ending``."""
    details: dict[str, Any] = field(default_factory=dict)
    """The numbers the ending's sentence names, as JSON values (``n``: the count its plural
    follows; say the tokens, the rounds or the moves). The winners are ``winners``."""


def ranks_from_scores(scores: list[int]) -> list[int]:
    """Competition ranking (1, 1, 3): higher score is better, ties share the better rank."""
    return [1 + sum(1 for other in scores if other > mine) for mine in scores]


class ActionModel(BaseModel):
    """The base of every game's action models: strict, as the frames around an action are read
    (docs/protocol.md, "Client to server"): every field has exactly its JSON type (``"7"``,
    ``7.0`` or ``true`` where an integer goes is ``malformed_action``, never read as 7 or 1), no
    field the model does not have, and the parsed action is immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class GameOptions(BaseModel):
    """The base of every game's options model: no field the model does not have; each value
    reads as its type in pydantic's lax mode (docs/protocol.md, "Room options" and each game's
    "Options")."""

    model_config = ConfigDict(extra="forbid")


EXPERT: dict[str, Any] = {"expert": True}
"""``Field(..., json_schema_extra=EXPERT)``: an option a group seldom changes (a timer's length,
a fairness rule); the room page folds it under "More options" (docs/adding-a-game.md, decision
0060). The mark is the field's ``"expert": true`` in the options' JSON schema."""


class Game(ABC, Generic[S, O]):
    """A game's rules engine. Subclasses are stateless; all state lives in ``S``; ``O`` is the
    game's options model."""

    id: ClassVar[str]
    title: ClassVar[str]
    pitch: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    Options: type[O]
    """The game's options (a ``GameOptions`` model); ``setup`` receives them parsed."""
    Action: ClassVar[type[BaseModel]]
    """A pydantic model (a root model over a discriminated union is fine) for one action."""
    Ending: ClassVar[type[StrEnum]]
    """Every way a match of this game can end (a ``StrEnum``; the match limit of decision 0038
    is one of them): ``outcome`` names one, and each has its sentence in the game's texts in
    every language, ``ending.<id>.<value>`` (docs/adding-a-game.md, "Endings")."""
    system_actions: ClassVar[frozenset[str]] = frozenset()
    """Action types only the system (the room's timers) sends; every other type is a player's."""
    shared_actions: ClassVar[frozenset[str]] = frozenset()
    """Action types a player and the system may both send (a die's ``roll``: the roller, or
    the system when the roller's time runs out)."""
    open_table: ClassVar[bool] = False
    """True for a game with no waiting room (the stand-alone counter): the match starts with the
    room, set up for ``max_players`` seats, and each member who joins takes the next free seat."""
    closing_action: ClassVar[dict[str, Any] | None] = None
    """The system move that ends a match still running when its room closes (an open table's:
    the counter's seed is then revealed and its match recorded); None: the match just stops."""
    max_moves: ClassVar[int]
    """The most moves (players' and the system's together) a match of this game can have, for
    any number of seats and any options: the rules end every match by then, whatever is played.
    A game whose rules end by themselves proves its number (docs/games/<game>.md, "The bound");
    one whose play could go on for ever (taps taken back, turns that change nothing, rounds
    nobody wins) ends the match by a rule of its own at its limit. Everything built from a
    match's log is bounded by it: the room's log, the stored record, its page and its replay
    (docs/decisions/0038-every-match-has-a-bound.md). The room refuses a move past it, as a
    backstop (``MatchRun.play``); tests/conformance/test_bound.py plays random and stalling
    matches of every game against it."""

    # --- the rules -----------------------------------------------------------------------------
    @abstractmethod
    def setup(self, players: int, options: O, rng: SeededRng) -> S: ...

    @abstractmethod
    def check(self, state: S, move: Move) -> None:
        """The game's own refusals of ``move`` now (``validate`` has checked its sender)."""

    @abstractmethod
    def apply(self, state: S, move: Move, rng: SeededRng) -> list[Event]: ...

    @abstractmethod
    def view(self, state: S, seat: int | None) -> dict[str, Any]: ...

    @abstractmethod
    def revealed_view(self, state: S) -> dict[str, Any]:
        """The public view (``view(state, None)``) with every secret of ``state`` shown under
        ``"revealed"`` (every hand, every hidden side, the burst number: each game's form is in
        docs/games/<game>.md, "The revealed view"). Only a finished match's replay uses it
        (docs/protocol.md, "Watching a match again"); no room frame ever carries it."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None: ...

    @abstractmethod
    def timers(self, state: S) -> list[Timer]: ...

    @abstractmethod
    def active_seats(self, state: S) -> list[int]: ...

    @abstractmethod
    def legal_actions(self, state: S, seat: int | None) -> list[dict[str, Any]]:
        """Every action ``seat`` may send now, as the JSON objects a client sends (each passes
        ``validate``); ``seat=None``: the system's (its timers' actions). Empty when the seat may
        not act. Bots choose from it and pages enable only these choices."""

    hidden_information: ClassVar[bool] = True
    """Whether some of the state is hidden from some seat (hands, piles, a secret number); False
    for a game where everything is public (a race on an open board)."""

    @abstractmethod
    def hidden_variant(self, state: S, seat: int | None, rng: SeededRng) -> S:
        """A state ``seat`` cannot tell from ``state``: a copy with what the seat may not see
        drawn again from what it may know (OpenSpiel's ``resample_from_infostate``). The seat's
        view and legal actions must be the same in both: so no view shows a secret
        (tests/conformance/test_secrecy.py). A game with no hidden information returns a copy."""

    replay_marks: ClassVar[tuple[str, ...]] = ()
    """The marks a replay of this game can jump to (a burst, a round, a turn), in the order its
    jump buttons show; each is labelled by the game's text ``game.<id>.replay.<mark>``
    (docs/adding-a-game.md, "The replay"). Empty: no jump buttons."""

    def replay_step(self, move: Move, events: list[Event]) -> ReplayStep:
        """How ``move`` (as the log keeps it: the action a JSON object), which caused
        ``events``, stands in a replay: whether it joins the play of the move before, and its
        marks (each in ``replay_marks``). Pure: the move and its events decide. The default:
        every move a play of its own, no marks."""
        return PLAY

    def rules_data(self) -> dict[str, Any]:
        """What the game's rules page shows beside its text (a board and its tables, say)."""
        return {}

    # --- shared helpers ------------------------------------------------------------------------
    def parse_options(self, raw: dict[str, Any] | None) -> O:
        """Validate room options; raises ``MalformedAction`` with pydantic's message."""
        try:
            return self.Options.model_validate(raw or {})
        except ValidationError as exc:
            raise MalformedAction(_first_error(exc)) from exc

    def parse_action(self, raw: Any) -> Any:
        """Validate a client's action object into the game's action model."""
        try:
            parsed = self.Action.model_validate(raw)
        except ValidationError as exc:
            raise MalformedAction(_first_error(exc)) from exc
        return getattr(parsed, "root", parsed)

    def views(self, state: S, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
        """The views of several seats at once (what the room sends after a move). A game that
        splits its views (``view_parts``) has them joined from its parts, the shared part built
        once; another may override this to build a shared part once."""
        seats = list(seats)
        parts = self.view_parts(state, seats)
        if parts is None:
            return {seat: self.view(state, seat) for seat in seats}
        shared, own = parts
        return {seat: {**shared, **own[seat]} for seat in seats}

    def view_parts(
        self, state: S, seats: Iterable[int | None]
    ) -> tuple[dict[str, Any], dict[int | None, dict[str, Any]]] | None:
        """The views of ``seats`` split in two, for a game whose views share a large part: what
        every seat sees alike, and each seat's own keys, so that ``{**shared, **own[seat]}`` is
        ``view(state, seat)`` key for key and in order (the shared keys first, none repeated).
        The room then encodes the shared part once per move and each seat's keys after it (the
        state frame's bytes are the same: app/realtime/room/frames.py, ``joined_view``). None,
        the default: the room takes ``views``. tests/conformance/test_views.py holds every game
        that splits its views to this."""
        return None

    def validate(self, state: S, move: Move) -> None:
        """Whether ``move`` may be played now: its sender (``check_sender``), then the rules
        (``check``); raises the engine's error when not. Never changes the state. An action
        still in its JSON form is parsed first (``MalformedAction`` when it is not the game's)."""
        if isinstance(move.action, dict):
            move = Move(move.seat, self.parse_action(move.action), move.at_ms, move.rtt_ms)
        self.check_sender(state, move)
        self.check(state, move)

    def check_sender(self, state: S, move: Move) -> None:
        """The refusal every game shares, before its own rules (docs/protocol.md, "Who may send
        an action"): a system-only action from a seat, a player's action from the system, or a
        seat outside the table is ``IllegalAction``."""
        kind = move.action.type
        seat = move.seat
        if seat is None:
            if kind not in self.system_actions and kind not in self.shared_actions:
                raise IllegalAction(f"only a player may send {kind}")
        elif kind in self.system_actions:
            raise IllegalAction(f"only the system may send {kind}")
        elif not 0 <= seat < state.players:
            raise IllegalAction(f"there is no seat {seat}")

    def step(self, state: S, move: Move, rng: SeededRng) -> list[Event]:
        """Validate, then apply: the one path every move takes (an action still in its JSON
        form is parsed first)."""
        if isinstance(move.action, dict):
            move = Move(move.seat, self.parse_action(move.action), move.at_ms, move.rtt_ms)
        self.validate(state, move)
        return self.apply(state, move, rng)

    def player_counts(self) -> range:
        return range(self.min_players, self.max_players + 1)

    def recorded_seats(self, players: list[Any]) -> int:
        """How many seats a stored match with these recorded ``players`` was set up for (what
        its replay needs): one per recorded player, but an open table is always set up for
        ``max_players`` and records only the seats someone sat in (docs/protocol.md,
        ``GET /api/matches/{id}``)."""
        return self.max_players if self.open_table else len(players)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()) if p != "root")
    return f"{where}: {err['msg']}" if where else str(err["msg"])
