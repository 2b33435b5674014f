"""The room's timers: exactly the keys the engine lists, one loop timer for all of them."""

from __future__ import annotations

import asyncio

from app.engine import Timer
from app.realtime.timers import TimerBoard
from tests.live import run_async


def _timer(key: str, seconds: float) -> Timer:
    return Timer(key=key, seconds=seconds, action={"type": key.split(":")[0]}, label=key)


async def _board() -> tuple[TimerBoard, list[str]]:
    fired: list[str] = []
    return TimerBoard(fired.append), fired


def test_a_timer_fires_once_and_is_taken_back() -> None:
    async def scenario() -> tuple[list[str], object, object]:
        board, fired = await _board()
        board.sync([_timer("turn:1", 0.02)])
        await asyncio.sleep(0.06)
        return fired, board.expire("turn:1"), board.expire("turn:1")

    fired, first, second = run_async(scenario())
    assert fired == ["turn:1"] and first is not None and first.key == "turn:1" and second is None


def test_a_new_key_restarts_the_timer_and_the_old_one_never_fires() -> None:
    async def scenario() -> list[str]:
        board, fired = await _board()
        board.sync([_timer("autotap:1", 0.3)])
        await asyncio.sleep(0.2)
        board.sync([_timer("autotap:2", 0.3)])  # a tap: the 8 s (here 300 ms) start again
        await asyncio.sleep(0.15)  # past the first deadline, well before the second
        assert fired == []
        await asyncio.sleep(0.3)
        return fired

    assert run_async(scenario()) == ["autotap:2"]


def test_a_dropped_key_does_not_fire_and_a_sooner_timer_is_not_delayed() -> None:
    async def scenario() -> list[str]:
        board, fired = await _board()
        board.sync([_timer("turn:1", 0.2)])
        board.sync([_timer("window:1", 0.02)])  # the turn timer is gone, a sooner one came
        await asyncio.sleep(0.08)
        return fired

    assert run_async(scenario()) == ["window:1"]


def test_a_timer_dropped_after_firing_is_not_handed_to_the_room() -> None:
    async def scenario() -> object:
        board, fired = await _board()
        board.sync([_timer("turn:1", 0.01)])
        await asyncio.sleep(0.04)
        assert fired == ["turn:1"]
        board.sync([])  # a move arrived before the room read the timer's message
        return board.expire("turn:1")

    assert run_async(scenario()) is None


def test_visible_timers_count_down() -> None:
    async def scenario() -> list[dict]:
        board, _ = await _board()
        board.sync([_timer("turn:1", 1.0), Timer("settle:1", 0.3, {"type": "settle"},
                                                  visible=False)])
        await asyncio.sleep(0.05)
        shown = board.visible()
        board.clear()
        return shown

    shown = run_async(scenario())
    assert [t["key"] for t in shown] == ["turn:1"]
    assert 800 < shown[0]["remaining_ms"] < 1000
