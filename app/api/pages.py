"""The HTML pages: lobby, room, table view, matches, leaderboard, rules."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from app.db import matches as store
from app.engine import all_games, get_game
from app.games import UPCOMING

from .deps import Db, Registry, Templates
from .rooms import count_miss, refuse_if_throttled
from .games import describe

router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
async def lobby(request: Request, templates: Templates, registry: Registry) -> HTMLResponse:
    games = [describe(g) for g in all_games()]
    return templates.TemplateResponse(
        request, "lobby.html",
        {"games": games, "upcoming": UPCOMING, "rooms": await registry.public_rooms()},
    )


@router.get("/r/{code}", response_class=HTMLResponse, name="room_page")
async def room_page(
    code: str, request: Request, templates: Templates, registry: Registry
) -> HTMLResponse:
    return await _room(code, request, templates, registry, table=False)


@router.get("/r/{code}/table", response_class=HTMLResponse, name="table_page")
async def table_page(
    code: str, request: Request, templates: Templates, registry: Registry
) -> HTMLResponse:
    return await _room(code, request, templates, registry, table=True)


async def _room(
    code: str, request: Request, templates: Templates, registry: Registry, *, table: bool
) -> HTMLResponse:
    refuse_if_throttled(request)
    summary = await registry.lookup(code)
    game = get_game(summary["game"]) if summary else None
    if summary is None or game is None:
        count_miss(request)
        return templates.TemplateResponse(
            request, "missing_room.html", {"code": code.upper()}, status_code=404
        )
    return templates.TemplateResponse(
        request, "room.html", {"code": code.upper(), "game": describe(game), "table": table}
    )


@router.get("/matches", response_class=HTMLResponse)
async def matches_page(request: Request, templates: Templates, db: Db) -> HTMLResponse:
    matches = await asyncio.to_thread(store.list_matches, db, limit=100)
    titles = {g.id: g.title for g in all_games()}
    return templates.TemplateResponse(
        request, "matches.html", {"matches": matches, "titles": titles}
    )


@router.get("/matches/{match_id}", response_class=HTMLResponse)
async def match_page(match_id: int, request: Request, templates: Templates, db: Db) -> HTMLResponse:
    match = await asyncio.to_thread(store.get_match, db, match_id=match_id)
    if match is None:
        raise HTTPException(404, f"no match {match_id}")
    game = get_game(match["game"])
    return templates.TemplateResponse(
        request, "match.html", {"match": match, "title": game.title if game else match["game"]}
    )


@router.get("/leaderboard", response_class=HTMLResponse)
async def leaderboard_page(
    request: Request, templates: Templates, db: Db, game: str | None = None
) -> HTMLResponse:
    games = [g for g in all_games() if not g.open_table]
    chosen = get_game(game) if game else (games[0] if games else None)
    rows = await asyncio.to_thread(store.leaderboard, db, game=chosen.id) if chosen else []
    return templates.TemplateResponse(
        request, "leaderboard.html", {"games": games, "chosen": chosen, "rows": rows}
    )


@router.get("/games/{game_id}/rules", response_class=HTMLResponse, name="rules_page")
def rules_page(game_id: str, request: Request, templates: Templates) -> HTMLResponse:
    game = get_game(game_id)
    if game is None:
        raise HTTPException(404, f"no game {game_id!r}")
    return templates.TemplateResponse(request, f"rules/{game.id}.html", {"game": describe(game)})
