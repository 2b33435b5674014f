"""Computer players: ``match_players.bot`` in match records (the bot's difficulty or NULL; the
leaderboard leaves bot seats out by default, docs/bots.md, "In a room"), and in durable rooms
``room_members.bot`` and the room's own options ``rooms.room_options`` (the bot takeover delay),
so that a restored room keeps its bots and its options.

Revision ID: 0005_bots
Revises: 0004_durable_rooms
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_bots"
down_revision = "0004_durable_rooms"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("match_players", sa.Column("bot", sa.String(8), nullable=True))
    op.add_column("room_members", sa.Column("bot", sa.String(8), nullable=True))
    op.add_column("rooms", sa.Column("room_options", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("room_options")
    with op.batch_alter_table("room_members") as batch:
        batch.drop_column("bot")
    with op.batch_alter_table("match_players") as batch:
        batch.drop_column("bot")
