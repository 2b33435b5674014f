"""Outcomes name their ending: ``matches.ending`` (a value of the game's ``Ending``) and
``matches.details`` (the numbers its sentence names), so the pages build a match's sentence in
the reader's language (docs/decisions/0058). Rows stored before stay NULL there and keep their
English ``summary``. And the evening's standings: ``rooms.standings``, the wins and points of
each member of an open room over its finished matches, so they survive a restart
(docs/decisions/0061).

Revision ID: 0007_endings_and_standings
Revises: 0006_room_fence
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_endings_and_standings"
down_revision = "0006_room_fence"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("ending", sa.String(32), nullable=True))
    op.add_column("matches", sa.Column("details", sa.JSON(), nullable=True))
    op.add_column("rooms", sa.Column("standings", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("standings")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("details")
        batch.drop_column("ending")
