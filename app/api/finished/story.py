"""A finished match as people read it: who did what, when, in plain words.

The match is replayed from its seed, options and action log (the engine's own ``replay`` path,
app/engine/interface.py), and each move is told by the public events the game emitted for it, so
the page knows no game's rules. A move whose events say nothing (a counter tap) is told from its
action's type through the catalog (``game.<game>.move.<type>``). Seat markers (``{seat:N}``) become
nicknames in a single pass: a nickname that looks like a marker is never expanded again.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from app.engine import EngineError, Move, get_game
from app.engine.replay import replay
from app.i18n import catalog, translate
from app.i18n.endings import ending_text
from app.i18n.events import event_text

log = logging.getLogger(__name__)
_MARKER = re.compile(r"\{seat:(\d+)\}")


@dataclass(frozen=True)
class StoryLine:
    index: int
    at_ms: int
    seat: int | None
    who: str
    """The seat's nickname, or an empty string for the system (the game's timers)."""
    text: str


def name_seats(text: str, names: dict[int, str]) -> str:
    """``{seat:N}`` markers replaced by nicknames, in one pass."""
    return _MARKER.sub(lambda m: names.get(int(m.group(1)), f"#{int(m.group(1)) + 1}"), text)


def describe_action(lang: str, game_id: str, action: dict[str, Any]) -> str:
    """A plain description of an action of the game ``game_id`` that caused no public event."""
    kind = str(action.get("type", ""))
    details = {k: v for k, v in action.items() if k != "type"}
    key = f"game.{game_id}.move.{kind}"
    if key in catalog(lang) or key in catalog("en"):
        return translate(lang, key, **details)
    extra = ", ".join(f"{k} {v}" for k, v in details.items())
    return kind.replace("_", " ") + (f" ({extra})" if extra else "")


def _replayed_events(match: dict[str, Any], lang: str) -> list[list[str]] | None:
    """The public event texts of each logged move in ``lang`` (the catalogs' wordings, else the
    engine's English text; app/i18n/events.py), or ``None`` when the match cannot be replayed
    here (its game is gone, or the record does not replay)."""
    game = get_game(match["game"])
    if game is None:
        return None
    try:
        moves = [Move.from_json(entry) for entry in match["actions"]]
        done = replay(game, game.recorded_seats(match["players"]), match["options"],
                      bytes.fromhex(match["seed"]), moves)
        return [[event_text(lang, game.id, e.kind, e.seat, e.data, e.text) for e in events
                 if e.text] for events in done.events]
    except (EngineError, ValueError, KeyError, TypeError):
        log.warning("match %s does not replay; telling it from its actions", match.get("id"))
        return None


def match_story(match: dict[str, Any], lang: str) -> list[StoryLine]:
    """One line per logged move, in order."""
    names = {p["seat"]: p["nickname"] for p in match["players"]}
    events = _replayed_events(match, lang)
    lines = []
    for i, entry in enumerate(match["actions"]):
        seat = entry["seat"]
        texts = events[i] if events is not None else []
        text = "; ".join(name_seats(t, names) for t in texts) if texts else (
            describe_action(lang, match["game"], entry["action"])
        )
        who = names.get(seat, f"#{seat + 1}") if seat is not None else ""
        if who and text.startswith(who + " "):
            text = text[len(who) + 1:]  # "Ann · plays a 5", not "Ann · Ann plays a 5"
        lines.append(StoryLine(i, int(entry["at_ms"]), seat, who, text))
    return lines


def move_line(lang: str, line: StoryLine | None) -> str:
    """A move's line (``None``: the set-up) in one line: "0:12.4 · Ann: plays a 5" (a move of
    the game's timers has no name before it)."""
    if line is None:
        return translate(lang, "replay.start")
    said = line.text if line.seat is None else f"{line.who}: {line.text}"
    return f"{clock_text(line.at_ms)} · {said}"


def summary_text(match: dict[str, Any], lang: str) -> str:
    """The result in the reader's words: the sentence of the match's ending from the game's
    catalogs ("Cleo wins with 11 points", "Cleo gewinnt mit 11 Punkten"; app/i18n/endings.py).
    A match stored before endings were named (docs/decisions/0058) keeps its engine's English
    sentence on an English page; another language names the winners from the result's rows
    ("Cleo gewinnt!"), and a match without winners says so."""
    seats = {p["seat"]: p["nickname"] for p in match["players"]}
    winners = sorted(p["seat"] for p in match["players"] if p.get("winner"))
    if match.get("ending"):
        text = ending_text(lang, match["game"], match["ending"], winners, match.get("details"))
        if text is not None:
            return name_seats(text, seats)
    if lang == "en" and match.get("summary"):
        return str(match["summary"])
    names = [seats[s] for s in winners]
    if not names:
        return translate(lang, "match.no_winners")
    joined = names[0] if len(names) == 1 else translate(
        lang, "event.and", a=", ".join(names[:-1]), b=names[-1])
    return translate(lang, "room.wins" if len(names) == 1 else "room.win", names=joined)


def duration_text(lang: str, seconds: float) -> str:
    """"4 min 12 s" (or "12 s")."""
    seconds = max(0, round(seconds))
    minutes, rest = divmod(seconds, 60)
    if minutes:
        return translate(lang, "time.min_s", m=minutes, s=rest)
    return translate(lang, "time.s", s=rest)


def clock_text(ms: int) -> str:
    """Time into the match as m:ss.t."""
    minutes, rest = divmod(max(0, ms), 60_000)
    return f"{minutes}:{rest / 1000:04.1f}"
