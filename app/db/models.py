"""The tables of finished matches. Their schema changes only through Alembic migrations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, JSON, Boolean, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class Match(Base):
    """One finished match: what was played, with which seed, and how it ended."""

    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(32), index=True)
    room_code: Mapped[str] = mapped_column(String(8))
    options: Mapped[dict[str, Any]]
    seed: Mapped[str] = mapped_column(String(128))
    seed_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    """Unique: the key that makes saving a match idempotent (migration 0003)."""
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    summary: Mapped[str] = mapped_column(Text, default="")
    """The engine's English sentence of a match stored before endings were named; empty since
    (docs/decisions/0058: the pages build the sentence from ``ending`` in the reader's words)."""
    ending: Mapped[str | None] = mapped_column(String(32), nullable=True, default=None)
    """What ended the match, a value of its game's ``Ending`` (migration 0007); NULL for a
    match stored before endings were named."""
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True, default=None)
    """The numbers the ending's sentence names (``Outcome.details``); NULL with ``ending``."""
    log: Mapped[list[Any]] = mapped_column(JSON)
    """The action log, in the order the room applied it: ``[{"seat", "action", "at_ms",
    "rtt_ms"}, ...]``. One value per match: it is always written and read whole (a replay needs
    all of it), and one value costs one write instead of one row per move."""
    draws: Mapped[list[Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    """Every chance step the match drew, in order: ``[{"name", "op", "args", "result"}, ...]``
    (docs/fairness.md); ``None`` for a match stored before they were recorded (migration 0007)."""
    events_digest: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The SHA-256 of the match's events (``app.engine.chance.EventDigest``); ``None`` before
    migration 0007."""

    players: Mapped[list[MatchPlayer]] = relationship(
        back_populates="match", order_by="MatchPlayer.seat", cascade="all, delete-orphan"
    )


class MatchPlayer(Base):
    """A seat of a finished match, with its result."""

    __tablename__ = "match_players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    nickname: Mapped[str] = mapped_column(String(32), index=True)
    score: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
    winner: Mapped[bool] = mapped_column(Boolean)
    bot: Mapped[str | None] = mapped_column(String(8), nullable=True, default=None)
    """A computer player's difficulty (easy, normal, hard); NULL for a person (migration 0004)."""

    match: Mapped[Match] = relationship(back_populates="players")


# --- Durable rooms (docs/architecture.md, "Durable rooms") -----------------------------------
# A room open in a process, written as it changes so that a restarted process rebuilds it: the
# room and its members (rare changes, each written whole), the running match (seed, players,
# options) and every accepted move of it (the hot path, written in batches by the journal,
# app/realtime/durable/journal.py). Finished matches live in ``matches`` above; these rows go when the
# room closes.


class RoomRow(Base):
    """An open room: what ``Room`` needs besides its members and its match."""

    __tablename__ = "rooms"

    code: Mapped[str] = mapped_column(String(8), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]]
    host: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The host's member id."""
    public: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16))
    match_number: Mapped[int] = mapped_column(Integer)
    next_member: Mapped[int] = mapped_column(Integer)
    """The id the next member will get (ids are never reused in a room: tokens name them)."""
    banned: Mapped[dict[str, Any]]
    """``{"nonces": [...], "names": [...]}``: the seat tokens and nicknames the host removed."""
    room_options: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The room's own options (``bot_takeover_seconds``); NULL: the defaults."""
    fence: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    """Several processes: the fencing token of the room's owner (migration 0006); a process
    writes the room only while its own token is not lower."""
    standings: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The evening's standings: wins and points per member over the room's finished matches
    (migration 0007; app/realtime/room/members.py, ``Standings``); NULL before the first."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class RoomMemberRow(Base):
    """A member of an open room (a player or a spectator)."""

    __tablename__ = "room_members"

    room_code: Mapped[str] = mapped_column(
        ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True)
    member_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    nickname: Mapped[str] = mapped_column(String(32))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    player: Mapped[bool] = mapped_column(Boolean)
    nonce: Mapped[str] = mapped_column(String(32))
    """The nonce the member's seat token carries (app/realtime/room/tokens.py)."""
    bot: Mapped[str | None] = mapped_column(String(8), nullable=True)
    """A computer player's difficulty; NULL for a person."""


class RoomMatchRow(Base):
    """The current match of an open room (running, or finished and waiting for a rematch)."""

    __tablename__ = "room_matches"

    room_code: Mapped[str] = mapped_column(
        ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True)
    match_number: Mapped[int] = mapped_column(Integer)
    seed: Mapped[str] = mapped_column(String(128))
    """Hex; secret until the match ends, like every seed (docs/fairness.md)."""
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]]
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    """Wall time of the start: the match clock (``at_ms``) continues from it after a restart."""


class RoomMoveRow(Base):
    """One accepted move of a room's current match, system moves included."""

    __tablename__ = "room_moves"

    room_code: Mapped[str] = mapped_column(
        ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    """1 for the match's first move; equals the ``version`` of the state frame it caused."""
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    action: Mapped[dict[str, Any]]
    at_ms: Mapped[int] = mapped_column(Integer)
    rtt_ms: Mapped[int] = mapped_column(Integer)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
