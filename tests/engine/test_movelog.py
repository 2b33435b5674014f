"""The match's action log as JSON text (app/engine/movelog.py): it reads back exactly the moves
it was given, in order, and holds none of them where the cyclic collector must walk."""

from __future__ import annotations

import gc

import orjson

from app.engine import Move, MoveLog, moves_json

MOVES = [
    Move(0, {"type": "play", "cards": [12, 14]}, 1_200, 35),
    Move(None, {"type": "timeout"}, 30_000, 0),
    Move(2, {"type": "say", "text": "Grüße ☃", "pick": {"a": None, "b": 1.5}}, 31_250, 48),
]


def test_a_log_reads_back_every_move_exactly_in_order():
    log = MoveLog(MOVES[:2])
    log.append(MOVES[2])
    assert len(log) == 3
    assert list(log) == MOVES
    assert [log[i] for i in range(3)] == MOVES
    assert log[-1] == MOVES[2] and log[-3] == MOVES[0]
    assert log[1:] == MOVES[1:]
    assert log == MoveLog(MOVES) and log == MOVES and log != MOVES[:2]


def test_a_read_move_is_a_copy_the_log_cannot_be_changed_through():
    log = MoveLog(MOVES)
    log[0].action["cards"].append(99)
    assert log[0].action == {"type": "play", "cards": [12, 14]}


def test_a_logs_json_array_is_what_encoding_each_move_gives_with_none_decoded():
    """A finished match's record keeps its log as one JSON array (``moves_json``): a ``MoveLog``
    joins its texts, byte for byte what orjson writes for the moves' ``to_json``, with no move
    read back; a plain list of moves is encoded the same."""
    log = MoveLog(MOVES)
    expected = orjson.dumps([move.to_json() for move in MOVES]).decode()
    reads = []
    original = Move.from_json
    Move.from_json = classmethod(lambda cls, data: reads.append(data) or original(data))
    try:
        assert moves_json(log) == expected
    finally:
        Move.from_json = original
    assert reads == []
    assert moves_json(MOVES) == expected
    assert moves_json(MoveLog()) == moves_json([]) == "[]"


def test_a_snapshot_keeps_the_moves_so_far_whatever_the_log_does_next():
    log = MoveLog(MOVES[:2])
    copy = log.snapshot()
    log.append(MOVES[2])
    assert list(copy) == MOVES[:2] and copy[-1] == MOVES[1] and copy.entry(-1).at_ms == 30_000
    assert len(log) == 3 and list(log) == MOVES


def test_an_empty_log():
    log = MoveLog()
    assert len(log) == 0 and list(log) == [] and not log
    try:
        log[0]
    except IndexError:
        pass
    else:
        raise AssertionError("an empty log has no move 0")


def test_the_logged_moves_are_not_tracked_by_the_collector():
    log = MoveLog(MOVES * 100)
    held = log._moves  # noqa: SLF001 - what the log holds is the point here
    assert len(held) == 300
    assert not any(gc.is_tracked(entry) for entry in held)


def test_a_logged_move_takes_the_memory_of_its_text_not_of_the_encoders_buffer():
    """orjson's ``bytes`` keep its whole write buffer (about 4 KB); a 300-move match held that way
    took over a megabyte (docs/performance.md, "Memory per logged move")."""
    import tracemalloc

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        log = MoveLog()
        for i in range(1_000):
            log.append(Move(i % 4, {"type": "play", "cards": [i, i + 1]}, i * 10, 30))
        per_move = (tracemalloc.get_traced_memory()[0] - before) / 1_000
    finally:
        tracemalloc.stop()
    assert len(log) == 1_000 and per_move < 400, per_move


def test_a_move_appended_with_its_action_text_is_stored_as_append_stores_it():
    """``append_text`` (a validated action's text kept: docs/decisions/0031) writes the entry
    byte for byte as ``append`` does, and the newest move reads back decoded."""
    by_move, by_text = MoveLog(), MoveLog()
    for move in [*MOVES, Move(None, {"type": "tap"}, 7, 0)]:
        by_move.append(move)
        by_text.append_text(move, orjson.dumps(move.action).decode())
        assert by_text[-1] == move and by_text[len(by_text) - 1] == move
    assert by_text._moves == by_move._moves  # noqa: SLF001 - the stored text itself
    assert list(by_text) == list(by_move)
    odd = MoveLog()
    odd.append_text(Move(1, {}, True, 2.5), "{}")  # not the room's types: orjson's form still
    assert odd._moves == [orjson.dumps({"seat": 1, "action": {}, "at_ms": True,  # noqa: SLF001
                                        "rtt_ms": 2.5}).decode()]
