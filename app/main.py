"""The application factory: routers, static files, templates, and the lifespan that opens the
database (migrated by Alembic) and the room registry."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api import game_files, games, health, installable, matches, operations, pages, rooms
from app.api.guards import GuardedApp
from app.api.finished.answers import MatchAnswers
from app.api.site import error_page, install_site
from app.collector import run_collector_schedule
from app.config import PROJECT_ROOT, Settings, get_settings
from app.db.database import UNAVAILABLE_ERRORS, Database, migrate
from app.db.outbox import MatchWriter, Outbox
from app.games import load_all
from app.logs import configure as configure_logging
from app.realtime.cluster.relay import REDIS_ERRORS, Cluster
from app.realtime.durable.journal import Journal
from app.realtime.endpoint import serve_room_socket
from app.realtime.registry import RoomRegistry
from app.realtime.room.tokens import SeatTokens
from app.realtime.transport.guard import SocketGuard, SocketPolicy
from app.web import compression, serving
from app.web.assets import AssetRegistry, AssetRoot

SITE_ASSETS = (AssetRoot("/static", PROJECT_ROOT / "static", "static"),)
"""The site's own folder of files the pages load; each game's page folder is one more root,
under its own prefix (app/api/game_files.py, docs/decisions/0046 and 0050)."""

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    load_all()
    configure_logging(settings.log_level, settings.log_format)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        url = settings.resolved_database_url()
        timeout = settings.database_timeout_seconds
        schema_pending = False
        if settings.migrate_on_start:
            try:
                await asyncio.to_thread(migrate, url, "head", timeout)
            except UNAVAILABLE_ERRORS as error:  # the site starts; the writer migrates later
                log.error("the database is unavailable at start-up: %s", error)
                schema_pending = True
        app.state.db = Database(url, timeout=timeout)
        app.state.writer = MatchWriter(
            app.state.db, Outbox(settings.var_dir / "outbox"),
            max_delay=settings.outbox_retry_max_seconds, schema_pending=schema_pending,
        )
        app.state.guard = SocketGuard(SocketPolicy.from_settings(settings))
        app.state.registry = RoomRegistry(
            db=app.state.db,
            tokens=SeatTokens(settings.resolved_secret_key()),
            idle_seconds=settings.room_idle_seconds,
            ping_seconds=settings.ping_interval_seconds,
            max_rooms=settings.max_rooms,
            cluster=Cluster(settings.redis_url, settings.redis_prefix, settings.lease_seconds)
            if settings.redis_url else None,
            policy=app.state.guard.policy,
        )
        app.state.registry.writer = app.state.writer
        await app.state.writer.start()
        journal = Journal(app.state.db, hold=settings.journal_hold_seconds) \
            if settings.durable_rooms else None
        if journal is not None:  # durable rooms: recorded as they change, restored at start
            app.state.registry.journal = journal
            journal.on_back = app.state.writer.retry_now  # the outbox waits no longer
            journal.start()
            try:
                await app.state.registry.restore()
            except UNAVAILABLE_ERRORS as error:
                log.error("could not restore the open rooms: %s", error)
        await app.state.registry.start()
        collector = asyncio.get_running_loop().create_task(
            run_collector_schedule(settings.gc_young_seconds, settings.gc_full_seconds,
                                   settings.gc_thaw_seconds)
        )
        yield
        collector.cancel()
        await app.state.registry.close_all()
        if journal is not None:
            await journal.stop()
        await app.state.writer.stop()
        app.state.db.dispose()

    # The Host allow-list and the security headers wrap everything (app/api/guards.py).
    app = GuardedApp(
        title="Panic Party",
        summary="Party games in real time: rooms, matches and leaderboards.",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,  # served from local assets by app/api/site.py
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.match_answers = MatchAnswers()  # finished matches' answers (app/api/finished/answers.py)
    # Versioned assets, built once here, and the service worker that keeps them.
    app.state.assets = AssetRegistry([*SITE_ASSETS, *game_files.asset_roots()])
    install_site(app)
    app.state.site_worker = installable.site_worker(app.state.templates, app.state.assets)
    serving.mount(app, app.state.assets)
    for module in (games, rooms, matches, health, pages, installable):
        app.include_router(module.router)

    for error in UNAVAILABLE_ERRORS:
        app.add_exception_handler(error, database_unavailable)
    for error in REDIS_ERRORS:
        app.add_exception_handler(error, redis_unavailable)
    compression.install(app)  # inside the socket shortcut: no room socket passes through it
    app.add_middleware(RoomSocketShortcut)
    operations.install(app)
    return app


async def database_unavailable(request: Request, error: Exception) -> Response:
    """503 while the database is down or silent (docs/decisions/0018): JSON for ``/api/...``, the
    site's error page for a browser; never a traceback, never a hang."""
    log.warning("database unavailable for %s: %s", request.url.path,
                str(error).splitlines()[0] if str(error) else type(error).__name__)
    headers = {"Retry-After": "5"}
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": "the database is unavailable; try again shortly"},
                            status_code=503, headers=headers)
    return error_page(request, 503, headers=headers)


async def redis_unavailable(request: Request, error: Exception) -> Response:
    """503 while Redis is away (several processes: the lobby, a room's page and summary need
    its directory): one warning per outage (docs/decisions/0045), never a traceback."""
    cluster = request.app.state.registry.cluster
    if cluster is not None:
        cluster.outage.failed(f"serving {request.url.path}", error)
    headers = {"Retry-After": "5"}
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": "the room directory is unavailable; try again shortly"},
                            status_code=503, headers=headers)
    return error_page(request, 503, headers=headers)


class RoomSocketShortcut:
    """Serves ``/ws/{code}`` straight from the ASGI entry, past FastAPI's router and middleware
    layers, which held several KB per open WebSocket (docs/performance.md). Everything else goes
    on to FastAPI."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            path: str = scope["path"]
            code = path[4:] if path.startswith("/ws/") else ""
            if code and "/" not in code:
                state = scope["app"].state
                await serve_room_socket(
                    WebSocket(scope, receive, send), code, state.registry, state.guard,
                    state.hosts,
                )
                return
        await self.app(scope, receive, send)
