"""The HTML pages: lobby, room, table view, matches, leaderboard, rules, the language switch.

A missing match, game or page answers with the site's error page (app/api/site.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)

from app.bots import bot_levels, level_text_key
from app.config import PROJECT_ROOT
from app.db import matches as store
from app.engine import all_games, get_game, get_package, seed_commitment
from app.i18n import COOKIE, LANGUAGES, catalog, catalog_version, translate
from app.web.serving import IMMUTABLE, REVALIDATE

from .deps import Answers, Db, Registry, Templates
from .finished.builds import PAGE_MOVES
from .finished.story import duration_text, move_line, summary_text
from .game_files import game_urls, rules_template
from .games import describe
from .rooms import count_miss, refuse_if_throttled
from .site import error_page, request_language
from .urls import public_base_url, public_url_for

router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
async def lobby(request: Request, templates: Templates, registry: Registry) -> HTMLResponse:
    games = [{**describe(g), "urls": game_urls(request, g.id)} for g in all_games()]
    return templates.TemplateResponse(
        request, "lobby.html",
        {"games": games, "rooms": await registry.public_rooms()},
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
    code = code.upper()
    return templates.TemplateResponse(request, "room.html", {
        "code": code, "game": describe(game), "table": table,
        # The add-bot menu: the levels of the game's computer players, each with what its game
        # says it means, its speed or its skill (docs/decisions/0059).
        "bot_levels": [{"id": level, "about": level_text_key(game.id, level)}
                       for level in bot_levels(game.id)],
        "urls": game_urls(request, game.id),  # its page module and style (app/api/game_files.py)
        "host": summary.get("host"),  # the invite link's preview names the host
        # The join page says who is in and whether a match runs (docs/decisions/0056).
        "members": summary.get("members", []), "status": summary.get("status"),
        # Links for other devices: at the public address (app/api/urls.py).
        "join_url": public_url_for(request, "room_page", code=code),
        "table_url": public_url_for(request, "table_page", code=code),
    })


@router.get("/matches", response_class=HTMLResponse)
async def matches_page(request: Request, templates: Templates, db: Db) -> HTMLResponse:
    matches = await db.run(store.list_matches, db, limit=100)
    titles = {g.id: g.title for g in all_games()}
    lang = request_language(request)
    for match in matches:  # each card says how its match ended, in the reader's words (0058)
        match["sentence"] = summary_text(match, lang)
    return templates.TemplateResponse(
        request, "matches.html", {"matches": matches, "titles": titles}
    )


@router.get("/matches/{match_id}", response_class=HTMLResponse)
async def match_page(match_id: int, request: Request, templates: Templates, db: Db,
                     answers: Answers, move: str | None = None,
                     page: str | None = None) -> Response:
    """The match as people read it: its board move by move (static/js/replay.js, from
    ``/api/matches/{id}/replay``), opened at ``?move=N`` (else at the first move of ``?page=K``,
    else at the end), standings, when and how long, the moves in plain words (``PAGE_MOVES`` of
    them: the page of the move the board opens at, or ``?page=K``), the seed with its hash and
    how to check them. The title and Open Graph tags name the game and the move, so a shared
    link previews it. The story is built once per match and language, off the event loop
    (app/api/finished/answers.py); a request renders one page of it."""
    lang = request_language(request)
    told = await answers.story(db, match_id, lang) if store.valid_match_id(match_id) else None
    if told is None:
        return _not_found(request, lang, "error.no_match", id=match_id)
    match, total = told.match, told.moves
    game = get_game(match["game"])
    title = game.title if game else match["game"]
    pages = max(1, -(-total // PAGE_MOVES))
    chosen = _page_number(page, pages)
    at = _move_number(move, total) if move is not None or chosen is None else min(
        (chosen - 1) * PAGE_MOVES + 1, total)
    shown = chosen or max(1, -(-at // PAGE_MOVES))
    first = (shown - 1) * PAGE_MOVES
    base = public_base_url(request)
    heading = translate(lang, "match.heading", id=match["id"])
    where = translate(lang, "replay.move_of", n=at, total=total)
    summary = summary_text(match, lang)
    lasted = duration_text(lang, _seconds_between(match["started_at"], match["ended_at"]))
    async with answers.page_turn():
        return templates.TemplateResponse(request, "match.html", {
            "match": match,
            "title": title,
            "known": game is not None,
            "marks": game.replay_marks if game is not None else (),
            "urls": game_urls(request, match["game"]) if game is not None else {},
            "names": {p["seat"]: p["nickname"] for p in match["players"]},
            "page_title": f"{title} · {heading} · {where}",
            "summary": summary,
            "move": at,
            "moves": total,
            "move_text": move_line(lang, told.line(at)) if at < total or not summary else summary,
            "share_url": f"{base}/matches/{match['id']}?move={at}",
            "moves_html": told.html(shown),
            "page": shown,
            "pages": pages,
            "first_move": first + 1,
            "last_move": min(first + PAGE_MOVES, total),
            "duration": lasted,
            "seed_ok": _seed_matches(match),
            "api_url": f"{base}/api/matches/{match['id']}",
            "verifier_url": f"{base}/static/verify_match.py",
        })


def _page_number(text: str | None, last: int) -> int | None:
    """``?page=K`` as a page of the move list: ASCII digits, 1 to ``last`` (a larger number is
    the last page); anything else (or nothing) is ``None``."""
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 9:
        return None
    return max(1, min(int(text), last))


def _move_number(text: str | None, total: int) -> int:
    """``?move=N`` as a move of the match: ASCII digits, at most ``total`` (a larger number is
    the end); anything else (or nothing) is the end, where the page opens by default."""
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 9:
        return total
    return min(int(text), total)


def _seconds_between(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def _seed_matches(match: dict[str, Any]) -> bool:
    try:
        return seed_commitment(bytes.fromhex(match["seed"])) == match["seed_hash"]
    except ValueError:
        return False


def _not_found(request: Request, lang: str, key: str, **params: Any) -> Response:
    return error_page(
        request, 404, translate(lang, f"{key}.title", **params), translate(lang, f"{key}.text")
    )


@router.get("/leaderboard", response_class=HTMLResponse)
async def leaderboard_page(
    request: Request, templates: Templates, db: Db, game: str | None = None, bots: bool = False
) -> HTMLResponse:
    games = [g for g in all_games() if not g.open_table]
    chosen = get_game(game) if game else (games[0] if games else None)
    rows = await db.run(store.leaderboard, db, game=chosen.id, bots=bots) if chosen else []
    return templates.TemplateResponse(
        request, "leaderboard.html",
        {"games": games, "chosen": chosen, "rows": rows, "bots": bots}
    )


@router.get("/games/{game_id}/rules", response_class=HTMLResponse, name="rules_page")
def rules_page(game_id: str, request: Request, templates: Templates) -> Response:
    package = get_package(game_id)
    if package is None or package.folder is None:
        return _not_found(request, request_language(request), "error.no_game", id=game_id)
    game = package.game
    # A game may give its rules page data to render (a board and its tables, say), so the page
    # shows the engine's own data rather than a copy of it.
    data = game.rules_data()
    # The rules in the reader's language where the game has them (its rules/<lang>.html), else
    # a summary in that language above the full rules in English (docs/architecture.md,
    # "Languages"); the frame (templates/rules/frame.html) links the game's stylesheet.
    name, rules_lang = rules_template(package, request_language(request))
    return templates.TemplateResponse(request, name, {
        "game": describe(game), "data": data, "rules_lang": rules_lang,
        "game_style": game_urls(request, game.id)["style"],
    })


@router.get("/lang/{lang}", name="choose_language")
def choose_language(lang: str, request: Request, next: str = "/") -> Response:
    """The header's language switch: remembered in a cookie for a year, then back to the page.
    ``next`` must be a path on this site (never another host)."""
    if lang not in LANGUAGES:
        return _not_found(request, request_language(request), "error.not_found")
    local = next.startswith("/") and not next.startswith("//") and "\\" not in next
    target = next if local else "/"
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(COOKIE, lang, max_age=365 * 24 * 3600, samesite="lax", path="/")
    return response


@router.get("/i18n/{lang}.json", name="i18n_catalog")
def i18n_catalog(lang: str, request: Request) -> Response:
    """A language's catalog for static/js/i18n.js (the templates' texts, the same file): a
    year's immutable cache at the versioned URL the pages name, revalidated at any other."""
    if lang not in LANGUAGES:
        return _not_found(request, request_language(request), "error.not_found")
    # At its versioned URL (``?v=`` the catalog's hash, as the pages name it) it never changes.
    current = request.query_params.get("v") == catalog_version(lang)
    return JSONResponse(catalog(lang), headers={"Cache-Control": IMMUTABLE if current else REVALIDATE})


@router.get("/docs/fairness.md", response_class=PlainTextResponse)
def fairness_doc(request: Request) -> Response:
    """docs/fairness.md (how a match's chance can be checked), as plain text."""
    path = PROJECT_ROOT / "docs" / "fairness.md"
    if not path.is_file():
        return _not_found(request, request_language(request), "error.not_found")
    return PlainTextResponse(path.read_text(encoding="utf-8"))
