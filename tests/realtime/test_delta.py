"""Delta state frames (app/realtime/delta.py; docs/protocol.md, "Delta state frames").

The patch format on its own: ``apply(old, diff(old, new)) == new`` for any two JSON values (a
property test), with JSON's equality (``true`` is not ``1``). Then over real WebSockets: a whole
Panika match where some clients ask for deltas and others do not; every view a delta client
rebuilds equals the view the engine gives at that version (replayed from the seed), the other
clients get full frames exactly as before, and every raw frame on the wire (patches included) is
scanned for secrets.
"""

from __future__ import annotations

import copy
import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import Move, SeededRng
from app.realtime.delta import StatePatches, apply, diff
from tests.live import ClientPool
from tests.realtime.helpers import PanikaTable, room_of, start_panika, wait_frame, wait_type
from tests.secrets import assert_no_key, assert_seat_private, walk

scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.5, 1.0]),
                    st.sampled_from(["", "a", "b"]))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5),
                            st.dictionaries(st.sampled_from("abcde"), inner, max_size=5)),
    max_leaves=25,
)


def same(a, b) -> bool:
    """Equal as JSON values: key order aside, and ``True`` is not ``1``, ``1`` is not ``1.0``."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@settings(max_examples=600, deadline=None)
@given(json_values, json_values)
def test_apply_of_diff_gives_the_new_value(old, new):
    before_old, before_new = copy.deepcopy(old), copy.deepcopy(new)
    ops = diff(old, new)
    assert same(apply(old, ops), new)
    assert same(old, before_old) and same(new, before_new)  # neither is changed
    assert json.loads(json.dumps(ops)) == ops  # the patch is plain JSON


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_an_unchanged_value_needs_no_operation(value):
    assert diff(value, copy.deepcopy(value)) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(json_values, max_size=6), st.lists(json_values, max_size=6), json_values)
def test_diff_through_a_memo_matches_a_plain_diff(olds, news, shared):
    """The memo a broadcast shares between seats gives the same operations as diffing alone."""
    old = {"a": {"x": olds}, "b": {"s": shared}}
    new = {"a": {"x": news}, "b": {"s": shared, "t": 1}}
    memo: dict = {}
    first = diff(old, new, memo)
    again = diff(old, new, memo)  # the second seat: the memo answers
    assert first == again == diff(old, new)
    assert same(apply(old, first), new)


def test_json_equality_is_strict():
    assert diff({"a": 1}, {"a": True}) == [["/a", True]]
    assert diff([1, 2], [1.0, 2]) == [["/0", 1.0]]
    assert diff({"a": [1]}, {"a": [True]}) == [["/a/0", True]]


def test_the_operations_of_the_documented_format():
    old = {"hand": [{"id": 1}, {"id": 2}, {"id": 3}], "n": 1, "gone": 0,
           "players": [{"hand": 4}, {"hand": 4}]}
    new = {"hand": [{"id": 1}, {"id": 3}], "n": 2, "players": [{"hand": 3}, {"hand": 4}]}
    ops = diff(old, new)
    assert ops == [["/hand", 1, 1, []], ["/n", 2], ["/players/0/hand", 3], ["/gone"]]
    assert apply(old, ops) == new
    assert apply({"a": 1}, [["", [1, 2]]]) == [1, 2]
    # JSON Pointer's escapes: "~" is "~0", "/" is "~1".
    assert diff({"a/b": 1, "c~": 1}, {"a/b": 2, "c~": 2}) == [["/a~1b", 2], ["/c~0", 2]]
    assert apply({"a/b": 1, "c~": 1}, [["/a~1b", 2], ["/c~0", 2]]) == {"a/b": 2, "c~": 2}


def test_a_patch_that_does_not_fit_is_refused():
    for doc, ops in [({"a": [1]}, [["/a/1", 2]]), ({"a": [1]}, [["/a/01", 2]]),
                     ({"a": 1}, [["/a/b", 2]]), ({"a": [1]}, [["/a", 1, 1, []]]),
                     ({"a": 1}, [["a", 2]]), ({"a": [1]}, [["/a/0"]])]:
        with pytest.raises((KeyError, IndexError, TypeError, ValueError)):
            apply(doc, ops)


class _Conn:
    def __init__(self, seat, deltas):
        self.seat, self.deltas, self.held, self.sent = seat, deltas, None, []

    def send_text(self, text):
        self.sent.append(json.loads(text))


def test_frames_send_patches_only_to_delta_clients_holding_the_base():
    frames = StatePatches()

    def send(conns, by_seat, full_text):
        for conn, text in frames.texts(conns, by_seat, full_text):
            conn.send_text(text)

    delta_a, delta_b, plain = _Conn(0, True), _Conn(0, True), _Conn(0, False)
    public = {"counter": 1}

    def frame(version, counter, hand):
        return {"type": "state", "seat": 0, "match": 1, "version": version,
                "view": {"public": public if counter == 1 else {"counter": counter},
                         "hand": hand}}

    f0, f1 = frame(0, 1, [1, 2]), frame(1, 2, [2])
    send([delta_a, plain], {0: f0}, lambda seat: json.dumps(f0))
    joined = frame(0, 1, [1, 2])
    frames.sent_full(delta_b, joined)  # joined: holds a frame of its own
    send([delta_a, delta_b, plain], {0: f1}, lambda seat: json.dumps(f1))
    assert delta_a.sent[0] == f0 and plain.sent == [f0, f1]
    patch = delta_a.sent[1]
    assert patch["base"] == [1, 0] and "view" not in patch
    assert apply(f0, patch["patch"]) == f1
    assert apply(joined, delta_b.sent[0]["patch"]) == f1 and delta_b.sent[0]["base"] == [1, 0]
    assert delta_a.held is delta_b.held is f1
    # Another match: whole frames again.
    f2 = {**f1, "match": 2, "version": 0}
    send([delta_a], {0: f2}, lambda seat: json.dumps(f2))
    assert delta_a.sent[-1] == f2


def _replayed_frames(room):
    """(version, seat) -> (view, legal) as the engine gives them, replayed from the seed."""
    match = room.match
    game = match.game
    seats = [None, *range(match.players)]
    rng = SeededRng(match.seed)
    state = game.setup(match.players, game.parse_options(match.options), rng)
    truth = {}

    def note(version):
        for seat in seats:
            legal = game.legal_actions(state, seat) if seat is not None else None
            truth[version, seat] = (json.loads(json.dumps(game.view(state, seat))),
                                    json.loads(json.dumps(legal)))
            truth[version, "hands"] = [list(h) for h in state.hands]

    note(0)
    for version, m in enumerate(match.log, start=1):
        game.step(state, Move(m.seat, game.parse_action(m.action), m.at_ms, m.rtt_ms), rng)
        note(version)
    return truth


def test_delta_clients_rebuild_every_view_and_no_patch_leaks(fast_server):
    flags = itertools.chain([True, False, True], itertools.repeat(True))
    with ClientPool() as pool:
        code, clients = room_of(fast_server, lambda c: pool(fast_server, c, next(flags)),
                                "panika", 3)
        assert [c.deltas for c in clients] == [True, False, True]
        start_panika(clients)
        spectator = pool(fast_server, code, deltas=True)
        spectator.join(nickname="Spec")
        table = pool(fast_server, code, deltas=True)
        table.join(watch=True)
        for c in (spectator, table):
            wait_type(c, "state")
        everyone = clients + [spectator, table]
        table_ = PanikaTable(everyone)
        for _ in range(10):
            table_.step()
        # A resync in the middle: the whole frame again, and patches against it after.
        mark = len(clients[0].frames)
        clients[0].send({"type": "resync"})
        wait_frame(clients[0], lambda f: f["type"] == "state", mark)
        table_.play_to_end()
        finished = [wait_type(c, "room", status="finished") for c in everyone][0]
        room = fast_server.registry.get(code)
        truth = _replayed_frames(room)
        seed = finished["result"]["seed"]

    assert clients[1].patches == 0
    for c in everyone:
        if c.deltas:
            assert c.patches > 50
        states = [f for f in c.frames if f["type"] == "state"]
        for f in states:
            view, legal = truth[f["version"], c.seat]
            assert f["view"] == view, f"seat {c.seat} version {f['version']}"
            assert f.get("legal") == legal
        versions = [f["version"] for f in states]
        assert versions[-1] == room.match.version
        assert_seat_private(c.frames, own_seat=c.seat)
        # The wire itself: what each raw frame carries, a patch included.
        wire = [json.loads(raw) for raw in c.raw]
        assert_no_key(wire, r"burst_at|secret")
        upto = c.frames.index(next(f for f in c.frames if f["type"] == "room"
                                   and f["status"] == "finished"))
        assert all(seed not in raw for raw in c.raw[:upto])
        for frame, raw in zip(c.frames, wire, strict=True):
            if raw["type"] != "state" or "patch" not in raw:
                continue
            hands = truth[frame["version"], "hands"]
            others = {card for s, h in enumerate(hands) if s != c.seat for card in h}
            ids = {v for path, v in walk(raw["patch"]) if path and path[-1] == "id"}
            assert not ids & others, f"a patch to seat {c.seat} shows another hand's card"
    # Patches are much smaller than the whole frames they stand for.
    delta_bytes = [len(raw) for raw in clients[0].raw if '"patch"' in raw]
    full_bytes = [len(raw) for raw in clients[1].raw if raw.startswith('{"type":"state"')]
    assert sum(delta_bytes) / len(delta_bytes) < 0.6 * sum(full_bytes) / len(full_bytes)
