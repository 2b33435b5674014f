"""Secret checks for game tests: walk every frame a client received and look for what it must
never have seen.

``walk`` yields ``(path, value)`` for every node of a JSON value (dicts, lists, scalars), the path a
tuple of keys and list indexes. The helpers on top of it take ``client.frames`` (or any list of
frames) and raise ``AssertionError`` naming the frame and the path of a leak.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

Path = tuple[str | int, ...]


def walk(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every node of a JSON value, depth first, the root included (with path ``()``)."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from walk(item, (*path, key))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from walk(item, (*path, index))


def keys_of(path: Path) -> list[str]:
    """The dict keys along a path (list indexes left out)."""
    return [p for p in path if isinstance(p, str)]


def path_matches(path: Path, pattern: str | re.Pattern[str]) -> bool:
    """Whether any key along ``path`` matches ``pattern`` (a regex, searched case-insensitively)."""
    rx = re.compile(pattern, re.IGNORECASE) if isinstance(pattern, str) else pattern
    return any(rx.search(k) for k in keys_of(path))


def get_path(value: Any, path: Path) -> Any:
    for p in path:
        value = value[p]
    return value


def find(
    frames: Iterable[dict[str, Any]],
    predicate: Callable[[dict[str, Any], Path, Any], bool],
) -> list[tuple[int, Path, Any]]:
    """``(frame index, path, value)`` of every node for which ``predicate(frame, path, value)``."""
    hits = []
    for i, frame in enumerate(frames):
        for path, value in walk(frame):
            if predicate(frame, path, value):
                hits.append((i, path, value))
    return hits


def assert_no_key(frames: Iterable[dict[str, Any]], pattern: str) -> None:
    """No frame has a dict key matching ``pattern`` anywhere (e.g. an engine-internal field name
    such as ``burst_at`` that a view must never copy out)."""
    rx = re.compile(pattern, re.IGNORECASE)
    hits = find(frames, lambda f, path, v: bool(path) and isinstance(path[-1], str)
                and bool(rx.search(path[-1])))
    assert not hits, f"forbidden key {pattern!r} in frames: {hits[:5]}"


def assert_value_not_shown(
    frames: Iterable[dict[str, Any]],
    secret: Any,
    *,
    key_pattern: str = r".",
    allow: Callable[[dict[str, Any], Path], bool] = lambda frame, path: False,
) -> None:
    """``secret`` never appears as a value under a key matching ``key_pattern``, except at the
    places ``allow(frame, path)`` accepts (e.g. a burst number revealed after the burst)."""
    rx = re.compile(key_pattern, re.IGNORECASE)
    hits = find(
        frames,
        lambda f, path, v: v == secret and not isinstance(v, bool)
        and any(rx.search(k) for k in keys_of(path)) and not allow(f, path),
    )
    assert not hits, f"secret {secret!r} shown: {hits[:5]}"


def assert_seat_private(
    frames: Iterable[dict[str, Any]],
    *,
    own_seat: int | None,
    private_key: str = "hand",
) -> None:
    """In ``state`` frames, a private field (a *list* under ``private_key``; counts are public)
    appears only at the top of the view and only in frames addressed to a seat, never to a
    spectator or the table view; the frame's seat is the recipient's own."""
    for i, frame in enumerate(frames):
        if frame.get("type") != "state":
            continue
        assert frame["seat"] == own_seat, f"frame {i} addressed to seat {frame['seat']}"
        for path, value in walk(frame):
            if path and path[-1] == private_key and isinstance(value, list):
                assert own_seat is not None, f"frame {i}: a spectator got {path}"
                assert path == ("view", private_key), f"frame {i}: private list at {path}"
