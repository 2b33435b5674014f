"""Delta state frames: a patch from the state frame a client holds to the next one.

A client that joins with ``"deltas": true`` (docs/protocol.md, "Delta state frames") gets, after
its first full ``state`` frame, only what changed: ``{"type": "state", "base": [match, version],
"patch": [...]}``. The patch is a list of operations applied in order to the state frame the
client holds (the one whose ``match`` and ``version`` are ``base``); the result is, exactly, the
full frame the server would have sent. A patch is small (a Panika move changes a few counters, a
hand and the discard: about a quarter of the full frame), and the server encodes it instead of
the whole view (docs/performance.md).

The operations (a path is a list of dict keys and list indexes from the frame's root):

- ``[path, value]``: set ``value`` at ``path`` (a dict key is added or replaced; a list index
  replaced); an empty path replaces the whole document;
- ``[path]``: delete the dict key at the end of ``path``;
- ``[path, start, count, items]``: in the list at ``path``, remove ``count`` items at index
  ``start`` and insert ``items`` there (JavaScript's ``splice``).

Values are compared as JSON values: ``true`` never equals ``1``, and an integer never equals a
float (``1`` and ``1.0`` are different JSON texts). ``diff`` never emits an operation for a part
that did not change, and ``apply`` is its exact inverse: ``apply(old, diff(old, new)) == new``
(tests/realtime/test_delta.py, a property test).

``Frames`` is a room's sender: it keeps the last state frame of each seat that a delta client
holds, and builds each recipient's text from what that recipient holds (a patch when it holds a
frame of the same seat, the full frame otherwise: on join, resync, a seat change or for a client
that did not ask for deltas). A part of the views that every seat shares (the same object in
every seat's view, as Panika's public part) is compared once per move, not once per seat.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

import orjson

Op = list[Any]
Path = list[str | int]
_CONTAINERS = (dict, list)
_MISSING = object()


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal as JSON (``True`` is not ``1``, ``1`` is not ``1.0``).
    Python's ``==`` says no quickly; for containers it says yes also for ``[1]`` and ``[True]``,
    so a yes is confirmed by their JSON texts (C speed; keys in another order count as a
    change, which only costs an operation)."""
    if a is b:
        return True
    ta = type(a)
    if ta is not type(b) or a != b:
        return False
    return (ta is not dict and ta is not list) or orjson.dumps(a) == orjson.dumps(b)


Memo = dict[tuple[tuple[str | int, ...], int, int], list[Op]]


def diff(old: Any, new: Any, memo: Memo | None = None) -> list[Op]:
    """The operations that turn ``old`` into ``new`` (neither is changed).

    A changed object or list is patched inside (a key, an index, a splice) unless one ``set`` of
    its whole new value is shorter as JSON than the operations inside it. ``memo`` (optional)
    remembers the operations found for a pair of containers at one path by their identities, so
    that a value shared by several seats' frames (a move's events, Panika's public view) is
    compared once per move: the caller keeps every pair alive while the memo is in use (one
    move's broadcast), and does not change the operations returned (they may be shared)."""
    if old is new:
        return []
    t = type(old)
    if t is not type(new) or t not in _CONTAINERS:
        return [] if t is type(new) and old == new else [[[], new]]
    out: list[Op] = []
    if t is dict:
        _dict_ops(old, new, (), out, memo)
    else:
        _list_ops(old, new, (), out, memo)
    return out


def _child(path: tuple[str | int, ...], ov: Any, nv: Any, out: list[Op],
           memo: Memo | None) -> None:
    """The operations for one child at ``path`` whose value changed identity, onto ``out``."""
    t = type(ov)
    if t is not type(nv):
        out.append([list(path), nv])
    elif t is dict or t is list:
        if ov == nv and orjson.dumps(ov) == orjson.dumps(nv):
            return  # rebuilt, not changed
        if memo is None:
            out.extend(_container(path, ov, nv, None))
            return
        key = (path, id(ov), id(nv))
        found = memo.get(key)
        if found is None:
            found = memo[key] = _container(path, ov, nv, memo)
        out.extend(found)
    elif ov != nv:
        out.append([list(path), nv])


def _container(path: tuple[str | int, ...], ov: Any, nv: Any, memo: Memo | None) -> list[Op]:
    inner: list[Op] = []
    if type(ov) is dict:
        _dict_ops(ov, nv, path, inner, memo)
    else:
        _list_ops(ov, nv, path, inner, memo)
    if len(inner) > 1:
        whole = [list(path), nv]
        if len(orjson.dumps(whole)) <= len(orjson.dumps(inner)):
            return [whole]  # the whole value is shorter than its changes
    return inner


