"""The game events in the reader's language, from the catalogs (docs/architecture.md, "Languages").

An engine's ``Event`` keeps its English ``text`` (logs, stored summaries); its message id is
``data["msg"]`` when one kind has several wordings, else its ``kind``, and its wording is the
catalog entry ``event.<game>.<message id>``. A wording's placeholders take their values from the
event's ``data`` (the event's own ``seat`` is the parameter ``seat``):

- ``{name}``: the value itself (a number); ``{a.b}`` reaches into a nested object;
- ``{seat:name}``: that seat, left as a ``{seat:N}`` marker for the page to name;
- ``{seats:name}``: a list of seats, as markers joined by ``event.and`` ("A, B and C");
- ``{term:name}`` / ``{term:ns:name}``: the value as a word of the catalog,
  ``event.<game>.<ns or the last part of name>.<value>`` (the value itself when missing);
- a plural entry (``{"one": ..., "other": ...}``) picks its form by ``data["n"]``.

``event.<game>.<message id>.you`` is the wording for the seat that reads it (second person),
where a language needs its own. static/js/texts.js renders the same catalogs the same way.
"""

from __future__ import annotations

import re
from typing import Any

from . import LANGUAGES, catalog, plural_form, translate

PLACEHOLDER = re.compile(r"\{(?:(seat|seats|term):)?(?:(\w+):)?([\w.]+)\}")
"""``{name}``, ``{seat:name}``, ``{seats:name}``, ``{term:name}``, ``{term:ns:name}``."""


def message_id(kind: str, data: dict[str, Any] | None) -> str:
    """The event's message id: ``data["msg"]`` where a kind has several wordings, else the kind."""
    return str((data or {}).get("msg") or kind)


def event_key(game: str, kind: str, data: dict[str, Any] | None) -> str:
    return f"event.{game}.{message_id(kind, data)}"


def event_params(seat: int | None, data: dict[str, Any] | None) -> dict[str, Any]:
    """What a wording may name: the event's data, and its own seat as ``seat``."""
    params: dict[str, Any] = {"seat": seat}
    params.update(data or {})
    return params


def placeholders(wording: str | dict[str, str]) -> set[str]:
    """The data names a wording uses (its top-level names, for the catalog's tests)."""
    texts = wording.values() if isinstance(wording, dict) else [wording]
    return {m.group(3).split(".")[0] for text in texts for m in PLACEHOLDER.finditer(text)}


def _lookup(params: dict[str, Any], path: str) -> Any:
    value: Any = params
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _marker(seat: Any) -> str:
    return "{seat:%d}" % int(seat)


def join_seats(lang: str, seats: list[int]) -> str:
    markers = [_marker(s) for s in seats]
    if len(markers) < 2:
        return "".join(markers)
    return translate(lang, "event.and", a=", ".join(markers[:-1]), b=markers[-1])


def fill(lang: str, game: str, wording: str, params: dict[str, Any]) -> str:
    """The wording with its placeholders filled; seats stay ``{seat:N}`` markers."""

    def one(m: re.Match[str]) -> str:
        form, ns, path = m.groups()
        value = _lookup(params, path)
        if value is None:
            return m.group(0)
        if form == "seat":
            return _marker(value)
        if form == "seats":
            return join_seats(lang, list(value))
        if form == "term":
            key = f"event.{game}.{ns or path.split('.')[-1]}.{value}"
            return translate(lang, key, default=str(value))
        return str(value)

    return PLACEHOLDER.sub(one, wording)


def event_text(lang: str, game: str, kind: str, seat: int | None, data: dict[str, Any] | None,
               fallback: str) -> str:
    """The event in ``lang`` with ``{seat:N}`` markers (third person: no reader), or
    ``fallback`` (the engine's English text) when no catalog knows its message."""
    key = event_key(game, kind, data)
    wording = catalog(lang).get(key, catalog(LANGUAGES[0]).get(key))
    if wording is None:
        return fallback
    params = event_params(seat, data)
    if isinstance(wording, dict):
        n = params.get("n", 0)
        wording = wording.get(plural_form(lang, float(n if n is not None else 0)), wording["other"])
    return fill(lang, game, str(wording), params)
