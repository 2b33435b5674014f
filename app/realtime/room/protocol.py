"""The WebSocket protocol's client messages, validated with pydantic (see docs/protocol.md);
a game's ``action`` frames first in one msgspec pass (``parse_client_frame``).

Every frame is a JSON object with a ``type``. A frame that is not JSON, is over
``MAX_FRAME_BYTES``, has an unknown type or wrong fields gets an ``error`` frame for its sender
and changes nothing.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

import msgspec
import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
)

from app import metrics
from app.engine import Game
from app.engine.actioncodec import INT_MAX, INT_MIN, ActionCodec, codec_for
from app.engine.interface import ValidAction
from app.realtime.room.text import normaliser

MAX_FRAME_BYTES = 16 * 1024
CLOSE_POLICY = 1008
"""A socket closed for breaking a limit (docs/protocol.md, "Close codes")."""
CLOSE_SERVER_RESTARTING = 1012
CLOSE_ROOM_CLOSED = 4003
CLOSE_FELL_BEHIND = 4001
"""A client that fell behind (its sends waited too long) or stopped answering the server's
pings (docs/protocol.md, "Close codes" and "Presence")."""
CLOSE_TAKEN_OVER = 4005
"""The seat was opened in another tab or device with the same seat token: the newer connection
plays, this one is closed and does not reconnect by itself (docs/decisions/0057)."""
NICKNAME_MAX = 24
CHAT_MAX = 300

Nickname = Annotated[
    str, Field(max_length=NICKNAME_MAX * 8), AfterValidator(normaliser(NICKNAME_MAX, "a nickname"))
]
"""A nickname as normalised at the door (app/realtime/room/text.py); at most ``NICKNAME_MAX``
characters once normalised."""
ChatText = Annotated[
    str, Field(max_length=CHAT_MAX * 8), AfterValidator(normaliser(CHAT_MAX, "a chat line"))
]


class _Message(BaseModel):
    """Fields are strict (docs/protocol.md, "Client to server"): a number must be a JSON number
    (``"3"`` is not 3, ``true`` is not 1, ``3.0`` is not an integer) and a flag a JSON boolean
    (``1`` and ``"yes"`` are not ``true``); unknown fields are refused."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Join(_Message):
    """Enter the room: with a seat token to come back, a nickname to join, or ``watch`` for the
    table view (the public view only)."""

    type: Literal["join"]
    nickname: Nickname | None = None
    token: str | None = Field(None, max_length=512)
    watch: bool = False


class ActionFrame(_Message):
    """An ``action`` frame as pydantic reads it: the slow path of every frame the fast decoder
    left (``parse_client_frame``), whose answer becomes an ``Action``."""

    type: Literal["action"]
    action: dict[str, Any]
    ref: int | None = Field(None, description="Echoed in an error about this action.")


class Action:
    """A move in the game, as the room gets it: ``action`` is the game's own action object
    (docs/games/), as JSON, or already validated with its frame (a ``ValidAction``: the fast
    path, docs/decisions/0031-one-strict-decode-of-an-action.md); ``ref`` is echoed in an error
    about it; ``arrived`` is when the frame was parsed on its way to the room
    (``time.perf_counter``), where the move-to-broadcast latency starts (app/metrics.py)."""

    __slots__ = ("action", "ref", "arrived")
    type = "action"

    def __init__(self, *, action: dict[str, Any] | ValidAction, ref: int | None = None,
                 type: Literal["action"] = "action") -> None:  # noqa: A002 - the frame's field
        self.action = action
        self.ref = ref
        self.arrived = time.perf_counter()

    def __repr__(self) -> str:
        return f"Action(action={self.action!r}, ref={self.ref!r})"


class Chat(_Message):
    type: Literal["chat"]
    text: ChatText


class Start(_Message):
    type: Literal["start"]


class Rematch(_Message):
    type: Literal["rematch"]


class Ping(_Message):
    """The client measures its own round trip: answered by ``pong`` with the same ``t``."""

    type: Literal["ping"]
    t: int | float = 0
    """Echoed as it came: an integer stays an integer (``3``, not ``3.0``)."""


class Pong(_Message):
    """The answer to the server's ``ping`` with its ``t``: it counts once, and only for a ping
    the server sent this connection (the server measures this client's round trip)."""

    type: Literal["pong"]
    t: int | float


class RoomOptions(_Message):
    """The room's own options, the same for every game (docs/protocol.md, "Room options")."""

    bot_takeover_seconds: int = Field(
        20, ge=0, le=600,
        description="A seated player disconnected this long during a match is played by a "
        "normal bot until they come back; 0: never.")


class SetOptions(_Message):
    """The host sets the game's ``options`` (between matches) and, optionally, the room's own
    options (``room``: ``RoomOptions``, any time)."""

    type: Literal["set_options"]
    options: dict[str, Any] | None = None
    room: RoomOptions | None = None


class AddBot(_Message):
    """The host seats a computer player (docs/bots.md, "In a room") while seats are free."""

    type: Literal["add_bot"]
    difficulty: Literal["easy", "normal", "hard"] = "normal"


