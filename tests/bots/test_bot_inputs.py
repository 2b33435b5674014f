"""A bot is given only its seat's frames, never the state (docs/bots.md, "The seam").

A spy bot records every argument the arena hands it; the engine's ``view`` is wrapped to note
the secrets of the state each frame was built from, so the test can check that none of them is
in what the bot received.
"""

from __future__ import annotations

import json

import pytest

from app.bots import has_bots, make_bot, make_random_bot
from app.bots.arena import play_match
from app.engine.registry import all_games, get_game
from tests.secrets import assert_no_key, walk

FRAME_KEYS = {"type", "seat", "version", "view", "legal", "active", "timers", "events"}


class Spy:
    def __init__(self, bot) -> None:
        self.bot = bot
        self.seen: list[tuple[str, object]] = []

    def observe(self, frame):
        self.seen.append(("observe", frame))
        self.bot.observe(frame)

    def decide(self, frame):
        self.seen.append(("decide", frame))
        return self.bot.decide(frame)


def spy_match(monkeypatch, game_id: str, players: int, seed: bytes, note):
    """Play a match of spied bots; ``note(state, seat)`` is called as each view is built."""
    game = get_game(game_id)
    built: list[tuple[int, object]] = []
    original = type(game).view

    def view(self, state, seat):
        built.append((seat, note(state, seat)))
        return original(self, state, seat)

    monkeypatch.setattr(type(game), "view", view)
    spies = [Spy(make_bot(game_id, 0, "hard", seed=1))] + [
        Spy(make_random_bot(game_id, s, seed=s)) for s in range(1, players)]
    result = play_match(game_id, spies, seed)
    assert result.outcome is not None
    return spies, built


def frames_of(spy: Spy) -> list[dict]:
    frames = [frame for kind, frame in spy.seen if kind == "observe"]
    decided = [frame for kind, frame in spy.seen if kind == "decide"]
    assert frames == decided, "decide sees the same frames as observe, nothing more"
    return frames


def assert_plain_frames(frames: list[dict], seat: int) -> None:
    for frame in frames:
        assert set(frame) == FRAME_KEYS
        assert frame["seat"] == seat
        # Plain JSON only: no state object, no engine model can hide in a frame.
        assert json.loads(json.dumps(frame)) == frame


def test_panika_bot_never_sees_the_burst_number_nor_another_hand(monkeypatch):
    def note(state, seat):
        return {"burst_at": state.burst_at, "round": state.round,
                "hands": [list(h) for h in state.hands], "discard": set(state.discard)}

    spies, built = spy_match(monkeypatch, "panika", 3, b"secret-panika", note)
    for seat, spy in enumerate(spies):
        frames = frames_of(spy)
        notes = [n for s, n in built if s == seat]
        assert len(notes) == len(frames)
        assert_plain_frames(frames, seat)
        assert_no_key(frames, r"burst_at|secret|pile_cards|piles")
        for frame, n in zip(frames, notes, strict=True):
            view = frame["view"]
            # Only its own hand, exactly.
            assert [c["id"] for c in view["hand"]] == n["hands"][seat]
            seen_ids = {v for path, v in walk(frame) if path and path[-1] == "id"}
            assert seen_ids <= set(n["hands"][seat]) | n["discard"]
            # The current round's burst number only ever shows once it has burst.
            burst = view["last_burst"]
            if view["phase"] != "over":
                assert burst is None or burst["round"] < n["round"]
        assert any(frame["legal"] for frame in frames)  # it did get to act


def test_panic_lab_bot_sees_no_dice_before_the_reveal_and_no_answer_before_the_end(monkeypatch):
    def note(state, seat):
        return {"phase": state.phase, "round": state.round,
                "answer": state.solution.answer if state.solution else None}

    spies, built = spy_match(monkeypatch, "panic_lab", 3, b"secret-lab", note)
    for seat, spy in enumerate(spies):
        frames = frames_of(spy)
        assert_plain_frames(frames, seat)
        for frame in frames:
            view = frame["view"]
            if view["phase"] == "countdown":
                assert view["dice"] is None and frame["legal"] == []
            if view["phase"] in ("countdown", "search", "settling"):
                last = view["last_round"]
                assert last is None or last["round"] < view["round"]
                assert_no_key([view["players"]], r"tile|answer")


@pytest.mark.parametrize("game_id", sorted(g.id for g in all_games() if has_bots(g.id)))
def test_every_games_bot_frames_are_plain_seat_frames(monkeypatch, game_id):
    spies, _ = spy_match(monkeypatch, game_id, 2, b"plain", lambda state, seat: None)
    for seat, spy in enumerate(spies):
        assert_plain_frames(frames_of(spy), seat)


def test_pilze_bot_sees_only_its_own_hand_and_no_down_side_outside_lay_events(monkeypatch):
    def note(state, seat):
        return {"hand": list(state.hands[seat])}

    spies, built = spy_match(monkeypatch, "panik_pilze", 3, b"secret-pilze", note)
    for seat, spy in enumerate(spies):
        frames = frames_of(spy)
        notes = [n for s, n in built if s == seat]
        for frame, n in zip(frames, notes, strict=True):
            assert [c["id"] for c in frame["view"]["hand"]] == n["hand"]
            assert all("hand" not in p or isinstance(p["hand"], int)
                       for p in frame["view"]["players"])
            assert_no_key([frame["view"]], r"^down$|^was$")
