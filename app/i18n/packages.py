"""A game package's texts (``texts/<lang>.json`` in its folder), read once per process.

Each is a flat catalog like the site's, every key under one of the game's prefixes
(``GamePackage.key_prefixes``: ``game.<id>.``, ``event.<id>.``, ``timer.<id>.``, ``rules.<id>.``,
``ending.<id>.``);
``app.games.check_package`` leaves out a package with a key outside them, and the site merges
the rest into its catalogs (``app.i18n.catalog``).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from app.engine.package import GamePackage


def package_texts(package: GamePackage, lang: str) -> dict[str, Any]:
    """The texts of ``package`` in ``lang``; ``ValueError`` when the file is not a JSON object."""
    return _read(package.texts_folder / f"{lang}.json")


@lru_cache
def _read(path: Path) -> dict[str, Any]:
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path.parent.name}/{path.name} does not read: {error}") from error
    if not isinstance(entries, dict):
        raise ValueError(f"{path.parent.name}/{path.name} is not a JSON object")
    return entries
