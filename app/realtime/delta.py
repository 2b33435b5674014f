"""Delta state frames: a patch from the state frame a client holds to the next one.

A client that joins with ``"deltas": true`` (docs/protocol.md, "Delta state frames") gets, after
its first full ``state`` frame, only what changed: ``{"type": "state", "base": [match, version],
"patch": [...]}``. The patch is a list of operations applied in order to the state frame the
client holds (the one whose ``match`` and ``version`` are ``base``); the result is, exactly, the
full frame the server would have sent. A patch is small (a Panika move changes a few counters, a
hand and the discard: under half the full frame; docs/performance.md).

The operations; a path is a JSON Pointer (RFC 6901) from the frame's root: ``""`` is the root,
``"/view/players/2/hand"`` a key, an index, a key; ``~`` and ``/`` in a key are written ``~0``
and ``~1``:

- ``[path, value]``: set ``value`` at ``path`` (an object key is added or replaced; a list index
  replaced); the path ``""`` replaces the whole document;
- ``[path]``: delete the object key at the end of ``path``;
- ``[path, start, count, items]``: in the list at ``path``, remove ``count`` items at index
  ``start`` and insert ``items`` there (JavaScript's ``splice``).

Values are compared as JSON values: ``true`` never equals ``1``, and an integer never equals a
float (``1`` and ``1.0`` are different JSON texts). ``diff`` never emits an operation for a part
that did not change, and ``apply`` is its exact inverse: ``apply(old, diff(old, new)) == new``
(tests/realtime/test_delta.py, a property test).

``StatePatches`` is a room's patch maker: it keeps the last state frame of each seat that a delta client
holds, and picks each recipient's text from what that recipient holds (a patch when it holds a
frame of the same seat, the full frame otherwise: on join, resync, a seat change or for a client
that did not ask for deltas). A part of the views that every seat shares (the same object in
every seat's view, as Panika's public part) is compared once per move, not once per seat.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from itertools import compress
from operator import is_not, or_
from typing import Any

import orjson

Op = list[Any]
Memo = dict[tuple[str, int, int], list[Op]]
_MISSING = object()


def pointer(key: str | int) -> str:
    """One path segment as JSON Pointer writes it (with its leading ``/``)."""
    if type(key) is int:
        return f"/{key}"
    if "~" in key or "/" in key:
        key = key.replace("~", "~0").replace("/", "~1")
    return "/" + key


def segments(path: str) -> list[str]:
    """The unescaped segments of a JSON Pointer (``""``: none)."""
    if not path:
        return []
    if path[0] != "/":
        raise ValueError(f"not a JSON Pointer: {path!r}")
    parts = path[1:].split("/")
    if "~" in path:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in parts]
    return parts


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
    if t is not type(new) or (t is not dict and t is not list):
        return [] if t is type(new) and old == new else [["", new]]
    out: list[Op] = []
    if t is dict:
        _dict_ops(old, new, "", out, memo)
    else:
        _list_ops(old, new, "", out, memo)
    return out


def _child(path: str, ov: Any, nv: Any, out: list[Op], memo: Memo | None) -> None:
    """The operations for one child at ``path`` whose value changed identity, onto ``out``."""
    t = type(ov)
    if t is not type(nv):
        out.append([path, nv])
    elif t is dict or t is list:
        if memo is None:
            out.extend(_container(path, ov, nv, None))
            return
        key = (path, id(ov), id(nv))
        found = memo.get(key)
        if found is None:
            found = memo[key] = _container(path, ov, nv, memo)
        out.extend(found)
    elif ov != nv:
        out.append([path, nv])


def _container(path: str, ov: Any, nv: Any, memo: Memo | None) -> list[Op]:
    if ov == nv and orjson.dumps(ov) == orjson.dumps(nv):
        return []  # rebuilt, not changed
    inner: list[Op] = []
    if type(ov) is dict:
        _dict_ops(ov, nv, path, inner, memo)
    else:
        _list_ops(ov, nv, path, inner, memo)
    if len(inner) > 1:
        whole = [path, nv]
        if len(orjson.dumps(whole)) <= len(orjson.dumps(inner)):
            return [whole]  # the whole value is shorter than its changes
    return inner


def _dict_ops(o: dict[str, Any], n: dict[str, Any], path: str, out: list[Op],
              memo: Memo | None) -> None:
    keys = list(n)
    if keys == list(o):  # the same keys in the same order: find the changed values in C
        for key in compress(keys, map(is_not, o.values(), n.values())):
            ov, nv = o[key], n[key]
            t = type(ov)
            if t is dict or t is list or t is not type(nv):
                _child(path + pointer(key), ov, nv, out, memo)
            elif ov != nv:
                out.append([path + pointer(key), nv])
        return
    for key, nv in n.items():
        ov = o.get(key, _MISSING)
        if ov is _MISSING:
            out.append([path + pointer(key), nv])
        elif ov is not nv:
            _child(path + pointer(key), ov, nv, out, memo)
    out.extend([path + pointer(key)] for key in o if key not in n)


def _list_ops(o: list[Any], n: list[Any], path: str, out: list[Op],
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
            _child(f"{path}/{i}", o[i], n[i], out, memo)
    else:
        out.append([path, start, removed, n[start:ln - end]])


def apply(doc: Any, ops: Iterable[Op]) -> Any:
    """``doc`` with the operations applied, as a new value (``doc`` and ``ops`` are left as
    they are). Raises ``KeyError``/``IndexError``/``TypeError``/``ValueError`` for a patch that
    does not fit ``doc``."""
    return apply_in_place(copy.deepcopy(doc), copy.deepcopy(list(ops)))


def _step(container: Any, segment: str) -> Any:
    if isinstance(container, list):
        return container[_index(container, segment)]
    if isinstance(container, dict):
        return container[segment]
    raise TypeError(f"no {segment!r} in a {type(container).__name__}")


def _index(container: list[Any], segment: str) -> int:
    if not segment.isdigit() or (segment != "0" and segment[0] == "0"):
        raise ValueError(f"not a list index: {segment!r}")
    index = int(segment)
    if index >= len(container):
        raise IndexError(f"no index {index}")
    return index


def apply_in_place(root: Any, ops: Iterable[Op]) -> Any:
    """Like ``apply``, changing ``root`` itself and taking the operations' values as they are (for
    a client that owns both, as the benchmark's bots: bench/load.py); returns the result."""
    for op in ops:
        parts = segments(op[0])
        size = len(op)
        if size == 2 and not parts:
            root = op[1]
            continue
        parent = root
        for segment in (parts if size == 4 else parts[:-1]):
            parent = _step(parent, segment)
        if size == 2:
            if isinstance(parent, list):
                parent[_index(parent, parts[-1])] = op[1]
            elif isinstance(parent, dict):
                parent[parts[-1]] = op[1]
            else:
                raise TypeError(f"set in a {type(parent).__name__} at {op[0]!r}")
        elif size == 1:
            if not isinstance(parent, dict) or not parts:
                raise TypeError(f"delete outside an object at {op[0]!r}")
            del parent[parts[-1]]
        elif size == 4:
            start, count, items = op[1], op[2], op[3]
            if not isinstance(parent, list) or not 0 <= start <= start + count <= len(parent):
                raise IndexError(f"bad splice at {op[0]!r}")
            parent[start:start + count] = items
        else:
            raise ValueError(f"not a patch operation: {op!r}")
    return root


