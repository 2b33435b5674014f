"""Match records as the site serves them (``GET /api/matches/{id}``), made in-process, and the
tampered ones that the whole check (app/engine/proof.py) and the stand-alone verifier
(static/verify_match.py) must both refuse to call fair.

A record is made as a room records its match (app/realtime/room/match.py): random legal play on
a ``RecordingRng``, each move's events folded into an ``EventDigest``, the outcome's scores,
ranks and winners per seat.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from app.engine import Game, Move, get_game, seed_commitment
from app.engine.chance import EventDigest, events_digest
from app.engine.interface import Event
from app.engine.rng import RecordingRng
from app.games import load_all

load_all()

MAX_STEPS = 20_000
"""Steps of a random match at most."""


def finished(game: Game, label: str, attempts: int = 8) -> dict[str, Any]:
    """A finished match of ``game`` from random legal play (seats' legal actions and the timers
    the rules run), as its record: the first of ``attempts`` seeds whose match ends."""
    for attempt in range(attempts):
        record = _played(game, f"{label}-{attempt}".encode(), random.Random(f"{label}-{attempt}"))
        if record is not None:
            return record
    raise AssertionError(f"{game.id}: no random match ended in {attempts} attempts")


def _played(game: Game, seed: bytes, chooser: random.Random) -> dict[str, Any] | None:
    players = game.max_players if game.open_table else chooser.choice(list(game.player_counts()))
    rng, digest = RecordingRng(seed), EventDigest()
    state = game.setup(players, game.parse_options({}), rng)
    legal = getattr(game, "legal_actions", None)
    log: list[dict[str, Any]] = []
    at_ms = 0
    for _ in range(MAX_STEPS):
        outcome = game.outcome(state)
        if outcome is not None:
            return {
                "id": 1, "game": game.id, "options": {}, "seed": seed.hex(),
                "seed_hash": seed_commitment(seed), "ending": str(outcome.ending),
                "details": outcome.details,
                "players": [{"seat": s, "nickname": f"P{s}", "score": outcome.scores[s],
                             "rank": outcome.ranks[s], "winner": s in outcome.winners,
                             "bot": None} for s in range(players)],
                "actions": [{"index": i, **move} for i, move in enumerate(log)],
                "draws": rng.draws, "events_digest": digest.hexdigest(),
            }
        candidates = [(None, timer.action) for timer in game.timers(state)]
        if legal is not None:
            candidates += [(seat, action) for seat in range(players)
                           for action in legal(state, seat)]
        if not candidates:
            return None
        seat, action = chooser.choice(candidates)
        at_ms += chooser.randint(20, 1500)
        digest.add(game.step(state, Move(seat, game.parse_action(action), at_ms, 0), rng))
        log.append({"seat": seat, "action": action, "at_ms": at_ms, "rtt_ms": 0})
    return None


def redrawn(seed: bytes, steps: list[tuple[Any, str, list[int]]]) -> list[dict[str, Any]]:
    """A chance log of these (name, op, args), made by the seed's own generator: every draw
    "follows from the seed", as a faulty engine's or a careful forger's would."""
    rng = RecordingRng(seed)
    for name, op, args in steps:
        if op == "shuffle":
            rng.shuffle(list(range(args[0])), step=name)
        elif op == "choice":
            rng.choice(list(range(args[0])), step=name)
        else:
            getattr(rng, op)(*args, step=name)
    return rng.draws


def _steps(match: dict[str, Any]) -> list[tuple[Any, str, list[int]]]:
    return [(d["name"], d["op"], d["args"]) for d in match["draws"]]


# --- the matches the checks start from -----------------------------------------------------------
_made: dict[str, dict[str, Any]] = {}


def a_match(game_id: str) -> dict[str, Any]:
    """A finished match of ``game_id`` (a copy: tamper with it at will). Panika's has a burst
    after its setup; Panik Pilze's reshuffled its action pile."""
    if game_id not in _made:
        want: Callable[[dict[str, Any]], bool] = {
            "panika": lambda m: sum(d["name"] == "burst_number" for d in m["draws"]) >= 2,
            "panik_pilze": lambda m: any(d["name"] == "action_reshuffle" for d in m["draws"]),
        }.get(game_id, lambda m: True)
        game = get_game(game_id)
        assert game is not None
        for attempt in range(30):
            match = finished(game, f"tamper-{game_id}-{attempt}")
            if want(match):
                _made[game_id] = match
                break
        else:
            raise AssertionError(f"no {game_id} match of the kind wanted")
    return copy.deepcopy(_made[game_id])


