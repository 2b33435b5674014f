"""What each seat sees: no dice before the reveal, no one else's claim before the round ends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from app.games.panic_lab import GAME

from .rings import answer, claim, start, system, wrong_tiles


def walk(value: Any, path: str = "") -> Iterator[tuple[str, str, Any]]:
    """Every (path, key, value) in a view, however deep."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield path, key, item
            yield from walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from walk(item, f"{path}[{i}]")


SECRET_KEYS = {"answer", "path", "sought", "reason", "tile", "claims", "reaction_ms", "correct"}


def all_views(state) -> dict[int | None, dict]:
    return {seat: GAME.view(state, seat) for seat in [None, *range(state.players)]}


def test_views_before_the_reveal_hold_no_dice_and_no_answer():
    state, rng = start(3)
    for seat, view in all_views(state).items():
        json.dumps(view)
        assert view["dice"] is None and view["phase"] == "countdown"
        keys = {key for _, key, _ in walk(view)}
        assert not keys & (SECRET_KEYS - {"tile"}), seat
        assert view["last_round"] is None


def test_views_after_the_reveal_show_dice_but_not_the_answer():
    state, rng = start(3)
    system(state, rng, "reveal", 3000)
    for view in all_views(state).values():
        assert view["dice"] == state.roll.to_json()
        keys = {key for _, key, _ in walk(view)}
        assert not keys & SECRET_KEYS


def test_others_claim_tiles_stay_hidden_until_the_round_ends():
    state, rng = start(3, latency_fair=True)
    system(state, rng, "reveal", 3000)
    wrong = wrong_tiles(state)[0]
    claim(state, rng, 0, wrong, at_ms=3400, rtt_ms=50)
    claim(state, rng, 1, answer(state), at_ms=3500, rtt_ms=50)
    assert state.phase == "settling"
    views = all_views(state)
    for seat, view in views.items():
        tiles = [(p, v) for p, key, v in walk(view) if key == "tile"]
        if seat in (0, 1):
            assert tiles == [(".my_claim", wrong if seat == 0 else answer(state))]
        else:
            assert tiles == []
            assert view.get("my_claim") is None
        assert not {key for _, key, _ in walk(view)} & (SECRET_KEYS - {"tile"})
        players = view["players"]
        assert [(p["claimed"], p["locked"]) for p in players] == [
            (True, True), (True, False), (False, False)]
    assert "my_claim" not in views[None]

    system(state, rng, "settle", 3800)
    for view in all_views(state).values():
        claims = view["last_round"]["claims"]
        assert [(c["seat"], c["tile"], c["correct"]) for c in claims] == [
            (0, wrong, False), (1, answer(state), True)]
        assert view["last_round"]["path"][-1]["index"] == answer(state)


def test_view_shape_example():
    state, rng = start(2)
    system(state, rng, "reveal", 3000)
    claim(state, rng, 1, answer(state), at_ms=3600, rtt_ms=40)
    view = GAME.view(state, 0)
    assert set(view) == {"phase", "round", "variant", "target_tokens", "latency_fair", "ring",
                         "dice", "players", "last_round", "winner", "seat", "my_claim"}
    assert view["players"] == [
        {"seat": 0, "tokens": 0, "claimed": False, "locked": False},
        {"seat": 1, "tokens": 1, "claimed": True, "locked": False},
    ]
    assert set(view["last_round"]) == {"round", "winner", "ended_by", "dice", "answer",
                                       "reason", "sought", "passes", "path", "claims"}
    assert len(view["ring"]) == 25 and {t["type"] for t in view["ring"]} == {
        "lab", "vent", "mutation", "amoeba"}
    json.dumps(view)


def test_view_does_not_expose_the_rng_or_the_next_roll():
    state, rng = start(2)
    text = json.dumps(all_views(state))
    assert "seed" not in text and "rng" not in text


def test_validate_never_mutates():
    import copy  # noqa: PLC0415

    from app.engine import EngineError, Move  # noqa: PLC0415

    state, rng = start(3, latency_fair=True)
    system(state, rng, "reveal", 3000)
    claim(state, rng, 0, answer(state), at_ms=3400, rtt_ms=50)
    before = copy.deepcopy(state)
    for seat in (None, 0, 1, 2):
        for raw in ({"type": "claim", "tile": answer(state)}, {"type": "settle"},
                    {"type": "reveal"}, {"type": "claim", "tile": wrong_tiles(state)[0]}):
            try:
                GAME.validate(state, Move(seat, GAME.parse_action(raw), 3500, 20))
            except EngineError:
                pass
    assert state == before


def test_my_claim_is_null_until_the_seat_claims_and_absent_from_the_public_view():
    # docs/games/panic-lab.md: claim locations stay hidden until the round ends; a seat sees
    # its own.
    state, rng = start(3)
    system(state, rng, "reveal", 3000)
    assert GAME.view(state, 0)["my_claim"] is None
    assert "my_claim" not in GAME.view(state, None) and GAME.view(state, None)["seat"] is None
    tile = wrong_tiles(state)[0]
    claim(state, rng, 0, tile, 4000)
    assert GAME.view(state, 0)["my_claim"] == {"tile": tile}
    assert GAME.view(state, 1)["my_claim"] is None
