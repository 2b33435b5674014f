"""The stand-alone Panika counter over real WebSockets: several phones tapping at once are each
counted exactly once, back and reset work, a burst happens exactly at the secret number and that
number reaches no client before the burst (docs/games/panika-counter.md, Stand-alone counter)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from tests.live import Client, LiveServer

Frame = dict[str, Any]


def _phones(server: LiveServer, open_client, n: int) -> tuple[str, list[Client]]:
    """A counter room with ``n`` joined phones (the creator first, by its token), all drained."""
    created = server.create_room("panika_counter", "Ann")
    code = created["code"]
    phones = [open_client(code)]
    assert phones[0].join(token=created["token"])["seat"] == 0
    for i in range(1, n):
        phones.append(open_client(code))
        assert phones[-1].join(nickname=f"Phone{i}")["seat"] == i
    for p in phones:
        p.drain(0.15)
    return code, phones


def _tap_together(phones: list[Client], taps_each: int) -> None:
    """Every phone sends ``taps_each`` tap frames, all phones at the same moment, from threads
    (sending only; frames are read afterwards)."""
    barrier = threading.Barrier(len(phones))
    failures: list[BaseException] = []

    def run(phone: Client) -> None:
        try:
            barrier.wait(5)
            for _ in range(taps_each):
                phone.action({"type": "tap"})
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(p,)) for p in phones]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not failures, failures


def _read_until(phone: Client, pred, start: int = 0, timeout: float = 5.0) -> Frame:
    """The first frame at index >= ``start`` (already received or new) matching ``pred``."""
    for f in phone.frames[start:]:
        if pred(f):
            return f
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no matching frame")
        try:
            f = phone.recv(timeout=left)
        except TimeoutError:
            continue
        if pred(f):
            return f


def _states(frames: list[Frame]) -> list[Frame]:
    return [f for f in frames if f["type"] == "state"]


def _ints(value: Any) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, dict):
        return [i for v in value.values() for i in _ints(v)]
    if isinstance(value, list):
        return [i for v in value for i in _ints(v)]
    return []


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_simultaneous_taps_from_four_phones_each_count_once(server, open_client):
    code, phones = _phones(server, open_client, 4)
    since = [len(p.frames) for p in phones]
    # 4 x 5 = 20 taps: the counter cannot burst (the secret number is 21..30).
    _tap_together(phones, 5)
    final = [_read_until(p, lambda f: f["type"] == "state" and f["view"]["counter"] == 20)
             for p in phones]
    for p in phones:
        p.drain(0.2)
    for f in final:
        assert f["view"]["taps"] == [5, 5, 5, 5] + [0] * 6  # the room seats 10 phones
        assert sum(f["view"]["taps"]) == 20 and f["view"]["phase"] == "counting"
    for p, start in zip(phones, since, strict=True):
        new = p.frames[start:]
        assert [f for f in new if f["type"] == "error"] == []
        # One state frame per tap, in order: every client saw 1, 2, ..., 20, once each.
        counters = [f["view"]["counter"] for f in _states(new)]
        assert counters == list(range(1, 21))
        versions = [f["version"] for f in _states(new)]
        assert versions == list(range(versions[0], versions[0] + 20))
    assert server.registry.get(code).state.match.state.counter == 20


def test_back_and_reset_from_any_phone(server, open_client):
    code, (ann, bob) = _phones(server, open_client, 2)

    def counter_after(phone: Client, action: str) -> Frame:
        """The state frame Ann receives after ``phone`` sends ``action``."""
        mark = len(ann.frames)
        phone.action({"type": action})
        return _read_until(ann, lambda f: f["type"] == "state", mark)

    for _ in range(3):
        counter_after(ann, "tap")
    assert counter_after(bob, "back")["view"]["counter"] == 2
    assert counter_after(bob, "back")["view"]["counter"] == 1
    assert counter_after(ann, "back")["view"]["counter"] == 0
    # Not below 0.
    assert counter_after(ann, "back")["view"]["counter"] == 0
    counter_after(bob, "tap")
    assert counter_after(ann, "tap")["view"]["counter"] == 2
    reset = counter_after(bob, "reset")
    assert reset["view"]["counter"] == 0 and reset["view"]["phase"] == "counting"
    assert any(e["kind"] == "reset" for e in reset["events"])
    bob.drain(0.2)
    assert _states(bob.frames)[-1]["view"]["counter"] == 0
    assert [f for f in ann.frames + bob.frames if f["type"] == "error"] == []
    # new_round is only for after a burst.
    mark = len(bob.frames)
    bob.action({"type": "new_round"})
    err = _read_until(bob, lambda f: f["type"] == "error", mark)
    assert err["code"] == "illegal_action"


def test_burst_exactly_at_the_secret_number_which_no_frame_shows_before(server, open_client):
    code, phones = _phones(server, open_client, 4)
    watcher = open_client(code)
    watcher.join(watch=True)
    watcher.drain(0.15)
    everyone = [*phones, watcher]
    since = [len(c.frames) for c in everyone]
    secret = server.registry.get(code).state.match.state.burst_at
    assert 21 <= secret <= 30
    # 4 x 8 = 32 taps: more than any secret number, so the counter must burst.
    _tap_together(phones, 8)
    for c in everyone:
        _read_until(c, lambda f: f["type"] == "state" and f["view"]["phase"] == "burst")
        c.drain(0.2)

    accepted_by_round = {}
    for c, start in zip(everyone, since, strict=True):
        frames = c.frames[start:]
        burst_at = next(i for i, f in enumerate(frames)
                        if f["type"] == "state" and f["view"]["phase"] == "burst")
        burst = frames[burst_at]
        # The burst is exactly at the secret number, on the tap that reached it.
        assert burst["view"]["counter"] == secret
        assert burst["view"]["last_burst"]["number"] == secret
        assert sum(burst["view"]["taps"]) == secret
        assert [e["data"]["number"] for e in burst["events"] if e["kind"] == "burst"] == [secret]
        counters = [f["view"]["counter"] for f in _states(frames[:burst_at + 1])]
        assert counters == list(range(1, secret + 1))
        # Before the burst, the number is nowhere: not in any view, event or frame.
        for f in frames[:burst_at]:
            raw = json.dumps(f)
            assert "burst_at" not in raw and "secret" not in raw
            if f["type"] == "state":
                assert set(f["view"]) == {"counter", "phase", "round", "last_burst", "taps", "you"}
                assert f["view"]["last_burst"] is None
                assert secret not in _ints(f["view"])
                assert all("data" not in e for e in f["events"])
                assert f["timers"] == []
            elif f["type"] == "error":
                assert str(secret) not in f["message"]
        # After the burst the remaining taps were refused (a burst cannot be undone) unless a
        # new round had already begun.
        after = frames[burst_at + 1:]
        round2 = [f for f in _states(after) if f["view"]["round"] == 2]
        accepted_by_round[id(c)] = sum(round2[-1]["view"]["taps"]) if round2 else 0
        if c is not watcher:
            assert all(e["code"] == "illegal_action" for e in after if e["type"] == "error")
    refused = sum(1 for c in phones for f in c.frames if f["type"] == "error")
    assert secret + max(accepted_by_round.values()) + refused == 32

    # Back and reset are refused during the burst; anyone may start the next round.
    ann = phones[0]
    state = server.registry.get(code).state.match.state
    if state.phase == "burst":  # (else the 3 s timer already began round 2: a very slow run)
        mark = len(ann.frames)
        ann.action({"type": "back"})
        ann.action({"type": "reset"})
        errs = []
        while len(errs) < 2:
            f = ann.recv(timeout=5)
            if f["type"] == "error":
                errs.append(f["code"])
        assert errs == ["illegal_action", "illegal_action"]
        assert not any(f["type"] == "state" for f in ann.frames[mark:])
        phones[2].action({"type": "new_round"})
        nxt = _read_until(ann, lambda f: f["type"] == "state" and f["view"]["round"] == 2, mark)
        assert nxt["view"]["counter"] == 0 and nxt["view"]["phase"] == "counting"
        assert nxt["view"]["last_burst"]["number"] == secret
