"""Computer players in match records: ``match_players.bot``, the bot's difficulty or NULL.

The leaderboard leaves bot seats out by default (docs/bots.md, "In a room").

Revision ID: 0004_bot_players
Revises: 0003_unique_seed_hash
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_bot_players"
down_revision = "0003_unique_seed_hash"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("match_players", sa.Column("bot", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_players") as batch:
        batch.drop_column("bot")
