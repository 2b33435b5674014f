"""Finished matches and the leaderboard as JSON."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException, Query

from app.db import matches as store

from .deps import Db

router = APIRouter(prefix="/api", tags=["matches"])


@router.get("/matches", summary="Recent finished matches, newest first")
async def recent_matches(
    db: Db, game: str | None = None, limit: int = Query(50, ge=1, le=200)
) -> list[dict[str, Any]]:
    return await asyncio.to_thread(store.list_matches, db, limit=limit, game=game)


@router.get("/matches/{match_id}", summary="One match with its seed and action log")
async def one_match(match_id: int, db: Db) -> dict[str, Any]:
    match = await asyncio.to_thread(store.get_match, db, match_id=match_id)
    if match is None:
        raise HTTPException(404, f"no match {match_id}")
    return match


@router.get("/leaderboard", summary="Nicknames ranked by wins in one game")
async def leaderboard(
    db: Db, game: str = Query(description="A game id"), limit: int = Query(50, ge=1, le=200)
) -> list[dict[str, Any]]:
    return await asyncio.to_thread(store.leaderboard, db, game=game, limit=limit)
