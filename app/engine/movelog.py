"""A match's action log kept out of the collector's way (docs/performance.md, "What the full
collection walks").

A logged move held as a ``Move`` with its action as a JSON object is three or more objects the
cyclic collector tracks (the move, the action dict, the list of cards in it). A server with a
thousand matches running holds hundreds of thousands of logged moves, and they were about
seven in ten of the objects each full collection had to walk. Here each move is kept as its
JSON text (a ``str``: one object, which the collector never tracks) and rebuilt as a ``Move``
when it is read. Reads are rare (the journal and the frames read the newest move, kept decoded;
a rebuild, a restore or the match's record read them all, once), so the cost is one encoding
per move. The text is a ``str`` decoded from orjson's output, not that output itself: the
``bytes`` orjson returns keep its whole write buffer (about 4 KB however short the text), which
made every logged move cost 4 KB of memory (docs/performance.md, "Memory per logged move").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple, overload

import orjson

from .interface import Move


class LogEntry(NamedTuple):
    """A logged move as the log holds it: its action as JSON text, not decoded. What the state
    frame (its seat and time) and the journal (a row of ``room_moves``) read of the newest move
    (``MoveLog.entry``)."""

    seat: int | None
    action: str
    """The action's JSON text, as orjson writes its JSON object."""
    at_ms: int
    rtt_ms: int

    @classmethod
    def of(cls, move: Move) -> LogEntry:
        """The entry of a ``Move`` whose action is a JSON object (``Move.logged``)."""
        return cls(move.seat, orjson.dumps(move.to_json()["action"]).decode(), move.at_ms,
                   move.rtt_ms)


class MoveLog(Sequence[Move]):
    """The moves of a match in order (move ``seq`` is ``log[seq - 1]``), actions as JSON."""

    __slots__ = ("_moves", "_newest", "_newest_entry")

    def __init__(self, moves: Iterable[Move] = ()) -> None:
        self._moves: list[str] = []
        self._newest: Move | None = None
        self._newest_entry: LogEntry | None = None
        """The newest move's entry (None when it came with a seat or time orjson had to write)."""
        for move in moves:
            self.append(move)

    def append(self, move: Move) -> None:
        """Add ``move`` (its action a JSON object, as ``Move.logged`` gives it): its action
        encoded, then kept as ``append_text`` keeps a client's (the same text as the whole move
        encoded by orjson)."""
        self.append_text(move, LogEntry.of(move).action)
        self._newest = move

    def append_text(self, move: Move, action: str) -> None:
        """Add ``move`` whose action's normalised JSON text is ``action`` (a ``ValidAction``'s:
        docs/decisions/0031-one-strict-decode-of-an-action.md): the text goes in as it is, and
        the newest move is decoded from it only when it is read."""
        seat, at_ms, rtt_ms = move.seat, move.at_ms, move.rtt_ms
        if type(at_ms) is int and type(rtt_ms) is int and (seat is None or type(seat) is int):
            self._moves.append(f'{{"seat":{"null" if seat is None else seat},"action":{action},'
                               f'"at_ms":{at_ms},"rtt_ms":{rtt_ms}}}')
            self._newest_entry = LogEntry(seat, action, at_ms, rtt_ms)
        else:  # not seen from the room; written as orjson would write it
            self._moves.append(orjson.dumps({"seat": seat, "action": orjson.Fragment(action),
                                             "at_ms": at_ms, "rtt_ms": rtt_ms}).decode())
            self._newest_entry = None
        self._newest = None

    def entry(self, index: int) -> LogEntry:
        """Move ``index`` as the log holds it (its action as JSON text). The newest move, when
        the room appended it as text, is not decoded at all: the state frame reads its seat
        and time, the journal writes it as a row, every move (docs/performance.md, "Counting
        instructions")."""
        if self._newest_entry is not None and index in (-1, len(self._moves) - 1):
            return self._newest_entry
        data = orjson.loads(self._moves[index])
        return LogEntry(data["seat"], orjson.dumps(data["action"]).decode(), data["at_ms"],
                        data.get("rtt_ms", 0))

    def __len__(self) -> int:
        return len(self._moves)

    @overload
    def __getitem__(self, index: int) -> Move: ...

    @overload
    def __getitem__(self, index: slice) -> list[Move]: ...

    def __getitem__(self, index: int | slice) -> Move | list[Move]:
        if isinstance(index, slice):
            return [Move.from_json(orjson.loads(m)) for m in self._moves[index]]
        if index in (-1, len(self._moves) - 1):
            if self._newest is None:
                self._newest = Move.from_json(orjson.loads(self._moves[index]))
            return self._newest
        return Move.from_json(orjson.loads(self._moves[index]))

    def __iter__(self) -> Iterator[Move]:
        for encoded in self._moves:
            yield Move.from_json(orjson.loads(encoded))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MoveLog):
            return self._moves == other._moves
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"MoveLog({len(self)} moves)"

    def snapshot(self) -> MoveLog:
        """The moves so far, as a log of their own (a finished match's record: the texts
        shared, nothing decoded)."""
        copy = MoveLog()
        copy._moves = self._moves.copy()
        copy._newest_entry = self._newest_entry  # immutable; the decoded newest move is not shared
        return copy

    def json_array(self) -> str:
        """The moves as one JSON array: their texts joined (``moves_json``)."""
        return "[" + ",".join(self._moves) + "]"


def moves_json(moves: Iterable[Move]) -> str:
    """``moves`` as one JSON array of ``Move.to_json`` objects: what a finished match's record
    keeps (its ``log`` column, its outbox file). A ``MoveLog`` holds each move as exactly that
    text already, so its array is the texts joined, no move decoded and encoded again: the
    match's end used to decode every move on the event loop (about 640 us for a card game's match
    of 300 moves) and encode each twice more (docs/performance.md, "The end of a match")."""
    if isinstance(moves, MoveLog):
        return moves.json_array()
    return orjson.dumps([move.to_json() for move in moves]).decode()
