"""The application factory: routers, static files, templates, and the lifespan that opens the
database (migrated by Alembic) and the room registry."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, WebSocket
from starlette.types import ASGIApp, Receive, Scope, Send
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from app.api import games, health, matches, pages, rooms
from app.collector import run_collector_schedule
from app.config import PROJECT_ROOT, Settings, get_settings
from app.db.database import Database, migrate
from app.games import load_all
from app.realtime.cluster import Cluster
from app.realtime.endpoint import serve_room_socket
from app.realtime.guard import SocketGuard, SocketPolicy
from app.realtime.registry import RoomRegistry
from app.realtime.tokens import SeatTokens


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    load_all()
    logging.basicConfig(level=settings.log_level.upper())
    for noisy in ("alembic", "httpx"):
        logging.getLogger(noisy).setLevel(logging.WARNING)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        url = settings.resolved_database_url()
        if settings.migrate_on_start:
            migrate(url)
        app.state.db = Database(url)
        app.state.guard = SocketGuard(SocketPolicy.from_settings(settings))
        app.state.registry = RoomRegistry(
            db=app.state.db,
            tokens=SeatTokens(settings.resolved_secret_key()),
            idle_seconds=settings.room_idle_seconds,
            ping_seconds=settings.ping_interval_seconds,
            max_rooms=settings.max_rooms,
            cluster=Cluster(settings.redis_url, settings.redis_prefix) if settings.redis_url else None,
            policy=app.state.guard.policy,
        )
        await app.state.registry.start()
        collector = asyncio.get_running_loop().create_task(
            run_collector_schedule(settings.gc_young_seconds, settings.gc_full_seconds)
        )
        yield
        collector.cancel()
        await app.state.registry.close_all()
        app.state.db.dispose()

    app = FastAPI(
        title="Panic Party",
        summary="Party games in real time: rooms, matches and leaderboards.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.templates = Jinja2Templates(directory=PROJECT_ROOT / "templates")
    app.mount("/static", StaticFiles(directory=PROJECT_ROOT / "static"), name="static")
    for module in (games, rooms, matches, health, pages):
        app.include_router(module.router)

    app.add_middleware(RoomSocketShortcut)
    return app


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
                    WebSocket(scope, receive, send), code, state.registry, state.guard
                )
                return
        await self.app(scope, receive, send)
