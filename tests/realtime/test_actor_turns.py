"""The room actor shares the event loop (app/realtime/actor.py, ``MESSAGES_PER_TURN``): a room
with a backlog hands the loop on every few messages, so one flooded room does not hold up the
other rooms, the pings and the HTTP requests until its whole backlog is handled."""

from __future__ import annotations

import asyncio

from app.engine import get_game
from app.games import load_all
from app.realtime.actor import MESSAGES_PER_TURN, Room
from app.realtime.room.tokens import SeatTokens


def test_a_room_with_a_backlog_lets_the_other_tasks_run_between_its_turns():
    load_all()

    async def save(*_args):  # type: ignore[no-untyped-def]
        return 1

    async def scenario() -> list[int]:
        room = Room(code="TURN", game=get_game("panika"), public=False, tokens=SeatTokens("k"),
                    save_match=save)
        room.start(lambda _room: None)  # its actor runs first: it was created first
        backlog = 10 * MESSAGES_PER_TURN
        for _ in range(backlog):
            room.post("bots")  # a cheap input: is a seat's grace over?
        seen: list[int] = []

        async def other_task() -> None:
            for _ in range(3):
                seen.append(room.queued())
                await asyncio.sleep(0)

        other = asyncio.get_running_loop().create_task(other_task())
        await other
        room.post("close")
        assert room.task is not None
        await room.task
        return [backlog - left for left in seen]

    handled_when_the_other_task_ran = asyncio.run(scenario())
    # The other task ran while the room still had most of its backlog, one turn at a time.
    assert handled_when_the_other_task_ran == [MESSAGES_PER_TURN, 2 * MESSAGES_PER_TURN,
                                               3 * MESSAGES_PER_TURN]
