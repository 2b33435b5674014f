"""A finished match records itself: ``matches.draws``, every chance step it drew (name, operation,
arguments, result, in order), and ``matches.events_digest``, the SHA-256 of its events move by
move (docs/decisions/0053-chance-is-data-recorded-with-the-match.md). Both are empty for a match
stored before: its draws come from a replay, and it has no events to compare.

Revision ID: 0008_chance_steps
Revises: 0007_endings_and_standings
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_chance_steps"
down_revision = "0007_endings_and_standings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("draws", sa.JSON(), nullable=True))
    op.add_column("matches", sa.Column("events_digest", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("events_digest")
        batch.drop_column("draws")
