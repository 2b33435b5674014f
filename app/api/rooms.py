"""Rooms over HTTP: create one (at most 30 a minute per address), list the public ones waiting
with a person in them, look one up, its QR code."""

from __future__ import annotations

import io
from typing import Any

import segno
from fastapi import APIRouter, Header, HTTPException, Request, Response
from limits import RateLimitItemPerMinute
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter as SharedRateLimiter
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from pydantic import BaseModel, ConfigDict, Field

from app.engine import EngineError, get_game
from app.realtime.cluster.relay import Cluster
from app.realtime.registry import RoomLimitReached
from app.realtime.room.protocol import Nickname
from app.realtime.transport.guard import SocketGuard, client_address

from .create_once import CreateOnce, checked_key
from .deps import Registry
from .urls import follows_host, public_url_for

router = APIRouter(prefix="/api/rooms", tags=["rooms"])

_create_limit = RateLimitItemPerMinute(30)
"""Rooms one client address may make in a minute, a moving window (bench/serve.py lifts it)."""


class CreationLimit:
    """How many rooms each client address may make (``_create_limit``). Without Redis one count
    per application. With ``REDIS_URL``, one count for every process of the site, kept in Redis
    under ``REDIS_PREFIX`` (``{prefix}:limits:...``, the rate-limit library's Redis storage on
    the site's own connection pool): N processes allow 30 a minute, not N x 30. While Redis
    does not answer, the count cannot be kept and creating a room answers 503 with
    ``Retry-After: 5``, as the lobby does (``redis_unavailable``, app/main.py; creating a room
    needs Redis for its lease anyway): docs/decisions/0044."""

    def __init__(self, cluster: Cluster | None) -> None:
        self._local = MovingWindowRateLimiter(MemoryStorage()) if cluster is None else None
        self._shared = None if cluster is None else SharedRateLimiter(RedisStorage(
            "async+redis://", implementation="redispy", key_prefix=f"{cluster.prefix}:limits",
            # Passed on to the client as given (the library types its options narrower).
            connection_pool=cluster.redis.connection_pool))  # type: ignore[arg-type]

    async def admit(self, address: str) -> bool:
        """One room made by ``address``: False when it has made its allowance this minute."""
        if self._shared is not None:
            return await self._shared.hit(_create_limit, "create-room", address)
        assert self._local is not None
        return self._local.hit(_create_limit, "create-room", address)


def _limiter(request: Request) -> CreationLimit:
    """The room-creation limit of this application (each app counts its own clients, or, with
    a cluster, those of every app sharing its Redis prefix)."""
    state = request.app.state
    if not hasattr(state, "room_create_limiter"):
        state.room_create_limiter = CreationLimit(state.registry.cluster)
    return state.room_create_limiter


def _once(request: Request) -> CreateOnce:
    """The answers to each ``Idempotency-Key`` of this application (with a cluster, of every
    app sharing its Redis prefix)."""
    state = request.app.state
    if not hasattr(state, "room_create_once"):
        state.room_create_once = CreateOnce(state.registry.cluster)
    return state.room_create_once


def _guard(request: Request) -> SocketGuard:
    return request.app.state.guard


def refuse_if_throttled(request: Request) -> None:
    """HTTP 429 while this client address has spent its room probes (docs/protocol.md,
    "Limits": unknown codes and failed joins per address)."""
    if _guard(request).probes.blocked(client_address(request.client)):
        raise HTTPException(429, "too many attempts; wait a moment",
                            headers={"Retry-After": "60"})


def count_miss(request: Request) -> None:
    """This client looked up a room that does not exist: one probe spent."""
    _guard(request).probes.miss(client_address(request.client))


class CreateRoom(BaseModel):
    """Strict, as the WebSocket frames are (docs/protocol.md): ``public`` is a JSON boolean
    (``"yes"`` and ``1`` are refused), and a field the body does not have is refused (422)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    game: str = Field(description="A game id from /api/games.")
    nickname: Nickname
    public: bool = Field(False, description="Listed in the lobby while it waits for players "
                         "(only when the host chooses: docs/decisions/0056).")
    options: dict[str, Any] | None = None


class RoomCreated(BaseModel):
    code: str
    member: int
    token: str = Field(description="The host's seat token: send it in the first 'join' frame.")
    room_url: str
    join_url: str


def room_url(request: Request, code: str) -> str:
    """The room's join link at the public address (app/api/urls.py)."""
    return public_url_for(request, "room_page", code=code)


@router.post("", status_code=201, summary="Create a room; the creator is its host")
async def create_room(
    body: CreateRoom, request: Request, registry: Registry,
    idempotency_key: str | None = Header(None, description=(
        "Made once per create form: the same key from the same client within a minute "
        "answers the same room (docs/decisions/0057).")),
) -> RoomCreated:
    key = checked_key(idempotency_key)
    address = client_address(request.client)

    async def create() -> dict[str, Any]:
        return (await _create(body, request, registry, address)).model_dump()

    return RoomCreated(**await _once(request).answer(address, key, create))


async def _create(body: CreateRoom, request: Request, registry: Registry,
                  address: str) -> RoomCreated:
    if not await _limiter(request).admit(address):
        raise HTTPException(429, "too many rooms created; wait a minute")
    game = get_game(body.game)
    if game is None:
        raise HTTPException(404, f"no game {body.game!r}")
    try:
        room, host, token = await registry.create(
            game=game, public=body.public, host_nickname=body.nickname, options=body.options
        )
    except EngineError as exc:
        raise HTTPException(422, str(exc)) from exc
    except RoomLimitReached as exc:
        raise HTTPException(503, "the server holds as many rooms as it can; try later") from exc
    url = room_url(request, room.state.code)
    return RoomCreated(code=room.state.code, member=host.id, token=token, room_url=url, join_url=url)


@router.get("", summary="Public rooms waiting for players, with a person in them")
async def public_rooms(registry: Registry) -> list[dict[str, Any]]:
    """A room made and never opened, or left by everyone, is not listed (docs/decisions/0044)."""
    return await registry.public_rooms()


@router.get("/{code}", summary="A room's public summary")
async def room_summary(code: str, request: Request, registry: Registry) -> dict[str, Any]:
    """The room frame (without ``type``) when the room lives in this process; with several
    processes, a room elsewhere answers with its directory summary."""
    refuse_if_throttled(request)
    room = registry.get(code)
    if room is not None and not room.state.closed:
        frame = room.room_frame()
        frame.pop("type")
        return frame
    summary = await registry.lookup(code)
    if summary is None:
        count_miss(request)
        raise HTTPException(404, f"no room {code!r}")
    return summary


@router.get("/{code}/qr.svg", summary="A QR code of the room's join link", response_class=Response)
async def room_qr(code: str, request: Request, registry: Registry) -> Response:
    refuse_if_throttled(request)
    if await registry.lookup(code) is None:
        count_miss(request)
        raise HTTPException(404, f"no room {code!r}")
    qr = segno.make(room_url(request, code.upper()), error="m")
    buffer = io.BytesIO()
    qr.save(buffer, kind="svg", scale=6, border=2, dark="#1b1230", light="#ffffff", xmldecl=False)
    # The code's link is at PUBLIC_URL, or (without it) follows the request's address: then
    # only the browser may keep it, per Host (a shared cache would hand one address's link to
    # a page opened at another).
    headers = {"Cache-Control": "private, max-age=3600", "Vary": "Host"} \
        if follows_host(request) else {"Cache-Control": "public, max-age=3600"}
    return Response(buffer.getvalue(), media_type="image/svg+xml", headers=headers)
