"""The tables of finished matches. Their schema changes only through Alembic migrations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Integer, String, Text
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
    log: Mapped[list[Any]] = mapped_column(JSON)
    """The action log, in the order the room applied it: ``[{"seat", "action", "at_ms",
    "rtt_ms"}, ...]``. One value per match: it is always written and read whole (a replay needs
    all of it), and one value costs one write instead of one row per move."""

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
