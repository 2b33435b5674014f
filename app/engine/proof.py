"""The whole check of a finished match: the record replayed through the game's own rules.

A match proves itself (docs/fairness.md, "The whole check";
docs/decisions/0053-chance-is-data-recorded-with-the-match.md): from its record (the JSON of
``GET /api/matches/{id}``) the match is replayed from its revealed seed, options and action log
through the rules of the game the record names, on a ``RecordingRng``; then

- the seed must hash to the ``seed_hash`` shown when the match began;
- every chance step the record lists must be the one the replay draws at that point, in order:
  the same name, operation, arguments and result (a missing, an extra or a reordered step is a
  mismatch, even when each value follows from the seed);
- every move of the log must be one the rules accept;
- the replay's events, move by move, must hash to the record's ``events_digest``;
- the replay must end the match, with the recorded players' scores, ranks and winners, and
  the recorded ending and its details (a match stored before endings were named has none).

``check_match`` does no I/O; ``python3 -m app verify`` (app/verify.py) reads the record and
prints the verdict, and ``static/verify_match.py`` runs it when the site's code is importable.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .chance import EventDigest
from .errors import EngineError
from .interface import Event, Move
from .registry import get_game
from .replay import replay
from .rng import RecordingRng

STEP_FIELDS = ("name", "op", "args", "result")
"""What a recorded chance step says, each compared with the replay's."""
SHOWN = 5
"""Mismatched chance steps reported one by one at most (then only how many more)."""


@dataclass(slots=True)
class Verdict:
    """What the whole check found: ``problems`` (each a mismatch), ``checked`` (what agreed) and
    ``unchecked`` (what the record does not claim, so nothing could be compared)."""

    problems: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    @property
    def fair(self) -> bool:
        """Everything the record claims agrees, and it claims everything there is to check."""
        return not self.problems and not self.unchecked


def shown(value: Any, limit: int = 60) -> str:
    """A value of the record as JSON text, escaped (nothing in a record can write to the
    terminal) and cut short."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = "(unprintable)"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def counted(n: int, thing: str) -> str:
    """``n`` things, in the plural unless one (``1 chance step``, ``2 moves``)."""
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def check_match(match: dict[str, Any]) -> Verdict:
    """The whole check of one match record (the JSON of ``GET /api/matches/{id}``)."""
    verdict = Verdict()
    seed = _seed(match, verdict)
    game = get_game(match["game"]) if isinstance(match.get("game"), str) else None
    if game is None:
        verdict.problems.append(f"no game {shown(match.get('game'))} on this site: the match "
                                "cannot be replayed through its rules")
        return verdict
    players, moves = match.get("players"), _moves(match, verdict)
    if seed is None or moves is None:
        return verdict
    if not isinstance(players, list) or not players:
        verdict.problems.append("the record lists no players")
        return verdict
    seats = game.recorded_seats(players)
    if not game.open_table and seats not in game.player_counts():
        verdict.problems.append(f"{game.id} is not played by {seats} players")
        return verdict
    rng = RecordingRng(seed)
    digest = EventDigest()

    def watch(_state: object, move: Move | None, events: list[Event]) -> None:
        if move is not None:
            digest.add(events)

    try:
        done = replay(game, seats, match.get("options") or {}, seed, moves, rng=rng,
                      stop_at_refusal=True, watch=watch)
    except EngineError as error:  # the options or the set-up refused
        verdict.problems.append(f"the match cannot be set up by {game.id}'s rules: "
                                f"{shown(str(error), 200)}")
        return verdict
    except Exception as error:  # noqa: BLE001 - a crafted record the rules cannot take
        verdict.problems.append(f"the rules of {game.id} fail on this record: "
                                f"{shown(repr(error), 200)}")
        return verdict
    _compare_draws(match.get("draws"), rng.draws, verdict)
    if done.refused is not None:
        index, refusal = done.refused
        verdict.problems.append(f"move {index} ({shown(match['actions'][index], 100)}) is "
                                f"refused by {game.id}'s rules: {shown(str(refusal), 200)}")
        return verdict
    verdict.checked.append(f"{counted(len(moves), 'move')} replayed through {game.id}'s rules")
    _compare_events(match.get("events_digest"), digest.hexdigest(), verdict)
    outcome = game.outcome(done.state)
    _compare_outcome(outcome, players, verdict)
    _compare_ending(outcome, match, verdict)
    return verdict


def _seed(match: dict[str, Any], verdict: Verdict) -> bytes | None:
    seed_hex, seed_hash = match.get("seed"), match.get("seed_hash")
    if not isinstance(seed_hex, str) or not re.fullmatch(r"(?:[0-9a-fA-F]{2})+", seed_hex):
        verdict.problems.append(f"the match has no revealed seed in hexadecimal (seed: "
                                f"{shown(seed_hex)})")
        return None
    seed = bytes.fromhex(seed_hex)
    digest = hashlib.sha256(seed).hexdigest()
    if not isinstance(seed_hash, str) or digest != seed_hash.lower():
        verdict.problems.append(f"the seed does not match its hash: sha256(seed) = {digest}, "
                                f"the match showed {shown(seed_hash, 80)}")
    else:
        verdict.checked.append("the seed hashes to the seed_hash shown when the match began")
    return seed


def _moves(match: dict[str, Any], verdict: Verdict) -> list[Move] | None:
    actions = match.get("actions")
    if not isinstance(actions, list):
        verdict.problems.append("the record has no action log (actions)")
        return None
    try:
        return [Move.from_json(action) for action in actions]
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        verdict.problems.append(f"the action log cannot be read: {shown(str(error), 100)}")
        return None


def _compare_draws(recorded: Any, drawn: Sequence[dict[str, Any]], verdict: Verdict) -> None:
    """Each recorded chance step against the replay's, in order."""
    if not isinstance(recorded, list):
        verdict.problems.append("the record lists no chance steps (draws)")
        return
    wrong = 0
    for index, (claimed, made) in enumerate(zip(recorded, drawn)):
        fields = claimed if isinstance(claimed, dict) else {}
        differ = [name for name in STEP_FIELDS if fields.get(name) != made[name]]
        if differ:
            wrong += 1
            if wrong <= SHOWN:
                verdict.problems.append(
                    f"chance step {index}: the record says {shown(claimed, 100)}, the rules "
                    f"draw {shown({k: made[k] for k in STEP_FIELDS}, 100)} here")
    if wrong > SHOWN:
        verdict.problems.append(f"... and {wrong - SHOWN} more chance steps differ")
    if len(recorded) != len(drawn):
        verdict.problems.append(f"the record lists {counted(len(recorded), 'chance step')}; the "
                                f"rules draw {len(drawn)} over the same moves")
    if not wrong and len(recorded) == len(drawn):
        verdict.checked.append(f"{counted(len(drawn), 'chance step')} re-derived through the "
                               "rules, each with its name, operation, arguments and result, in "
                               "order")


