"""The pages' texts, one catalog per language: the site's (``en.json``, ``de.json`` beside this
file) and every registered game's (``texts/<lang>.json`` in its package, app/i18n/packages.py),
merged into one.

A catalog is a flat JSON object: key -> text, or key -> ``{"one": ..., "other": ...}`` for a
text that depends on a count (``n``). ``{name}`` in a text is replaced by the parameter ``name``.
Templates call ``t(key, **params)``; the pages' JavaScript loads the same catalog from
``/i18n/<lang>.json`` (static/js/i18n.js). The language is the ``lang`` cookie set by the header's switch, else
the browser's ``Accept-Language``, else ``DEFAULT_LANGUAGE``.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from app.engine import registry

from .packages import package_texts

CATALOG_DIR = Path(__file__).resolve().parent
LANGUAGES = ("en", "de")
"""Every language the site speaks; the first is the fallback for a missing key."""
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch"}
COOKIE = "lang"
_PARAM = re.compile(r"\{(\w+)\}")


@lru_cache
def site_catalog(lang: str) -> dict[str, Any]:
    """The site's own texts in ``lang`` as stored (no game's)."""
    return json.loads((CATALOG_DIR / f"{lang}.json").read_text(encoding="utf-8"))


_merged: dict[str, tuple[int, dict[str, Any]]] = {}


def catalog(lang: str) -> dict[str, Any]:
    """Every text in ``lang``: the site's and each registered game's (built again when a game
    comes or goes: ``registry.generation``)."""
    generation = registry.generation()
    held = _merged.get(lang)
    if held is None or held[0] != generation:
        merged = dict(site_catalog(lang))
        for package in registry.all_packages():
            if package.folder is not None:
                merged.update(package_texts(package, lang))
        held = _merged[lang] = (generation, merged)
    return held[1]


def catalog_version(lang: str) -> str:
    """A short hash of the catalog: its URL changes when its texts do (long caching is safe)."""
    return _version(lang, registry.generation())


@lru_cache
def _version(lang: str, generation: int) -> str:
    return hashlib.sha256(json.dumps(catalog(lang), sort_keys=True).encode()).hexdigest()[:12]


def flat_keys(entries: dict[str, Any]) -> set[str]:
    """Every key, with plural forms as ``key.one`` / ``key.other`` (for the catalogs' test)."""
    keys: set[str] = set()
    for key, value in entries.items():
        keys.update(f"{key}.{form}" for form in value) if isinstance(value, dict) else keys.add(key)
    return keys


def plural_form(lang: str, n: float) -> str:
    """CLDR plural category for English and German (both: "one" for exactly 1)."""
    return "one" if n == 1 else "other"


def translate(lang: str, key: str, default: str | None = None, **params: Any) -> str:
    """The text of ``key`` in ``lang`` (English when missing there; ``default``, else the key
    itself, when missing everywhere, so a gap shows rather than breaks a page), with
    ``{param}`` filled in."""
    value = catalog(lang).get(key)
    if value is None:
        value = catalog(LANGUAGES[0]).get(key, key if default is None else default)
    if isinstance(value, dict):
        value = value.get(plural_form(lang, float(params.get("n", 0))), value.get("other", key))
    text = str(value)
    if not params:
        return text
    return _PARAM.sub(lambda m: str(params.get(m.group(1), m.group(0))), text)


def negotiate(cookie: str | None, accept_language: str | None, default: str = "en") -> str:
    """The language of a request: the switch's cookie, else the best of Accept-Language."""
    if cookie in LANGUAGES:
        return cookie
    best, best_q = None, 0.0
    for part in (accept_language or "").split(","):
        tag, _, rest = part.strip().partition(";")
        primary = tag.strip().lower().split("-")[0]
        q = 1.0
        if rest.strip().startswith("q="):
            try:
                q = float(rest.strip()[2:])
            except ValueError:
                q = 0.0
        if primary in LANGUAGES and q > best_q:
            best, best_q = primary, q
    return best or (default if default in LANGUAGES else LANGUAGES[0])
