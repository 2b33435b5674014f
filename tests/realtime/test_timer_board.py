"""The room's timers: exactly the keys the engine lists, deadlines on the clock the room is
given (app/realtime/room/timers.py: pure bookkeeping, no event loop, no clock read)."""

from __future__ import annotations

from app.engine import Timer
from app.realtime.room.timers import TimerBoard


def _timer(key: str, seconds: float) -> Timer:
    return Timer(key=key, seconds=seconds, action={"type": key.split(":")[0]}, label=key)


def test_a_timer_falls_due_once_at_its_deadline() -> None:
    board = TimerBoard()
    board.sync([_timer("turn:1", 2.0)], now=100.0)
    assert board.soonest() == 102.0
    assert board.pop_due(101.9) is None
    fired = board.pop_due(102.0)
    assert fired is not None and fired.key == "turn:1"
    assert board.pop_due(200.0) is None and board.soonest() is None


def test_a_kept_key_keeps_its_deadline_and_a_new_key_restarts_the_timer() -> None:
    board = TimerBoard()
    board.sync([_timer("autotap:1", 8.0)], now=0.0)
    board.sync([_timer("autotap:1", 8.0)], now=5.0)  # the engine still lists it: runs on
    assert board.soonest() == 8.0
    board.sync([_timer("autotap:2", 8.0)], now=6.0)  # a tap: the 8 s start again
    assert board.pop_due(8.0) is None  # the old deadline passes: nothing fires
    fired = board.pop_due(14.0)
    assert fired is not None and fired.key == "autotap:2"


def test_a_dropped_key_never_falls_due_and_a_sooner_timer_comes_first() -> None:
    board = TimerBoard()
    board.sync([_timer("turn:1", 20.0)], now=0.0)
    board.sync([_timer("window:1", 2.0)], now=1.0)  # the turn timer is gone, a sooner came
    assert board.keys() == {"window:1"} and board.soonest() == 3.0
    fired = board.pop_due(30.0)
    assert fired is not None and fired.key == "window:1"
    assert board.pop_due(30.0) is None


def test_due_timers_come_one_at_a_time_soonest_first() -> None:
    board = TimerBoard()
    board.sync([_timer("b:1", 3.0), _timer("a:1", 1.0)], now=0.0)
    first, second = board.pop_due(5.0), board.pop_due(5.0)
    assert first is not None and second is not None
    assert (first.key, second.key) == ("a:1", "b:1")


def test_a_restored_timer_runs_on_from_the_time_it_had_run() -> None:
    board = TimerBoard()
    board.sync([_timer("countdown:1", 3.0)], now=50.0, elapsed={"countdown:1": 10.0})
    assert board.soonest() == 43.0  # ran out during the downtime: due at once
    assert board.pop_due(50.0) is not None


def test_visible_timers_count_down() -> None:
    board = TimerBoard()
    board.sync([_timer("turn:1", 1.0), Timer("settle:1", 0.3, {"type": "settle"},
                                              visible=False)], now=10.0)
    shown = board.visible(10.05)
    assert [t["key"] for t in shown] == ["turn:1"]
    assert 940 < shown[0]["remaining_ms"] <= 950 and shown[0]["label"] == "turn:1"


def test_a_kept_key_shows_the_engines_latest_seats_and_fires_its_latest_action() -> None:
    """Panique's first-turn rolls: one timer for the whole round, whose seats shrink as heirs
    roll (docs/games/panique.md, "Timers"); the deadline is the first one's."""
    board = TimerBoard()
    first = Timer(key="roll:1", seconds=10.0, action={"type": "roll"}, label="Roll",
                  seats=(0, 1, 2))
    board.sync([first], now=0.0)
    rolled = Timer(key="roll:1", seconds=10.0, action={"type": "roll", "n": 2}, label="Roll",
                   seats=(1, 2))
    board.sync([rolled], now=4.0)
    assert board.visible(4.0) == [{"key": "roll:1", "label": "Roll", "seats": [1, 2],
                                   "remaining_ms": 6000}]
    assert board.soonest() == 10.0
    assert board.pop_due(10.0) == rolled


def test_the_same_keys_again_keep_their_deadlines_and_take_the_engines_latest_timer() -> None:
    """A move that lists the same keys (compared by key, nothing rebuilt: the common case)
    still hands each kept key the engine's latest seats and label, in the order shown."""
    board = TimerBoard()
    board.sync([_timer("turn:1", 20.0), _timer("lastcard:1", 4.0)], now=0.0)
    board.sync([_timer("turn:1", 20.0), _timer("lastcard:1", 4.0)], now=3.0)
    assert board.soonest() == 4.0
    relabelled = Timer(key="turn:1", seconds=20.0, action={"type": "turn"}, label="Yours",
                       seats=(2,))
    board.sync(iter([relabelled, _timer("lastcard:1", 4.0)]), now=3.5)  # any iterable
    assert [(t["key"], t["label"], t["seats"]) for t in board.visible(3.5)] == [
        ("turn:1", "Yours", [2]), ("lastcard:1", "lastcard:1", [])]
    assert board.pop_due(4.0) is not None and board.pop_due(20.0) is not None


def test_the_same_keys_in_another_order_or_one_swapped_are_synced_whole() -> None:
    board = TimerBoard()
    board.sync([_timer("a:1", 5.0), _timer("b:1", 6.0)], now=0.0)
    board.sync([_timer("b:1", 6.0), _timer("a:1", 5.0)], now=1.0)  # reordered: kept
    assert board.keys() == {"a:1", "b:1"} and board.soonest() == 5.0
    board.sync([_timer("a:1", 5.0), _timer("c:1", 1.0)], now=2.0)  # b gone, c new
    assert board.keys() == {"a:1", "c:1"} and board.soonest() == 3.0