def counter_tapped_past_its_burst() -> dict[str, Any]:
    """A counter whose seed's burst number is 21, recorded as tapped to 25 with no burst (its
    events say so), then a new counter: every draw follows from the seed."""
    seed = next(s for s in (f"counter-21-{i}".encode() for i in range(1000))
                if RecordingRng(s).randint(21, 30) == 21)
    taps = [{"index": i, "seat": 0, "action": {"type": "tap"}, "at_ms": 100 * (i + 1),
             "rtt_ms": 0} for i in range(25)]
    end = {"index": 25, "seat": 0, "action": {"type": "new_counter"}, "at_ms": 2600, "rtt_ms": 0}
    told = [[] for _ in taps] + [[Event("A new counter: this one's seed is revealed", 0,
                                        "new_counter")]]
    return {
        "id": 1, "game": "panika_counter", "options": {}, "seed": seed.hex(),
        "seed_hash": seed_commitment(seed), "summary": "",
        "players": [{"seat": 0, "nickname": "P0", "score": 25, "rank": 1, "winner": True,
                     "bot": None}],
        "actions": [*taps, end],
        "draws": redrawn(seed, [("burst_number", "randint", [21, 30])]),
        "events_digest": events_digest(told),
    }


def _drop_last_burst(match: dict[str, Any]) -> dict[str, Any]:
    steps = _steps(match)
    last = max(i for i, (name, _, _) in enumerate(steps) if name == "burst_number" and i > 2)
    return {**match, "draws": redrawn(bytes.fromhex(match["seed"]), steps[:last] + steps[last + 1:])}


def _extra_burst(match: dict[str, Any]) -> dict[str, Any]:
    steps = [*_steps(match), ("burst_number", "randint", [21, 30])]
    return {**match, "draws": redrawn(bytes.fromhex(match["seed"]), steps)}


def _out_of_order(match: dict[str, Any]) -> dict[str, Any]:
    """Panika's set-up draws the first player before the burst number (each still follows
    from the seed): not the order the rules draw them."""
    steps = _steps(match)
    steps[1], steps[2] = steps[2], steps[1]
    return {**match, "draws": redrawn(bytes.fromhex(match["seed"]), steps)}


def _changed_result(match: dict[str, Any]) -> dict[str, Any]:
    draws = match["draws"]
    burst = next(i for i, d in enumerate(draws) if d["op"] == "randint")
    draws[burst]["result"] = 21 if draws[burst]["result"] != 21 else 22
    draws[0]["result"][0], draws[0]["result"][1] = draws[0]["result"][1], draws[0]["result"][0]
    return match


def _sides_before_shuffle(match: dict[str, Any]) -> dict[str, Any]:
    steps = _steps(match)
    return {**match, "draws": redrawn(bytes.fromhex(match["seed"]),
                                      steps[1:61] + steps[:1] + steps[61:])}


def _reshuffle_missing(match: dict[str, Any]) -> dict[str, Any]:
    first = next(i for i, d in enumerate(match["draws"]) if d["name"] == "action_reshuffle")
    return {**match, "draws": match["draws"][:first]}


def _other_seed(match: dict[str, Any]) -> dict[str, Any]:
    other = b"another seed, not the match's"
    return {**match, "seed": other.hex()}


def _other_seed_and_hash(match: dict[str, Any]) -> dict[str, Any]:
    other = b"another seed, not the match's"
    return {**match, "seed": other.hex(), "seed_hash": seed_commitment(other)}


def _hostile(draw: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda match: {**match, "draws": [draw, *match["draws"]]}


TAMPERED: dict[str, tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]] = {
    "changed draw results": ("panika", _changed_result),
    "another seed": ("panika", _other_seed),
    "another seed with its hash": ("panika", _other_seed_and_hash),
    "no draws": ("panika", lambda m: {**m, "draws": None}),
    "an unknown operation": ("panika", lambda m: {**m, "draws": [
        {"name": "die", "op": "roll", "args": [6], "result": 1}]}),
    "randbelow of nothing": ("panika", lambda m: {**m, "draws": [
        {"name": "die", "op": "randbelow", "args": [0], "result": 0}]}),
    "a seed not in hex": ("panika", lambda m: {**m, "seed": "not hex"}),
    "a list for an operation": ("panika", _hostile(
        {"name": "x", "op": ["randbelow"], "args": [6], "result": 1})),
    "a shuffle of a billion": ("panika", _hostile(
        {"name": "x", "op": "shuffle", "args": [10**9], "result": []})),
    "a trillion bits": ("panika", _hostile(
        {"name": "x", "op": "getrandbits", "args": [10**12], "result": 0})),
    "Pilze's sides drawn before its shuffle": ("panik_pilze", _sides_before_shuffle),
    "Pilze's reshuffle left out": ("panik_pilze", _reshuffle_missing),
    "a counter tapped to 25 past its burst at 21": ("", lambda _: counter_tapped_past_its_burst()),
    "a game name with a trailing space": ("panika", lambda m: {**m, "game": "panika "}),
    "Panika with an extra burst draw": ("panika", _extra_burst),
    "Panika with a burst draw missing": ("panika", _drop_last_burst),
    "Panika's draws out of their order": ("panika", _out_of_order),
}
"""Every tampered match: (the game whose match it starts from, the tampering)."""


def tampered(case: str) -> dict[str, Any]:
    game_id, tamper = TAMPERED[case]
    return tamper(a_match(game_id) if game_id else {})