Groups = dict[str, Any]
"""The operations of a diff between two objects, by key: a list of operations, or for an object
inside (a frame's ``view``) its own ``Groups``."""


def _grouped(o: dict[str, Any], n: dict[str, Any], path: str, memo: Memo | None,
             ref: tuple[dict[str, Any], dict[str, Any], Groups] | None,
             depth: int) -> Groups | None:
    """``diff`` of two objects with the same keys in the same order, by key (``None`` when the
    keys differ). With ``ref`` (a sibling pair of objects and their groups: another seat's old and
    new frame), a key whose old and new values are the very objects of the sibling's takes the
    sibling's operations as they are, found without looking at the values (the comparison of
    identities runs in C); only the keys that differ from the sibling are compared. Objects
    ``depth`` levels down (a frame's view) are grouped the same way."""
    keys = list(n)
    if keys != list(o):
        return None
    groups: Groups = {}
    if ref is None:
        todo = compress(keys, map(is_not, o.values(), n.values()))
        inner_refs: Groups = {}
    else:
        ro, rn, rgroups = ref
        if keys == list(rn) == list(ro):
            todo = list(compress(keys, map(or_, map(is_not, o.values(), ro.values()),
                                           map(is_not, n.values(), rn.values()))))
        else:  # another shape (a seat's frame beside the table's): compared key by key
            todo = [key for key in keys if key not in rn or key not in ro
                    or o[key] is not ro[key] or n[key] is not rn[key]]
        for key, ops in rgroups.items():
            if key not in todo and key in n:
                groups[key] = ops
        inner_refs = {key: (ro[key], rn[key], rgroups[key]) for key in todo
                      if type(rgroups.get(key)) is dict}
    for key in todo:
        ov, nv = o[key], n[key]
        if ov is nv:
            continue
        here = path + pointer(key)
        if depth > 0 and type(ov) is dict and type(nv) is dict:
            inner = _grouped(ov, nv, here, memo, inner_refs.get(key), depth - 1)
            if inner is not None:
                if inner:
                    groups[key] = inner
                continue
        ops: list[Op] = []
        _child(here, ov, nv, ops, memo)
        if ops:
            groups[key] = ops
    return groups


