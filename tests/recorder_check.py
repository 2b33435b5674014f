"""A check every durable room in the realtime and durable tests runs under: after each record,
the room's fingerprint is what the recorder last compared, i.e. no input changed what
``SaveRoom`` holds without moving the room's ``revision`` (app/realtime/room/state.py). The
recorder skips the comparison when the revision did not move; a part of the core that forgot
``touch`` would make a restored room wrong, so the tests look after every input."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.realtime.durable.journal import RoomRecorder
from app.realtime.durable.stored import fingerprint


@pytest.fixture(autouse=True)
def recorder_misses_no_change(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    missed: list[str] = []
    real = RoomRecorder.record

    def record(self: RoomRecorder, state):  # type: ignore[no-untyped-def]
        ticket = real(self, state)
        known = self._fingerprint  # noqa: SLF001 - what the recorder last compared
        if known is not None and not self._stale and fingerprint(state) != known:  # noqa: SLF001
            missed.append(f"room {state.code}: {known} -> {fingerprint(state)}")
        return ticket

    monkeypatch.setattr(RoomRecorder, "record", record)
    yield
    assert not missed, f"a room changed without moving its revision: {missed}"
