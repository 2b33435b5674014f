"""Finished matches, their players and their action log.

Revision ID: 0001_matches
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0001_matches"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("room_code", sa.String(8), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("seed_hash", sa.String(64), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
    )
    op.create_index("ix_matches_game", "matches", ["game"])
    op.create_index("ix_matches_ended_at", "matches", ["ended_at"])
    op.create_table(
        "match_players",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "match_id", sa.Integer(), sa.ForeignKey("matches.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("nickname", sa.String(32), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("winner", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_match_players_match_id", "match_players", ["match_id"])
    op.create_index("ix_match_players_nickname", "match_players", ["nickname"])
    op.create_table(
        "match_actions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "match_id", sa.Integer(), sa.ForeignKey("matches.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("at_ms", sa.Integer(), nullable=False),
        sa.Column("rtt_ms", sa.Integer(), nullable=False),
    )
    op.create_index("ix_match_actions_match_id", "match_actions", ["match_id"])


def downgrade() -> None:
    op.drop_table("match_actions")
    op.drop_table("match_players")
    op.drop_table("matches")