def _dict_ops(o: dict[str, Any], n: dict[str, Any], path: tuple[str | int, ...],
              out: list[Op], memo: Memo | None) -> None:
    shared = 0
    for key, nv in n.items():
        ov = o.get(key, _MISSING)
        if ov is _MISSING:
            out.append([[*path, key], nv])
            continue
        shared += 1
        if ov is nv:
            continue
        t = type(ov)
        if t is dict or t is list or t is not type(nv):
            _child((*path, key), ov, nv, out, memo)
        elif ov != nv:
            out.append([[*path, key], nv])
    if shared != len(o):
        out.extend([[*path, key]] for key in o if key not in n)


def _list_ops(o: list[Any], n: list[Any], path: tuple[str | int, ...], out: list[Op],
              memo: Memo | None) -> None:
    lo, ln = len(o), len(n)
    shortest = min(lo, ln)
    start = 0
    while start < shortest and same(o[start], n[start]):
        start += 1
    if start == lo == ln:
        return
    end = 0
    while end < shortest - start and same(o[lo - 1 - end], n[ln - 1 - end]):
        end += 1
    removed, added = lo - start - end, ln - start - end
    if removed == added:  # the same places, changed: each patched (or set) on its own
        for i in range(start, start + removed):
            _child((*path, i), o[i], n[i], out, memo)
    else:
        out.append([list(path), start, removed, n[start:ln - end]])


def apply(doc: Any, ops: Iterable[Op]) -> Any:
    """``doc`` with the operations applied, as a new value (``doc`` and ``ops`` are left as
    they are). Raises ``KeyError``/``IndexError``/``TypeError``/``ValueError`` for a patch that
    does not fit ``doc``."""
    return apply_in_place(copy.deepcopy(doc), copy.deepcopy(list(ops)))


def apply_in_place(root: Any, ops: Iterable[Op]) -> Any:
    """Like ``apply``, changing ``root`` itself and taking the operations' values as they are (for
    a client that owns both, as the benchmark's bots: bench/load.py); returns the result."""
    for op in ops:
        path = op[0]
        if len(op) == 2 and not path:
            root = op[1]
            continue
        parent = root
        steps = path if len(op) == 4 else path[:-1]
        for step in steps:
            parent = parent[step]
        if len(op) == 2:
            key = path[-1]
            if isinstance(parent, list) and not 0 <= key < len(parent):
                raise IndexError(f"no index {key} at {path[:-1]}")
            parent[key] = op[1]
        elif len(op) == 1:
            if not isinstance(parent, dict):
                raise TypeError(f"delete in a non-object at {path}")
            del parent[path[-1]]
        elif len(op) == 4:
            start, count, items = op[1], op[2], op[3]
            if not isinstance(parent, list) or not 0 <= start <= start + count <= len(parent):
                raise IndexError(f"bad splice at {path}")
            parent[start:start + count] = items
        else:
            raise ValueError(f"not a patch operation: {op!r}")
    return root


def delta_frame(base: dict[str, Any], ops: list[Op]) -> dict[str, Any]:
    """The delta frame that turns the full frame ``base`` into the next one."""
    return {"type": "state", "base": [base["match"], base["version"]], "patch": ops}


class Frames:
    """A room's state frames: the last frame of each seat a delta client holds, and the text each
    recipient gets (docs/protocol.md, "Delta state frames")."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: dict[int | None, dict[str, Any]] = {}

    def send(self, conns: Iterable[Any], frames: dict[int | None, dict[str, Any]],
             full_text: Callable[[int | None], str]) -> None:
        """Send each connection its seat's frame from ``frames`` (seat -> full frame dict, never
        changed afterwards): a patch to a delta connection that holds an earlier frame of the same
        seat and match, the full text (``full_text(seat)``, built once per seat) otherwise."""
        last = self.last
        patches: dict[int | None, str] = {}
        memo: Memo = {}
        kept: dict[int | None, dict[str, Any]] = {}
        for conn in conns:
            seat = conn.seat
            frame = frames[seat]
            if not conn.deltas:
                conn.send_text(full_text(seat))
                continue
            held = conn.held
            kept[seat] = frame
            conn.held = frame
            if held is None or held["seat"] != seat or held["match"] != frame["match"]:
                conn.send_text(full_text(seat))
            elif held is last.get(seat):
                text = patches.get(seat)
                if text is None:
                    text = patches[seat] = orjson.dumps(
                        delta_frame(held, diff(held, frame, memo))).decode()
                conn.send_text(text)
            else:  # it holds another frame (a join or resync since): its own patch
                conn.send_text(orjson.dumps(delta_frame(held, diff(held, frame))).decode())
        self.last = kept

    def sent_full(self, conn: Any, frame: dict[str, Any]) -> None:
        """``conn`` was sent ``frame`` whole (its join or a resync): it holds that frame now."""
        if conn.deltas:
            conn.held = frame