def _flat(groups: Groups, out: list[Op]) -> list[Op]:
    for ops in groups.values():
        if type(ops) is dict:
            _flat(ops, out)
        else:
            out.extend(ops)
    return out


def delta_frame(base: dict[str, Any], ops: list[Op]) -> dict[str, Any]:
    """The delta frame that turns the full frame ``base`` into the next one."""
    return {"type": "state", "base": [base["match"], base["version"]], "patch": ops}


class StatePatches:
    """A room's state frames: the last frame of each seat a delta client holds, and the text each
    recipient gets (docs/protocol.md, "Delta state frames")."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: dict[int | None, dict[str, Any]] = {}

    def texts(self, conns: Iterable[Any], frames: dict[int | None, dict[str, Any]],
              full_text: Callable[[int | None], str]) -> list[tuple[Any, str]]:
        """The text for each connection: its seat's frame from ``frames`` (seat -> full frame
        dict, never changed afterwards): a patch to a delta connection that holds an earlier frame of the same
        seat and match, the full text (``full_text(seat)``, built once per seat) otherwise."""
        last = self.last
        out: list[tuple[Any, str]] = []
        patches: dict[int | None, str] = {}
        memo: Memo = {}
        ref: tuple[dict[str, Any], dict[str, Any], Groups] | None = None
        kept: dict[int | None, dict[str, Any]] = {}
        for conn in conns:
            seat = conn.seat
            frame = frames[seat]
            if not conn.deltas:
                out.append((conn, full_text(seat)))
                continue
            held = conn.held
            kept[seat] = frame
            conn.held = frame
            if held is None or held["seat"] != seat or held["match"] != frame["match"]:
                out.append((conn, full_text(seat)))
            elif held is last.get(seat):
                text = patches.get(seat)
                if text is None:
                    groups = _grouped(held, frame, "", memo, ref, 1)
                    if groups is None:
                        ops = diff(held, frame, memo)
                    else:
                        ops = _flat(groups, [])
                        ref = (held, frame, groups)
                    text = patches[seat] = orjson.dumps(delta_frame(held, ops)).decode()
                out.append((conn, text))
            else:  # it holds another frame (a join or resync since): its own patch
                out.append((conn, orjson.dumps(delta_frame(held, diff(held, frame))).decode()))
        self.last = kept
        return out

    def sent_full(self, conn: Any, frame: dict[str, Any]) -> None:
        """``conn`` was sent ``frame`` whole (its join or a resync): it holds that frame now."""
        if conn.deltas:
            conn.held = frame
