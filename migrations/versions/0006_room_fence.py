"""Several processes: ``rooms.fence``, the fencing token of the process that owns the room
(docs/architecture.md, "Several processes"). A process that takes a room over raises it before it
reads the room; the journal of a process whose token is lower writes nothing more for that room.

Revision ID: 0006_room_fence
Revises: 0005_bots
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_room_fence"
down_revision = "0005_bots"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("fence", sa.BigInteger(), nullable=False,
                                     server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("fence")
