"""Issue 43, items 5 and 7: texts sent, counted per number, per game and in all over short
windows (``text_counts``: the SMS channel's budgets), and a player's PIN for calls whose
caller ID is not attested (``members.pin_hash``: only its hash, never the PIN).

Revision ID: r0005
Revises: r0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0005"
down_revision = "r0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "text_counts",
        sa.Column("scope", sa.Text, nullable=False),  # "n:<number>", "g:<game>", "all", notices
        sa.Column("slot", sa.BigInteger, nullable=False),  # the window: whole minutes or hours
        sa.Column("n", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("scope", "slot"),
    )
    op.add_column("members", sa.Column("pin_hash", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("members") as batch:
        batch.drop_column("pin_hash")
    op.drop_table("text_counts")
