"""Issue 26: a session's row carries the seq of its last input (``sessions.seq``), kept by
the database itself: a trigger on ``inputs`` sets it (and ``updated``) whenever an input is
logged, whoever logs it. Reading the session's row (on PostgreSQL the read that locks it)
then tells where its log stands, without a ``MAX(seq)`` query, and logging an input is one
statement.

Revision ID: r0003
Revises: r0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0003"
down_revision = "r0002"
branch_labels = None
depends_on = None

_BACKFILL = (
    "UPDATE sessions SET seq ="
    " COALESCE((SELECT MAX(i.seq) FROM inputs i WHERE i.session_id = sessions.id), 0)"
)


def upgrade() -> None:
    op.add_column("sessions", sa.Column("seq", sa.Integer, nullable=False, server_default="0"))
    op.execute(_BACKFILL)
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION inputs_advance() RETURNS trigger LANGUAGE plpgsql AS $$"
            " BEGIN UPDATE sessions SET seq = NEW.seq, updated = NEW.at WHERE id = NEW.session_id;"
            " RETURN NULL; END $$"
        )
        op.execute(
            "CREATE TRIGGER inputs_advance AFTER INSERT ON inputs"
            " FOR EACH ROW EXECUTE FUNCTION inputs_advance()"
        )
    else:
        op.execute(
            "CREATE TRIGGER inputs_advance AFTER INSERT ON inputs BEGIN"
            " UPDATE sessions SET seq = NEW.seq, updated = NEW.at WHERE id = NEW.session_id; END"
        )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS inputs_advance" + (" ON inputs" if _pg() else ""))
    if _pg():
        op.execute("DROP FUNCTION IF EXISTS inputs_advance()")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("seq")


def _pg() -> bool:
    return op.get_bind().dialect.name == "postgresql"
