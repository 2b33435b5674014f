"""Health: whether the database (and Redis, when configured) answer, within 2 s in all."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from .deps import Db, Registry

router = APIRouter(tags=["health"])

PING_SECONDS = 1.5
"""How long the health check waits for the database: a silent database is reported as down
(503) well within 2 s, whatever its connect timeout (issue 7, item 5)."""


@router.get("/healthz", summary="Whether the server and its database answer (503 if not)")
async def healthz(db: Db, registry: Registry) -> JSONResponse:
    ok = await db.ping_within(PING_SECONDS)
    body: dict[str, object] = {"database": ok, "rooms": len(registry.rooms)}
    writer = getattr(registry, "writer", None)
    if writer is not None:
        body["unsaved_matches"] = writer.pending_count()
    if registry.cluster is not None:
        body["redis"] = await registry.cluster.ping()
        body["node"] = registry.cluster.node
        ok = ok and bool(body["redis"])
    body["status"] = "ok" if ok else "degraded"
    return JSONResponse(body, status_code=200 if ok else 503)
