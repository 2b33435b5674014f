"""Durable rooms: open rooms, their members, their current match and its moves.

A restarted process rebuilds its unfinished rooms from these rows (docs/architecture.md,
"Durable rooms"): the room and its members as they last changed, the match from its seed and
options, replayed move by move.

Revision ID: 0004_durable_rooms
Revises: 0003_unique_seed_hash
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_durable_rooms"
down_revision = "0003_unique_seed_hash"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(8), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("host", sa.Integer(), nullable=True),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("match_number", sa.Integer(), nullable=False),
        sa.Column("next_member", sa.Integer(), nullable=False),
        sa.Column("banned", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rooms_updated_at", "rooms", ["updated_at"])
    op.create_table(
        "room_members",
        sa.Column("room_code", sa.String(8),
                  sa.ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True),
        sa.Column("member_id", sa.Integer(), primary_key=True),
        sa.Column("nickname", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("player", sa.Boolean(), nullable=False),
        sa.Column("nonce", sa.String(32), nullable=False),
    )
    op.create_table(
        "room_matches",
        sa.Column("room_code", sa.String(8),
                  sa.ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True),
        sa.Column("match_number", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "room_moves",
        sa.Column("room_code", sa.String(8),
                  sa.ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("at_ms", sa.Integer(), nullable=False),
        sa.Column("rtt_ms", sa.Integer(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("room_moves")
    op.drop_table("room_matches")
    op.drop_table("room_members")
    op.drop_index("ix_rooms_updated_at", table_name="rooms")
    op.drop_table("rooms")
