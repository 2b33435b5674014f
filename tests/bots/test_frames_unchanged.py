"""A bot reads its state frame and never changes it (docs/bots.md, "The seam").

The room hands a bot seat its frame as a value, not decoded afresh from the bytes a client gets
(app/realtime/room/frames.py, ``to_bot``): the frame shares its objects with the other seats'
frames, the game's views and module constants (a card's JSON), so a bot that changed it would
change what other seats see. Every bot of every difficulty plays whole matches here with each
frame's encoding compared before and after it observed and decided (and the previous frame's
again, for a bot that keeps parts of a frame). And the value a bot gets in a room equals what its
seat's client decodes, types included (a tuple where JSON has a list would change a bot's
comparisons)."""

from __future__ import annotations

from dataclasses import astuple
from typing import Any

import orjson
import pytest

from app.bots import DIFFICULTIES, bot_games, make_bot
from app.bots.arena import play_match
from app.realtime.room import protocol as p
from app.realtime.room.bots import BotSeats
from app.realtime.room.effects import BotDecision, Effect, Later
from tests.realtime.core_helpers import at, join, of_type, room

GAMES = sorted(bot_games())


class Unchanged:
    """Wraps a bot: every frame it is given must encode the same after it has seen it."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.frames = 0
        self.last: tuple[Any, bytes] | None = None

    def _check(self) -> None:
        if self.last is not None:
            frame, before = self.last
            assert orjson.dumps(frame) == before, "a bot changed its state frame"

    def observe(self, frame: Any) -> None:
        self._check()
        self.last = (frame, orjson.dumps(frame))
        self.frames += 1
        self.bot.observe(frame)
        self._check()

    def decide(self, frame: Any) -> Any:
        decision = self.bot.decide(frame)
        self._check()
        return decision


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize("game_id", GAMES)
def test_no_bot_changes_the_frames_it_is_given(game_id: str, difficulty: str) -> None:
    for match in range(2):
        bots = [Unchanged(make_bot(game_id, seat, difficulty, seed=f"{match}-{seat}"))
                for seat in range(3)]
        result = play_match(game_id, bots, f"unchanged-{game_id}-{match}".encode())  # type: ignore[arg-type]
        assert result.outcome is not None and all(b.frames for b in bots)


def _bot_moves(effects: list[Effect]) -> list[BotDecision]:
    return [e.message for e in effects if isinstance(e, Later)
            and isinstance(e.message, BotDecision)]


@pytest.mark.parametrize("game_id", GAMES)
def test_a_bot_in_a_room_gets_the_frame_its_seats_client_would_decode(
        game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    given: list[dict[str, Any]] = []
    deliver = BotSeats.deliver

    def recorded(self: BotSeats, seat: int, frame: dict[str, Any]) -> None:
        assert frame == orjson.loads(orjson.dumps(frame))
        given.append(frame)
        deliver(self, seat, frame)

    monkeypatch.setattr(BotSeats, "deliver", recorded)
    core = room(game_id)
    ann, _ = join(core, "Ann")
    for _ in range(2):
        core.frame(ann, p.AddBot(type="add_bot", difficulty="normal"), at(0))
    effects = core.frame(ann, p.Start(type="start"), at(1))
    pending, t = _bot_moves(effects), 1.0
    for _ in range(60):
        if core.state.status != "playing":
            break
        t += 1
        if pending:  # the bots' decisions in turn, Ann's first legal action in between
            seat, generation, action = astuple(pending.pop(0))
            effects = core.bot_decision(seat, generation, action, at(t))
        else:
            states = of_type(effects, ann, "state")
            legal = states[-1].get("legal") if states else None
            if legal:
                effects = core.frame(ann, p.Action(type="action", action=legal[0]), at(t))
            else:
                effects = core.timers_due(at(t + 60))
        pending += _bot_moves(effects)
    assert len(given) > 10, "the bots were given too few frames"
    assert all(frame["type"] == "state" and "legal" in frame for frame in given)
