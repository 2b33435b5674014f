"""Operations: ``/metrics`` for Prometheus, and ``HEAD`` on every page and health route
(docs/architecture.md, "Operations")."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import metrics

from .deps import AppSettings

router = APIRouter(include_in_schema=False)


@router.get("/metrics")
async def metrics_page(request: Request, settings: AppSettings) -> Response:
    """The server's metrics in Prometheus's text format (app/metrics.py). Computed on the event
    loop, where the rooms live, so the rooms are never read half-changed."""
    client = request.client.host if request.client else None
    if not metrics.metrics_allowed(settings.metrics_token, request.headers.get("authorization"),
                                   client):
        if settings.metrics_token:
            return PlainTextResponse("a bearer token is needed\n", status_code=401,
                                     headers={"WWW-Authenticate": "Bearer"})
        return PlainTextResponse("metrics are served to local and private networks only; set "
                                 "METRICS_TOKEN to serve them elsewhere\n", status_code=403)
    return Response(metrics.exposition(request.app.state.metrics_registry),
                    media_type=metrics.CONTENT_TYPE_LATEST)


class HeadAsGet:
    """``HEAD`` answered as ``GET`` without the body, on every route: FastAPI's ``@router.get``
    does not answer ``HEAD`` (405), so the request is passed on as a ``GET`` and only the status
    and headers (``Content-Length`` included, as ``GET`` would send it) go out."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


def install(app: FastAPI) -> None:
    """``/metrics``, its scrape-time gauges, the collector's pause timing, and ``HEAD``."""
    app.state.metrics_registry = metrics.site_registry(app.state)
    metrics.watch_collector()
    app.include_router(router)
    app.add_middleware(HeadAsGet)
