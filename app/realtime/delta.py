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


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal as JSON (``True`` is not ``1``, ``1`` is not ``1.0``)."""
    if a is b:
        return True
    ta = type(a)
    if ta is not type(b) or a != b:
        return False
    if ta is dict:
        return all(same(v, b[k]) for k, v in a.items())
    if ta is list:
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    return True


def diff(old: Any, new: Any, path: Path | None = None,
         memo: dict[tuple[int, int], list[Op]] | None = None) -> list[Op]:
    """The operations that turn ``old`` into ``new`` (neither is changed). ``memo`` (optional)
    remembers the operations found for a pair of dict values by their identities, so that a
    value shared by several seats' views is compared once: the caller keeps the pairs alive
    while the memo is in use (one move's broadcast)."""
    ops: list[Op] = []
    _diff(old, new, [] if path is None else path, ops, memo)
    return ops


def _diff(o: Any, n: Any, path: Path, ops: list[Op],
          memo: dict[tuple[int, int], list[Op]] | None) -> None:
    to = type(o)
    if to is not type(n):
        ops.append([path, n])
    elif to is dict:
        for key, nv in n.items():
            if key in o:
                ov = o[key]
                if ov is nv:
                    continue
                tv = type(ov)
                if memo is not None and tv is dict:
                    pair = (id(ov), id(nv))
                    found = memo.get(pair)
                    if found is None:
                        found = []
                        _diff(ov, nv, [key], found, None)
                        memo[pair] = found
                    ops.extend([[*path, *op[0]], *op[1:]] for op in found)
                elif tv in _CONTAINERS or tv is not type(nv) or ov != nv:
                    _diff(ov, nv, [*path, key], ops, memo)  # nothing for equal containers
            else:
                ops.append([[*path, key], nv])
        if len(o) > len(n) or any(key not in n for key in o):
            ops.extend([[*path, key]] for key in o if key not in n)
    elif to is list:
        _diff_list(o, n, path, ops, memo)
    elif o != n:
        ops.append([path, n])


def _diff_list(o: list[Any], n: list[Any], path: Path, ops: list[Op],
               memo: dict[tuple[int, int], list[Op]] | None) -> None:
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
    if removed == added and all(type(o[i]) is dict and type(n[i]) is dict
                                for i in range(start, start + removed)):
        for i in range(start, start + removed):  # the same items, changed inside
            _diff(o[i], n[i], [*path, i], ops, memo)
    elif removed == added == 1:
        ops.append([[*path, start], n[start]])
    else:
        ops.append([path, start, removed, n[start:ln - end]])


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
        memo: dict[tuple[int, int], list[Op]] = {}
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
                        delta_frame(held, diff(held, frame, None, memo))).decode()
                conn.send_text(text)
            else:  # it holds another frame (a join or resync since): its own patch
                conn.send_text(orjson.dumps(delta_frame(held, diff(held, frame))).decode())
        self.last = kept

    def sent_full(self, conn: Any, frame: dict[str, Any]) -> None:
        """``conn`` was sent ``frame`` whole (its join or a resync): it holds that frame now."""
        if conn.deltas:
            conn.held = frame
