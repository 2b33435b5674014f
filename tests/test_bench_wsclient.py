"""The load generator's WebSocket client (bench/wsclient.py) against the real app: it joins,
reads every frame whole (its payload's bytes), and ends its messages when the server closes the
socket (and refuses to send after it)."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from tests.bench_scripts import load_bench_script
from tests.live import LiveServer, run_async


@pytest.fixture(scope="module")
def wsclient():
    return load_bench_script("wsclient")


def test_a_bot_joins_and_reads_its_welcome_and_the_room_as_payloads(wsclient, tmp_path):
    with LiveServer(tmp_path) as server:
        room = server.create_room("panika", "Host")

        async def scenario() -> list[dict]:
            socket = await wsclient.connect(server.ws_url(room["code"]), open_timeout=10)
            await socket.send(orjson.dumps({"type": "join", "token": room["token"]}).decode())
            frames: list[dict] = []
            async for message in socket:
                assert isinstance(message, bytearray)
                frames.append(orjson.loads(message))
                if frames[-1]["type"] == "room":
                    break
            socket.close()
            return frames

        frames = run_async(asyncio.wait_for(scenario(), 20))
    kinds = [frame["type"] for frame in frames]
    assert kinds[0] == "welcome" and frames[0]["room"] == room["code"]
    assert frames[-1]["type"] == "room" and frames[-1]["code"] == room["code"]


def test_the_messages_end_when_the_server_closes_the_socket(wsclient, tmp_path):
    with LiveServer(tmp_path) as server:

        async def scenario() -> list[bytearray]:
            socket = await wsclient.connect(server.ws_url("NOPE"), open_timeout=10)
            messages = [message async for message in socket]  # ends: no such room
            with pytest.raises(ConnectionError):
                await socket.send('{"type": "join", "nickname": "bot"}')
            return messages

        messages = run_async(asyncio.wait_for(scenario(), 20))
    assert [orjson.loads(message)["code"] for message in messages] == ["no_such_room"]