class RemoveBot(_Message):
    """The host removes a computer player (``kick`` on a bot does the same)."""

    type: Literal["remove_bot"]
    member: int


class Kick(_Message):
    type: Literal["kick"]
    member: int


class MakeHost(_Message):
    type: Literal["make_host"]
    member: int


class Resync(_Message):
    """Ask for the room and the current state again (after a version gap)."""

    type: Literal["resync"]


ClientMessage = Annotated[
    Join | ActionFrame | Chat | Start | Rematch | Ping | Pong | SetOptions | Kick | MakeHost | Resync
    | AddBot | RemoveBot,
    Field(discriminator="type"),
]
_adapter: TypeAdapter[Any] = TypeAdapter(ClientMessage)


class ProtocolError(Exception):
    """A frame the protocol refuses; ``code`` goes into the ``error`` frame."""

    def __init__(self, code: str, message: str, ref: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.ref = ref
        """The refused ``action`` frame's ``ref``, echoed in the error."""


def parse_client_frame(text: str | bytes, game: Game[Any, Any] | None = None) -> Any:
    """Decode and validate one client frame, or raise ``ProtocolError``.

    With the room's ``game``, an ``action`` frame is first decoded with the game's action in one
    strict msgspec pass (docs/decisions/0031-one-strict-decode-of-an-action.md): what that
    accepts is an ``Action`` carrying a ``ValidAction``. Everything else (another type, a frame
    that pass refuses, a room whose game has no codec, a frame this node relays to the room's
    owner, which reads it again with the game) takes pydantic's path below, which gives the
    answer and the message of docs/protocol.md."""
    # A str counts in characters; the limit is in bytes (UTF-8 uses up to 4 per character).
    size = len(text.encode()) if isinstance(text, str) and len(text) * 4 > MAX_FRAME_BYTES \
        else len(text)
    if size > MAX_FRAME_BYTES:
        raise ProtocolError("too_large", f"frames are limited to {MAX_FRAME_BYTES} bytes")
    if game is not None:
        fast = _fast[game.Action] if game.Action in _fast else _fast_decoder(game.Action)
        if fast is not None:
            try:
                frame = fast[0].decode(text)
            except (msgspec.MsgspecError, ValueError):
                return _parse_slowly(text)  # refused here: pydantic's answer and message
            codec, decoded = fast[1], frame.action
            return Action(action=ValidAction(codec.model(decoded), codec.text(decoded)),
                          ref=frame.ref)
    return _parse_slowly(text)


_fast: dict[type, tuple[msgspec.json.Decoder[Any], ActionCodec] | None] = {}


def _fast_decoder(action: type[Any]) -> tuple[msgspec.json.Decoder[Any], ActionCodec] | None:
    """The decoder of an ``action`` frame carrying one of a game's actions (as ``ActionFrame``
    but its ``action`` the game's: app/engine/actioncodec.py), built once per game."""
    if action not in _fast:
        codec = codec_for(action)
        if codec is None:
            _fast[action] = None
        else:
            ref = Annotated[int, msgspec.Meta(ge=INT_MIN, le=INT_MAX)] | None
            struct = msgspec.defstruct(
                "ActionFrame", [("action", codec.union), ("ref", ref, None)],
                tag_field="type", tag="action", forbid_unknown_fields=True)
            _fast[action] = (msgspec.json.Decoder(struct), codec)
    return _fast[action]


def _parse_slowly(text: str | bytes) -> Any:
    """orjson, then pydantic's model of every client frame."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ProtocolError("bad_json", "the frame is not valid JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ProtocolError("bad_message", "a frame must be a JSON object with a string 'type'")
    try:
        message = _adapter.validate_python(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        if err["type"] == "union_tag_invalid":
            raise ProtocolError("unknown_type", f"unknown message type {data['type']!r}") from None
        # The path to the field, without the branch names of a number's ``int | float``.
        where = ".".join(str(p) for p in err["loc"][1:] if p not in ("int", "float"))
        msg = err["msg"].removeprefix("Value error, ")
        raise ProtocolError("bad_message", f"{where}: {msg}" if where else msg,
                            _action_ref(data)) from None
    if type(message) is ActionFrame:
        return Action(action=message.action, ref=message.ref)
    return message


def _action_ref(data: dict[str, Any]) -> int | None:
    """The ``ref`` of a refused ``action`` frame, when it is one the frame could carry (an
    integer): an error about an action frame carries its ``ref`` (docs/protocol.md)."""
    ref = data.get("ref")
    if data.get("type") == "action" and type(ref) is int and -2**63 <= ref < 2**64:
        return ref
    return None


def encode(frame: dict[str, Any]) -> str:
    """One server frame as JSON text."""
    return orjson.dumps(frame).decode()


def error_frame(code: str, message: str, ref: int | None = None) -> dict[str, Any]:
    """An ``error`` frame for one client (counted by code in the metrics: every error frame sent
    is built here)."""
    metrics.error_sent(code)
    frame: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        frame["ref"] = ref
    return frame
