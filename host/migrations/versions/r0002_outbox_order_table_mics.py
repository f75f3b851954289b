"""Issue 25: the outbox sends each recipient's rows in order (an index to find the earlier
ones), wrong join codes on the web are counted per client like JOIN's (an index on the
failures), and a game's table microphone needs a key the server minted (``mic_keys``,
only their hashes) unless the game has none (``sessions.table_mic`` = 0).

Revision ID: r0002
Revises: r0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0002"
down_revision = "r0001"
branch_labels = None
depends_on = None

REAL = sa.Float(precision=53)


def upgrade() -> None:
    op.create_index("outbox_recipient", "outbox", ["to_addr", "id"])
    op.create_index("join_failures_address", "join_failures", ["address", "at"])
    op.add_column("sessions", sa.Column("table_mic", sa.Integer, nullable=False, server_default="1"))
    op.create_table(
        "mic_keys",
        sa.Column("key_hash", sa.Text, primary_key=True),  # sha256 of the key, never the key
        sa.Column("session_id", sa.Text, sa.ForeignKey("sessions.id"), nullable=False),
        sa.Column("kind", sa.Text, nullable=False),  # 'link' (shown once, spent on use) or 'cookie'
        sa.Column("created", REAL, nullable=False),
        sa.Column("expires", REAL, nullable=False),
        sa.Column("used", REAL),
    )
    op.create_index("mic_keys_session", "mic_keys", ["session_id"])


def downgrade() -> None:
    op.drop_index("mic_keys_session", "mic_keys")
    op.drop_table("mic_keys")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("table_mic")
    op.drop_index("join_failures_address", "join_failures")
    op.drop_index("outbox_recipient", "outbox")
