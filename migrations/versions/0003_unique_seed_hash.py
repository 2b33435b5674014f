"""One row per match: a unique index on ``matches.seed_hash``.

A finished match waits in the outbox until the database has it; a write whose answer was lost
(a timeout after the commit, a restart before the outbox entry was deleted) is retried, and the
unique seed hash (a SHA-256 of 32 fresh random bytes per match) makes the retry find the match
that is already there instead of storing it twice (docs/architecture.md, "Persistence").

Revision ID: 0003_unique_seed_hash
Revises: 0002_log_column
Create Date: 2026-12-01
"""

from alembic import op

revision = "0003_unique_seed_hash"
down_revision = "0002_log_column"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_matches_seed_hash", "matches", ["seed_hash"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_matches_seed_hash", table_name="matches")
