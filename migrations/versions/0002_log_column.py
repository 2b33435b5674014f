"""A match's action log as one JSON value on the match, instead of one row per move.

The log is always written and read whole (a replay needs all of it); one value per match costs
one write where a row per move cost thousands. Existing logs are carried over in both directions.

Revision ID: 0002_log_column
Revises: 0001_matches
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_log_column"
down_revision = "0001_matches"
branch_labels = None
depends_on = None

matches = sa.table("matches", sa.column("id", sa.Integer()), sa.column("log", sa.JSON()))
actions = sa.table(
    "match_actions",
    sa.column("match_id", sa.Integer()),
    sa.column("index", sa.Integer()),
    sa.column("seat", sa.Integer()),
    sa.column("action", sa.JSON()),
    sa.column("at_ms", sa.Integer()),
    sa.column("rtt_ms", sa.Integer()),
)


def upgrade() -> None:
    op.add_column("matches", sa.Column("log", sa.JSON(), nullable=True))
    bind = op.get_bind()
    logs: dict[int, list[dict]] = {}
    rows = bind.execute(
        sa.select(actions).order_by(actions.c.match_id, actions.c["index"])
    ).mappings()
    for row in rows:
        logs.setdefault(row["match_id"], []).append(
            {"seat": row["seat"], "action": row["action"], "at_ms": row["at_ms"],
             "rtt_ms": row["rtt_ms"]}
        )
    for match_id in bind.execute(sa.select(matches.c.id)).scalars().all():
        bind.execute(
            matches.update().where(matches.c.id == match_id).values(log=logs.get(match_id, []))
        )
    with op.batch_alter_table("matches") as batch:
        batch.alter_column("log", existing_type=sa.JSON(), nullable=False)
    op.drop_index("ix_match_actions_match_id", table_name="match_actions")
    op.drop_table("match_actions")


def downgrade() -> None:
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
    bind = op.get_bind()
    for match_id, log in bind.execute(sa.select(matches.c.id, matches.c.log)).all():
        rows = [
            {"match_id": match_id, "index": i, "seat": m["seat"], "action": m["action"],
             "at_ms": m["at_ms"], "rtt_ms": m["rtt_ms"]}
            for i, m in enumerate(log or [])
        ]
        if rows:
            bind.execute(actions.insert(), rows)
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("log")