def _compare_events(recorded: Any, replayed: str, verdict: Verdict) -> None:
    if recorded is None:
        verdict.unchecked.append("the record keeps no digest of its events (a match stored "
                                 "before they were recorded): the events were not compared")
    elif recorded != replayed:
        verdict.problems.append(f"the events the rules make (sha256 {replayed}) are not the "
                                f"ones recorded (events_digest {shown(recorded, 80)})")
    else:
        verdict.checked.append("every move's events are the ones recorded (events_digest)")


def _compare_outcome(outcome: Any, players: list[Any], verdict: Verdict) -> None:
    if outcome is None:
        verdict.problems.append("the rules do not end the match with this log, yet it is "
                                "recorded as finished")
        return
    before = len(verdict.problems)
    for player in players:
        seat = player.get("seat") if isinstance(player, dict) else None
        if not isinstance(seat, int) or not 0 <= seat < len(outcome.scores):
            verdict.problems.append(f"a recorded player has no seat of the match: "
                                    f"{shown(player, 100)}")
            continue
        claimed = (player.get("score"), player.get("rank"), player.get("winner"))
        made = (outcome.scores[seat], outcome.ranks[seat], seat in outcome.winners)
        if claimed != made:
            verdict.problems.append(
                f"seat {seat}: the record says score {shown(claimed[0])}, rank "
                f"{shown(claimed[1])}, winner {shown(claimed[2])}; the rules end the match "
                f"with score {made[0]}, rank {made[1]}, winner {made[2]}")
    if len(verdict.problems) == before:
        verdict.checked.append(f"the outcome (scores, ranks, winners of {len(players)} "
                               "players) is the one recorded")


def _compare_ending(outcome: Any, match: dict[str, Any], verdict: Verdict) -> None:
    """How the match ended (docs/decisions/0058), when the record names it."""
    recorded = match.get("ending")
    if outcome is None or recorded is None:
        return
    made = (str(outcome.ending), outcome.details)
    claimed = (recorded, match.get("details") or {})
    if claimed != made:
        verdict.problems.append(f"the record says the match ended {shown(claimed, 120)}; the "
                                f"rules end it {shown(made, 120)}")
    else:
        verdict.checked.append(f"the ending ({made[0]}) is the one recorded")
