"""Health: whether the database (and Redis, when configured) answer, within 2 s in all."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from .deps import Db, Registry

router = APIRouter(tags=["health"])

PING_SECONDS = 1.5
"""How long the health check waits for the database and for Redis (asked at the same time): a
silent one is reported as down (503) well within 2 s, whatever its own timeouts (issue 7,
item 5)."""


async def _redis_answers(registry: Registry) -> bool:
    assert registry.cluster is not None
    try:
        return bool(await asyncio.wait_for(registry.cluster.ping(), PING_SECONDS))
    except Exception:  # noqa: BLE001 - silent or failing: not healthy
        return False


@router.get("/healthz", summary="Whether the server and its database answer (503 if not)")
async def healthz(db: Db, registry: Registry) -> JSONResponse:
    if registry.cluster is not None:
        ok, redis = await asyncio.gather(db.ping_within(PING_SECONDS), _redis_answers(registry))
    else:
        ok, redis = await db.ping_within(PING_SECONDS), None
    body: dict[str, object] = {"database": ok, "rooms": len(registry.rooms)}
    writer = getattr(registry, "writer", None)
    if writer is not None:
        body["unsaved_matches"] = writer.pending_count()
    if registry.cluster is not None:
        body["redis"] = redis
        body["node"] = registry.cluster.node
        ok = ok and bool(redis)
    body["status"] = "ok" if ok else "degraded"
    return JSONResponse(body, status_code=200 if ok else 503)
