"""The site as an app a phone installs (docs/decisions/0047): the web app manifest, the service
worker and the page it shows when the network is gone.

- ``/manifest.webmanifest``: name, start URL, standalone display, colours, PNG icons (192 and
  512 px, and a maskable one whose art keeps to the safe zone), at their versioned URLs.
- ``/sw.js`` (scope ``/``): rendered once at start from templates/sw.js. Its cache is named
  after the site's version (every asset URL, the catalogs, the templates), so a deploy that
  changes anything changes the script, and the browser installs the new worker, which takes
  over at once and drops the old cache. It precaches the shell (``SHELL`` and both offline
  pages), keeps the other versioned assets as pages use them, and answers a navigation that
  fails for want of a network with ``/offline/<lang>``; it never caches a page, ``/api/``,
  ``/ws/``, a room or a match.
- ``/offline/<lang>``: "no connection: we will reconnect", in each language the site speaks.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from fastapi.templating import Jinja2Templates

from app.config import PROJECT_ROOT
from app.i18n import LANGUAGES, catalog_version, translate
from app.web import serving
from app.web.assets import AssetRegistry

from .site import catalog_path, request_language

router = APIRouter(include_in_schema=False)

THEME = "#1b1230"
"""The site's background (static/css/site.css, ``--bg``): the splash screen and the bar above."""
ICONS = (("img/icon-192.png", "192x192", "any"), ("img/icon-512.png", "512x512", "any"),
         ("img/icon-maskable-512.png", "512x512", "maskable"))
SHELL = ("css/site.css", "css/pages.css", "img/favicon.svg", "js/register_worker.js",
         "js/offline.js")
"""What every page, and the offline page, needs: kept by the service worker when it installs.
The app's icons are not: the browser fetches them itself when it installs the app, and a first
visit would fetch 31 KB of pictures for nothing."""
REVALIDATE = {"Cache-Control": serving.REVALIDATE}
"""Stable URLs whose answer changes with a deploy: kept, but asked again before every use."""


def offline_url(lang: str) -> str:
    """The offline page in ``lang``, as the service worker keeps it."""
    return f"/offline/{lang}"


@dataclass(frozen=True)
class SiteWorker:
    """The service worker's script, rendered once, and the version it names its cache by."""

    version: str
    script: bytes


def site_worker(templates: Jinja2Templates, assets: AssetRegistry) -> SiteWorker:
    """The script of ``/sw.js`` for this build of the site."""
    pages = hashlib.sha256()
    for path in sorted((PROJECT_ROOT / "templates").rglob("*")):
        if path.is_file():
            pages.update(path.read_bytes())
    catalogs = " ".join(catalog_version(lang) for lang in LANGUAGES)
    version = hashlib.sha256(
        f"{assets.version} {catalogs} {pages.hexdigest()}".encode()).hexdigest()[:12]
    shell = [assets.url(f"/static/{path}") for path in SHELL]
    script = templates.env.get_template("sw.js").render(
        version=version, shell=shell,
        assets=assets.urls() + [catalog_path(lang) for lang in LANGUAGES],
        offline={lang: offline_url(lang) for lang in LANGUAGES},
    )
    return SiteWorker(version, script.encode())


@router.get("/manifest.webmanifest", name="web_manifest")
def manifest(request: Request) -> Response:
    """The web app manifest: what the browser's "Install" shows and starts."""
    lang = request_language(request)
    assets: AssetRegistry = request.app.state.assets
    body: dict[str, Any] = {
        "id": "/",
        "name": "Panic Party",
        "short_name": "Panic Party",
        "description": translate(lang, "site.description"),
        "lang": lang,
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": THEME,
        "theme_color": THEME,
        "icons": [{"src": assets.url(f"/static/{path}"), "sizes": sizes, "type": "image/png",
                   "purpose": purpose} for path, sizes, purpose in ICONS],
    }
    return JSONResponse(body, media_type="application/manifest+json",
                        headers={**REVALIDATE, "Vary": "Accept-Language, Cookie"})


@router.get("/sw.js")
def service_worker(request: Request) -> Response:
    """The service worker, at the root so that it serves every page of the site."""
    worker: SiteWorker = request.app.state.site_worker
    return Response(worker.script, media_type="text/javascript", headers=REVALIDATE)


@router.get("/offline/{lang}", name="offline_page")
def offline_page(lang: str, request: Request) -> Response:
    """The page the service worker shows when a page cannot be fetched (one per language: the
    worker keeps both, and shows the one of the last page the site served)."""
    if lang not in LANGUAGES:
        lang = LANGUAGES[0]
    request.state.lang = lang  # this page's language is its address's, whatever the cookie
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, "offline.html", {}, headers=REVALIDATE)
