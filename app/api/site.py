"""What every page shares: the templates (with the language and its texts), the site's error
page, and the API documentation served from this server alone.

- ``t(key, **params)`` in templates speaks the request's language (app/i18n); ``page_lang()``,
  ``catalog_url()`` and ``languages`` serve the header's switch and static/js/i18n.js.
- A browser that asks for a page that does not exist gets the site's HTML error page; anything
  under ``/api/`` (and any client that asks for JSON only) gets FastAPI's JSON error.
- ``/docs`` and ``/redoc`` load Swagger UI and ReDoc from assets shipped by a PyPI package
  (``fastapi-offline``) and served here: they work with no Internet connection. Each carries a
  Content-Security-Policy of its own that names its inline script by its hash
  (app/api/guards.py, ``docs_policy``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.exception_handlers import (
    http_exception_handler,
    request_validation_exception_handler,
)
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from jinja2 import FileSystemLoader, pass_context
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.config import PROJECT_ROOT, Settings
from app.i18n import COOKIE, LANGUAGE_NAMES, catalog_version, negotiate, translate

from .game_files import template_loader
from .guards import docs_policy
from .urls import follows_host, page_url_for

DOCS_ASSETS = Path(fastapi_offline.__file__).resolve().parent / "static"
DOCS_ASSETS_URL = "/docs-assets"
REDOC_JS_URL = "/docs-redoc.js"
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
"""ReDoc's menu draws its maker's logo from this address (hidden when it fails to load): the
script is served with it removed, so the page asks nothing of another server and its policy
refuses nothing."""


def request_language(request: Request) -> str:
    """The language of this request's page (the switch's cookie, else Accept-Language)."""
    lang = getattr(request.state, "lang", None)
    if lang is None:
        settings: Settings = request.app.state.settings
        lang = negotiate(
            request.cookies.get(COOKIE), request.headers.get("accept-language"),
            settings.default_language,
        )
        request.state.lang = lang
    return lang


def catalog_path(lang: str) -> str:
    """A language's catalog at its versioned URL (``/i18n/<lang>.json?v=<hash>``), which pages
    name in ``<meta name="i18n-catalog">`` for static/js/i18n.js."""
    return f"/i18n/{lang}.json?v={catalog_version(lang)}"


class SiteTemplates(Jinja2Templates):
    """Jinja2 templates whose pages say that their language depends on the request (``Vary``),
    so a cache between the site and a browser never serves one person's language to another;
    without ``PUBLIC_URL`` their invite links follow the request's address, so ``Host`` too."""

    def TemplateResponse(self, *args: Any, **kwargs: Any) -> Any:  # noqa: N802 - Starlette's name
        response = super().TemplateResponse(*args, **kwargs)
        request = kwargs.get("request", args[0] if args else None)
        host = isinstance(request, Request) and follows_host(request)
        response.headers.append("Vary", "Accept-Language, Cookie" + (", Host" if host else ""))
        # A page is made anew for every request (rooms come and go, the lobby lists them): kept
        # by no cache without asking again. Its language is said, for the service worker's
        # offline page (app/api/installable.py).
        response.headers.setdefault("Cache-Control", "no-cache")
        if isinstance(request, Request):
            response.headers["Content-Language"] = request_language(request)
        return response


def site_templates() -> Jinja2Templates:
    """The Jinja2 environment of every page, with the site's globals."""
    templates = SiteTemplates(directory=PROJECT_ROOT / "templates")
    # Each game's rules pages come from its package (app/api/game_files.py).
    templates.env.loader = template_loader(FileSystemLoader(PROJECT_ROOT / "templates"))

    @pass_context
    def t(context: Any, key: str, **params: Any) -> str:
        return translate(request_language(context["request"]), key, **params)

    @pass_context
    def page_lang(context: Any) -> str:
        return request_language(context["request"])

    @pass_context
    def catalog_url(context: Any) -> str:
        return catalog_path(request_language(context["request"]))

    @pass_context
    def url_for(context: Any, name: str, /, **params: Any) -> str:
        """Starlette's ``url_for`` made absolute from the request's ``Host``; the site's pages
        link at ``PUBLIC_URL`` or root-relative instead (app/api/urls.py)."""
        return page_url_for(context["request"], name, **params)

    templates.env.globals.update(
        t=t, page_lang=page_lang, catalog_url=catalog_url, languages=LANGUAGE_NAMES,
        url_for=url_for,
    )
    return templates


def wants_html(request: Request) -> bool:
    """Browsers get pages; ``/api/`` and clients that ask only for JSON get JSON."""
    if request.url.path.startswith("/api/") or request.url.path == "/api":
        return False
    accept = request.headers.get("accept", "")
    return not ("json" in accept and "html" not in accept)


def error_page(
    request: Request, status: int, heading: str | None = None, text: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """The site's HTML error page (templates/error.html); without ``heading``, the texts of
    its status (404, 503, any other)."""
    lang = request_language(request)
    if heading is None:
        key = {404: "error.not_found", 503: "error.unavailable"}.get(status, "error.other")
        heading = translate(lang, f"{key}.title", status=status)
        text = translate(lang, f"{key}.text", status=status)
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(
        request, "error.html", {"status": status, "heading": heading, "text": text or ""},
        status_code=status, headers=headers,
    )


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)  # registered for it (install_site)
    if wants_html(request):
        return error_page(request, exc.status_code, headers=getattr(exc, "headers", None))
    return await http_exception_handler(request, exc)


async def _validation_error(request: Request, exc: Exception) -> Response:
    """A page address with a malformed part (``/matches/abc``) names no page: 404."""
    assert isinstance(exc, RequestValidationError)  # registered for it (install_site)
    if wants_html(request):
        return error_page(request, 404)
    return await request_validation_exception_handler(request, exc)


def _offline_docs(app: FastAPI) -> None:
    app.mount(DOCS_ASSETS_URL, StaticFiles(directory=DOCS_ASSETS), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"
    redoc_js: list[bytes] = []

    @app.get(REDOC_JS_URL, include_in_schema=False)
    async def redoc_script() -> Response:
        if not redoc_js:  # read once, on first use
            text = (DOCS_ASSETS / "redoc.standalone.js").read_text(encoding="utf-8")
            redoc_js.append(text.replace(REDOC_LOGO, "").encode())
        return Response(redoc_js[0], media_type="text/javascript",
                        headers={"Cache-Control": "public, max-age=86400"})

    def with_policy(page: HTMLResponse) -> HTMLResponse:
        page.headers["Content-Security-Policy"] = docs_policy(bytes(page.body).decode())
        return page

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return with_policy(get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} · API",
            swagger_js_url=f"{DOCS_ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url="/static/img/favicon.svg",
            # No badge from the public validator service: the page talks to this server only.
            swagger_ui_parameters={"validatorUrl": None},
        ))

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return with_policy(get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} · API",
            redoc_js_url=REDOC_JS_URL,
            redoc_favicon_url="/static/img/favicon.svg",
            with_google_fonts=False,
        ))


def install_site(app: FastAPI) -> None:
    """Templates, error pages and offline docs on ``app`` (created with ``docs_url=None`` and
    ``redoc_url=None``)."""
    app.state.templates = site_templates()
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    _offline_docs(app)
