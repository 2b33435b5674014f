"""Finished matches and the leaderboard as JSON.

Inputs are checked before they reach the database: a game id must look like
one (else 422), an id outside the ``id`` column is no match (404). Every read runs through
``Database.run``, within the database's deadline; a database that is down or silent answers 503
(``app/main.py``), never a hang. The answers about one match are built once, off the event
loop, and kept (app/api/finished/answers.py).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse, Response

from app.db import matches as store

from .deps import Answers, Db
from .finished.replay import EVERYTHING, Unreplayable

router = APIRouter(prefix="/api", tags=["matches"])


def parse_match_id(text: str) -> int | None:
    """A match id from a path: ASCII digits only (no sign, space or other script's digits), else
    ``None``; an id that is not a positive 32-bit integer is no match (404, not 422:
    docs/protocol.md, "HTTP API"; ``get_match`` checks the range)."""
    if not text.isascii() or not text.isdigit() or len(text) > 20:
        return None
    return int(text)


GameId = Annotated[str, Query(description="A game id", pattern=f"^{store.GAME_ID.pattern}$",
                              max_length=32)]


@router.get("/matches", summary="Recent finished matches, newest first")
async def recent_matches(
    db: Db, game: GameId | None = None, limit: int = Query(50, ge=1, le=200)
) -> list[dict[str, Any]]:
    return await db.run(store.list_matches, db, limit=limit, game=game)


@router.get(
    "/matches/{match_id}",
    summary="One match with its seed, action log, every chance step it drew and its events' digest",
    description="`draws` lists every chance step the match drew from its seeded generator, in "
    "order, as recorded when it was played (`{name, op, args, result}`); `events_digest` is the "
    "SHA-256 of its events (docs/fairness.md). `static/verify_match.py` re-derives the draws "
    "from the revealed seed; `python3 -m app verify` replays the whole match through its rules.",
    response_class=JSONResponse,
)
async def one_match(match_id: str, request: Request, db: Db, answers: Answers) -> Response:
    """Built once per match, off the event loop, and kept (app/api/finished/answers.py)."""
    number = parse_match_id(match_id)
    packed = None
    if number is not None and store.valid_match_id(number):
        packed = await answers.match_json(db, number)
    if packed is None:
        raise HTTPException(404, f"no match {match_id}")
    return await answers.response(request, packed)


@router.get(
    "/matches/{match_id}/replay",
    summary="One match move by move: the board's view after the set-up and after each move",
    description="`eyes`: `all` (default) for the view with every secret shown, or a seat number "
    "for what that seat saw. 409 when the match cannot be replayed by today's rules "
    "(docs/protocol.md, \"Watching a match again\").",
    response_class=JSONResponse,
)
async def match_replay(
    match_id: str, request: Request, db: Db, answers: Answers,
    eyes: str = Query(EVERYTHING, max_length=8, description="`all` or a seat number"),
) -> Response:
    number = parse_match_id(match_id)
    if number is None or not store.valid_match_id(number):
        raise HTTPException(404, f"no match {match_id}")
    if eyes != EVERYTHING and not (eyes.isascii() and eyes.isdigit() and len(eyes) <= 3):
        raise HTTPException(422, "eyes: must be 'all' or a seat number")
    seat = None if eyes == EVERYTHING else int(eyes)

    def check(match: dict[str, Any]) -> None:
        if seat is not None and seat >= len(match["players"]):
            raise HTTPException(422, f"eyes: match {number} has seats 0 to "
                                     f"{len(match['players']) - 1}")

    try:
        packed = await answers.replay(db, number, seat, check)
    except Unreplayable as refused:
        return JSONResponse({"detail": refused.reason, "code": refused.code}, status_code=409)
    if packed is None:
        raise HTTPException(404, f"no match {match_id}")
    return await answers.response(request, packed, {"Cache-Control": "public, max-age=300"})


@router.get("/leaderboard", summary="Nicknames ranked by wins in one game")
async def leaderboard(
    db: Db, game: GameId, limit: int = Query(50, ge=1, le=200),
    bots: bool = Query(False, description="Include computer players (left out by default)."),
) -> list[dict[str, Any]]:
    return await db.run(store.leaderboard, db, game=game, limit=limit, bots=bots)
