"""The site's static files under versioned URLs, built once at start (docs/decisions/0046).

Every file of every ``AssetRoot`` (the site's ``static/`` at ``/static``; a root per game may be
added, each under its own URL prefix) gets a second URL with a hash in its name:
``/static/js/room.js`` is also ``/static/js/room.3f2a1b9c0d.js``. The hash covers the file and
every file it names, directly or through others (its imports, its stylesheet's ``url()``s), so
a module's URL changes whenever anything it loads changes. In each page module and stylesheet
the references to other files of the site are rewritten to their versioned URLs (as Django's
``ManifestStaticFilesStorage`` does), across roots too: ``import { t } from "../i18n.js"`` becomes
``"../i18n.58c2e0a1b4.js"``, so the whole graph of modules loads by versioned URLs and each
module once. The versioned files are kept in memory with their gzip and Brotli forms, compressed
once per process, and served with a year's ``immutable`` cache (``app/web/serving.py``); the
plain URLs keep working with a short cache (bookmarks, ``/static/verify_match.py``).
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import brotli

from .references import REWRITTEN_SUFFIXES, references, rewrite

HASH_LENGTH = 10
"""Hex digits of a versioned name's hash (40 bits: no two versions of one file meet)."""
COMPRESS_FROM = 1024
"""Bytes below which a file goes out as it is: compressing it saves less than its headers."""
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "application/manifest+json",
                "image/svg+xml")
_VERSIONED = re.compile(rf"^(?P<stem>.+)\.(?P<hash>[0-9a-f]{{{HASH_LENGTH}}})(?P<suffix>\.[^./]+)$")

mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("application/manifest+json", ".webmanifest")
mimetypes.add_type("image/svg+xml", ".svg")


@dataclass(frozen=True)
class AssetRoot:
    """A folder of files served under a URL ``prefix`` (``/static``), mounted as ``name``."""

    prefix: str
    folder: Path
    name: str


@dataclass(frozen=True)
class Asset:
    """One file under its versioned URL: its bytes as served, and their compressed forms
    where they are smaller (``None`` otherwise)."""

    url: str
    source: str
    media_type: str
    body: bytes
    gzip: bytes | None
    brotli: bytes | None
    etag: str = field(repr=False)


BROTLI_QUALITY = 10
"""The site's assets at quality 10 come to 2.7% more than at 11, Brotli's best, for 40% of its
CPU time (about 0.2 s against 0.45 s at each start; docs/decisions/0046)."""
_compressed: dict[bytes, tuple[bytes | None, bytes | None]] = {}
"""Each body's gzip and Brotli forms by its digest: made once per process, however many apps it
builds (the tests build many)."""


def _compress(body: bytes, media_type: str) -> tuple[bytes | None, bytes | None]:
    if len(body) < COMPRESS_FROM or not media_type.startswith(COMPRESSIBLE):
        return None, None
    key = hashlib.sha256(body).digest()
    if key not in _compressed:
        zipped = gzip.compress(body, compresslevel=9, mtime=0)
        squeezed = brotli.compress(body, quality=BROTLI_QUALITY, mode=brotli.MODE_TEXT)
        _compressed[key] = (zipped if len(zipped) < len(body) else None,
                            squeezed if len(squeezed) < len(body) else None)
    return _compressed[key]


def versioned_name(url: str, digest: str) -> str:
    """``/static/js/room.js`` with ``digest`` in its name: ``/static/js/room.<digest>.js``."""
    folder, name = posixpath.split(url)
    stem, dot, suffix = name.rpartition(".")
    return posixpath.join(folder, f"{stem}.{digest}.{suffix}" if dot and stem else f"{name}.{digest}")


def unversioned_name(url: str) -> str | None:
    """The plain URL a versioned-looking URL stands for, or ``None``."""
    match = _VERSIONED.match(url)
    return f"{match['stem']}{match['suffix']}" if match else None


class AssetRegistry:
    """Every file of ``roots`` under its versioned URL, built once (``version`` names the whole
    set: the service worker's cache is named after it)."""

    def __init__(self, roots: Sequence[AssetRoot]) -> None:
        self.roots = tuple(roots)
        sources: dict[str, bytes] = {}
        for root in self.roots:
            for path in sorted(root.folder.rglob("*")):
                if path.is_file() and not path.name.startswith("."):
                    relative = path.relative_to(root.folder).as_posix()
                    sources[f"{root.prefix.rstrip('/')}/{relative}"] = path.read_bytes()
        names = self._names(sources)
        self._by_source = names
        self._assets: dict[str, Asset] = {}
        for source, body in sources.items():
            suffix = posixpath.splitext(source)[1]
            if suffix in REWRITTEN_SUFFIXES:
                body = rewrite(suffix, body.decode("utf-8"), source, names.get).encode("utf-8")
            media_type = mimetypes.guess_type(source)[0] or "application/octet-stream"
            zipped, squeezed = _compress(body, media_type)
            url = names[source]
            self._assets[url] = Asset(url, source, media_type, body, zipped, squeezed,
                                      etag=f'"{posixpath.basename(url)}"')
        self.version = hashlib.sha256("\n".join(sorted(self._assets)).encode()).hexdigest()[
            :HASH_LENGTH]

    @staticmethod
    def _names(sources: dict[str, bytes]) -> dict[str, str]:
        """Each file's versioned URL: its hash covers its own bytes and those of every file it
        names, directly or not (cycles included), so that a change anywhere below a module
        gives it a new URL too."""
        digests = {url: hashlib.sha256(body).hexdigest() for url, body in sources.items()}
        named: dict[str, set[str]] = {}
        for url, body in sources.items():
            suffix = posixpath.splitext(url)[1]
            found = references(suffix, body.decode("utf-8"), url) \
                if suffix in REWRITTEN_SUFFIXES else set()
            named[url] = {ref for ref in found if ref in sources and ref != url}
        names = {}
        for url in sources:
            reach, todo = {url}, [url]
            while todo:
                for ref in named[todo.pop()] - reach:
                    reach.add(ref)
                    todo.append(ref)
            closure = "\n".join(f"{ref} {digests[ref]}" for ref in sorted(reach))
            names[url] = versioned_name(url, hashlib.sha256(closure.encode()).hexdigest()[
                :HASH_LENGTH])
        return names

    def url(self, source: str) -> str | None:
        """The versioned URL of the plain URL path ``source`` (``/static/css/site.css``), or
        ``None`` when no root holds it."""
        return self._by_source.get(source)

    def get(self, url: str) -> Asset | None:
        """The asset at its versioned URL."""
        return self._assets.get(url)

    def current(self, url: str) -> Asset | None:
        """The asset a versioned URL of an older build names (a page opened before a deploy
        that loads a module only now): today's version of the same file."""
        source = unversioned_name(url)
        current = self._by_source.get(source) if source else None
        return self._assets.get(current) if current else None

    def urls(self, prefixes: Iterable[str] = ("",)) -> list[str]:
        """Every versioned URL whose plain URL starts with one of ``prefixes``."""
        chosen = tuple(prefixes)
        return sorted(a.url for a in self._assets.values() if a.source.startswith(chosen))
