"""Health: whether the database (and Redis, when configured) answer."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from .deps import Db, Registry

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="Whether the server and its database answer")
async def healthz(db: Db, registry: Registry) -> JSONResponse:
    ok = await asyncio.to_thread(db.ping)
    body: dict[str, object] = {"database": ok, "rooms": len(registry.rooms)}
    if registry.cluster is not None:
        body["redis"] = await registry.cluster.ping()
        body["node"] = registry.cluster.node
        ok = ok and bool(body["redis"])
    body["status"] = "ok" if ok else "degraded"
    return JSONResponse(body, status_code=200 if ok else 503)
