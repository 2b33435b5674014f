"""Health: whether the database answers with its schema at the latest migration (and Redis, when
configured, answers), within 2 s in all."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.db.database import Database, DatabaseUnavailable, latest_revisions

from .deps import Db, Registry

router = APIRouter(tags=["health"])

PING_SECONDS = 1.5
"""How long the health check waits for the database and for Redis (asked at the same time): a
silent one is reported as down (503) well within 2 s, whatever its own timeouts
(docs/decisions/0018)."""


async def _redis_answers(registry: Registry) -> bool:
    assert registry.cluster is not None
    try:
        return bool(await asyncio.wait_for(registry.cluster.ping(), PING_SECONDS))
    except Exception:  # noqa: BLE001 - silent or failing: not healthy
        return False


async def _schema(db: Database) -> tuple[str, ...] | None:
    """The database's schema revisions, or ``None`` when it does not answer in time."""
    try:
        return await db.run(db.schema_revisions, deadline=PING_SECONDS)
    except DatabaseUnavailable:
        return None
    except Exception:  # noqa: BLE001 - any other failure means "not healthy" too
        return None


@router.get(
    "/healthz",
    summary="Whether the server, its database and the database's schema are ready (503 if not)",
    description="503 when the database does not answer, when its schema is not at the latest "
    "Alembic migration (`schema`: false; `schema_revision` and `schema_head` say where it is "
    "and where it should be), or when Redis (if configured) does not answer.",
)
async def healthz(db: Db, registry: Registry) -> JSONResponse:
    if registry.cluster is not None:
        revisions, redis = await asyncio.gather(_schema(db), _redis_answers(registry))
    else:
        revisions, redis = await _schema(db), None
    head = latest_revisions()
    database = revisions is not None
    schema = database and set(revisions or ()) == set(head)
    body: dict[str, object] = {"database": database, "schema": schema,
                               "rooms": len(registry.rooms)}
    if database and not schema:
        body["schema_revision"] = ",".join(revisions or ()) or None
        body["schema_head"] = ",".join(head)
    writer = getattr(registry, "writer", None)
    if writer is not None:
        body["unsaved_matches"] = writer.pending_count()
    ok = schema
    if registry.cluster is not None:
        body["redis"] = redis
        body["node"] = registry.cluster.node
        ok = ok and bool(redis)
    body["status"] = "ok" if ok else "degraded"
    return JSONResponse(body, status_code=200 if ok else 503)
