"""One client connection as the room sees it: an outgoing queue drained by a writer task.

The room never awaits a client: it puts text on the connection's queue and goes on. A client
that falls too far behind is closed rather than allowed to grow the server's memory.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
from collections import deque
from typing import TYPE_CHECKING, Any

from .protocol import encode, error_frame

if TYPE_CHECKING:
    from .room import Member

OUTBOX_LIMIT = 512
RTT_SAMPLES = 5
_ids = itertools.count(1)


class Connection:
    """A joined (or joining) WebSocket client of one room."""

    __slots__ = ("id", "outbox", "member", "watcher", "closed", "_rtts", "rtt_ms", "__weakref__")

    def __init__(self) -> None:
        self.id = next(_ids)
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(OUTBOX_LIMIT)
        self.member: Member | None = None
        self.watcher = False
        self.closed = False
        self._rtts: deque[float] = deque(maxlen=RTT_SAMPLES)
        self.rtt_ms = 0

    @property
    def joined(self) -> bool:
        return self.member is not None or self.watcher

    @property
    def seat(self) -> int | None:
        return self.member.seat if self.member is not None else None

    def send_text(self, text: str) -> None:
        """Queue one frame; a client too far behind is closed."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.close()

    def send(self, frame: dict[str, Any]) -> None:
        self.send_text(encode(frame))

    def error(self, code: str, message: str, ref: int | None = None) -> None:
        self.send(error_frame(code, message, ref))

    def close(self) -> None:
        """Ask the writer to close the socket after what is queued (or at once if full)."""
        if self.closed:
            return
        self.closed = True
        try:
            self.outbox.put_nowait(None)
        except asyncio.QueueFull:
            while not self.outbox.empty():
                self.outbox.get_nowait()
            self.outbox.put_nowait(None)

    def record_rtt(self, seconds: float) -> None:
        """Add a round-trip sample; the figure used is the median of the last few."""
        if 0 <= seconds < 60:
            self._rtts.append(seconds * 1000)
            self.rtt_ms = round(statistics.median(self._rtts))
