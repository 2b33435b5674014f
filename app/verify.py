"""``python3 -m app verify <match>``: the whole check of a finished match, from a clone of the site.

``<match>`` is a match page's or its JSON's address (``https://<site>/matches/42``,
``https://<site>/api/matches/42``), a file of that JSON, ``-`` for standard input, or a match id
of this site's own database (``DATABASE_URL``, SQLite under ``var/`` by default). The record is
replayed through the game's own rules (app/engine/proof.py); the command prints what agreed and
every mismatch, and exits

- 0: fair: everything the record claims agrees with the replay, and it claims everything;
- 1: a mismatch (each one printed);
- 2: the match cannot be read (no such file, address or id; not JSON; not an object);
- 3: no mismatch, but not everything was checked (a match stored before its events were
  recorded): what was not is printed.

The same codes as ``static/verify_match.py``'s (docs/fairness.md, "Checking a match").
"""

from __future__ import annotations

import json
import re
import sys
import urllib.request
from typing import Any

FAIR, MISMATCH, UNREADABLE, UNCHECKED = 0, 1, 2, 3
USAGE = "usage: python3 -m app verify <match URL | match id | JSON file | ->"


class Unreadable(Exception):
    """The match cannot be read, and why."""


def load(source: str) -> dict[str, Any]:
    """A match record from an address, a file, standard input or this site's database."""
    try:
        if source == "-":
            data = json.load(sys.stdin)
        elif re.match(r"https?://", source):
            address = re.sub(r"(https?://[^/]+)/matches/(\d+)/?$", r"\1/api/matches/\2", source)
            request = urllib.request.Request(address, headers={"Accept": "application/json"})
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - asked for
                data = json.load(response)
        elif source.isascii() and source.isdigit():
            data = _stored(int(source))
        else:
            with open(source, encoding="utf-8") as file:
                data = json.load(file)
    except (OSError, ValueError) as error:
        raise Unreadable(str(error)) from error
    except RecursionError as error:
        raise Unreadable("nested too deeply") from error
    if not isinstance(data, dict):
        raise Unreadable("not a JSON object")
    return data


def _stored(match_id: int) -> dict[str, Any]:
    """Match ``match_id`` of this site's database, as ``GET /api/matches/{id}`` serves it."""
    from app.config import get_settings
    from app.db import matches as store
    from app.db.database import Database
    from app.engine.chance import with_draws

    db = Database(get_settings().resolved_database_url())
    try:
        found = store.get_match(db, match_id=match_id)
    except Exception as error:  # noqa: BLE001 - any database failure: the match cannot be read
        raise Unreadable(f"the database cannot be read: {error}") from error
    finally:
        db.dispose()
    if found is None:
        raise Unreadable(f"no match {match_id} in this site's database")
    return with_draws(found)


def main(argv: list[str]) -> int:
    from app.engine.proof import check_match, shown
    from app.games import load_all

    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(USAGE)
        print(__doc__.split("\n\n", 1)[1].strip())
        return UNREADABLE
    try:
        match = load(argv[0])
    except Unreadable as error:
        print(f"cannot read the match: {shown(str(error), 200)}", file=sys.stderr)
        return UNREADABLE
    load_all()
    title = f"match {shown(match.get('id', '?'))} ({shown(match.get('game', '?'))})"
    verdict = check_match(match)
    for line in verdict.checked:
        print(f"ok: {line}")
    for line in verdict.unchecked:
        print(f"NOT CHECKED: {line}")
    for line in verdict.problems:
        print(f"MISMATCH: {line}")
    if verdict.problems:
        print(f"{title}: {len(verdict.problems)} problem(s) found")
        return MISMATCH
    if verdict.unchecked:
        print(f"{title}: no mismatch, but not everything was checked")
        return UNCHECKED
    print(f"{title}: fair, the match replays through its rules exactly as recorded")
    return FAIR
