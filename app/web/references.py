"""The URLs a page module or a stylesheet names, found and replaced in its text.

A module's ``import ... from "./dom.js"``, ``export ... from "../i18n.js"``, ``import "./x.js"``
and ``import("./x.js")`` (string literals only), a stylesheet's ``url(...)`` and ``@import``: each
is resolved against the URL of the file that names it, and ``replace`` is asked for what to put
instead. A bare module name (``"lit"``), an address with a scheme (``https:``, ``data:``), a
protocol-relative one (``//host``) and a fragment alone (``#id``) are never touched, nor a
template literal, which names no file until it runs. The search is by regular expression, as
Django's ``ManifestStaticFilesStorage`` does it: a specifier quoted in a comment is found too,
and is replaced only when it names a file the site serves.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

_JS = re.compile(
    r"""(?P<lead>\bimport\s*\(\s*|\bimport\s*(?:[\w$*{},\s]+?\s*\bfrom\s*)?|"""
    r"""\bexport\s*[\w$*{},\s]+?\s*\bfrom\s*)(?P<quote>["'])(?P<url>[^"'\n]+)(?P=quote)"""
)
_CSS = re.compile(
    r"""(?P<lead>\burl\(\s*)(?P<quote>["']?)(?P<url>[^"')\s]+)(?P=quote)(?=\s*\))|"""
    r"""(?P<ilead>@import\s+)(?P<iquote>["'])(?P<iurl>[^"'\n]+)(?P=iquote)"""
)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")

REWRITTEN_SUFFIXES = frozenset({".js", ".mjs", ".css"})
"""The files whose text names other files: page modules and stylesheets."""


def resolve(base_url: str, reference: str) -> str | None:
    """The URL path that ``reference``, named in the file at ``base_url``, points to (without
    its query or fragment); ``None`` for what names no file of this site."""
    if not reference or reference.startswith(("#", "//")) or _SCHEME.match(reference):
        return None
    path = re.split(r"[?#]", reference, maxsplit=1)[0]
    if path.startswith("/"):
        return posixpath.normpath(path)
    if not path.startswith(("./", "../")):
        return None  # a bare module name, or a CSS url relative without ./ (handled below)
    return posixpath.normpath(posixpath.join(posixpath.dirname(base_url), path))


def _css_resolve(base_url: str, reference: str) -> str | None:
    """In CSS a relative URL needs no ``./`` (``url(img/a.svg)``)."""
    if reference and not reference.startswith(("/", ".", "#")) \
            and not _SCHEME.match(reference):
        reference = "./" + reference
    return resolve(base_url, reference)


def renamed(reference: str, new_url: str) -> str:
    """``reference`` with its file name changed to ``new_url``'s (same folder, so a relative
    reference stays relative), its query and fragment kept."""
    cut = re.search(r"[?#]", reference)
    path, tail = (reference[:cut.start()], reference[cut.start():]) if cut else (reference, "")
    head, _, _ = path.rpartition("/")
    return (f"{head}/" if "/" in path else "") + posixpath.basename(new_url) + tail


def references(suffix: str, text: str, base_url: str) -> set[str]:
    """The URL paths the file at ``base_url`` names."""
    found: set[str] = set()

    def note(url: str) -> None:
        found.add(url)

    rewrite(suffix, text, base_url, note)
    return found


def rewrite(suffix: str, text: str, base_url: str,
            replace: Callable[[str], str | None]) -> str:
    """``text`` with every reference whose URL path ``replace`` maps to a new URL renamed to
    it; ``replace`` returns ``None`` to leave a reference as it is."""
    if suffix in (".js", ".mjs"):
        def on_js(match: re.Match[str]) -> str:
            url = resolve(base_url, match["url"])
            new = replace(url) if url else None
            if new is None:
                return match[0]
            q = match["quote"]
            return f"{match['lead']}{q}{renamed(match['url'], new)}{q}"
        return _JS.sub(on_js, text)
    if suffix == ".css":
        def on_css(match: re.Match[str]) -> str:
            lead, quote, ref = (match["lead"], match["quote"], match["url"]) if match["lead"] \
                else (match["ilead"], match["iquote"], match["iurl"])
            url = _css_resolve(base_url, ref)
            new = replace(url) if url else None
            if new is None:
                return match[0]
            return f"{lead}{quote}{renamed(ref, new)}{quote}"
        return _CSS.sub(on_css, text)
    return text
