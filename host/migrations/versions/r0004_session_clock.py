"""Issue 26: the turn timer reads only the sessions whose clock wants a look. A session's
row carries ``clock``: when its turn limit is half gone (the last input's time plus half
the config's ``turn_timeout``; NULL when the config sets none). The trigger that keeps
``seq`` sets it whenever an input is logged, and an index finds the ones due. A game with
deadlines of its own is found by its name (an index on ``game``).

Revision ID: r0004
Revises: r0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0004"
down_revision = "r0003"
branch_labels = None
depends_on = None

REAL = sa.Float(precision=53)

# The half-time of the config's turn limit after ``at`` (NULL: no limit), in each dialect.
_SQLITE_CLOCK = (
    "CASE WHEN json_type(config, '$.turn_timeout') IN ('integer', 'real')"
    " AND json_extract(config, '$.turn_timeout') > 0"
    " THEN {at} + json_extract(config, '$.turn_timeout') / 2.0 END"
)
_PG_CLOCK = (
    "CASE WHEN jsonb_typeof(config::jsonb -> 'turn_timeout') = 'number'"
    " AND (config::jsonb ->> 'turn_timeout')::float8 > 0"
    " THEN {at} + (config::jsonb ->> 'turn_timeout')::float8 / 2.0 END"
)
_LAST_AT = "(SELECT i.at FROM inputs i WHERE i.session_id = sessions.id AND i.seq = sessions.seq)"


def upgrade() -> None:
    op.add_column("sessions", sa.Column("clock", REAL))
    pg = _pg()
    op.execute(f"UPDATE sessions SET clock = {(_PG_CLOCK if pg else _SQLITE_CLOCK).format(at=_LAST_AT)}")
    op.create_index("sessions_clock", "sessions", ["clock"])
    op.create_index("sessions_game", "sessions", ["game"])
    if pg:
        op.execute(
            "CREATE OR REPLACE FUNCTION inputs_advance() RETURNS trigger LANGUAGE plpgsql AS $$"
            " BEGIN UPDATE sessions SET seq = NEW.seq, updated = NEW.at,"
            f" clock = {_PG_CLOCK.format(at='NEW.at')} WHERE id = NEW.session_id;"
            " RETURN NULL; END $$"
        )
    else:
        op.execute("DROP TRIGGER inputs_advance")
        op.execute(
            "CREATE TRIGGER inputs_advance AFTER INSERT ON inputs BEGIN"
            " UPDATE sessions SET seq = NEW.seq, updated = NEW.at,"
            f" clock = {_SQLITE_CLOCK.format(at='NEW.at')} WHERE id = NEW.session_id; END"
        )


def downgrade() -> None:
    if _pg():
        op.execute(
            "CREATE OR REPLACE FUNCTION inputs_advance() RETURNS trigger LANGUAGE plpgsql AS $$"
            " BEGIN UPDATE sessions SET seq = NEW.seq, updated = NEW.at WHERE id = NEW.session_id;"
            " RETURN NULL; END $$"
        )
    else:
        op.execute("DROP TRIGGER inputs_advance")
        op.execute(
            "CREATE TRIGGER inputs_advance AFTER INSERT ON inputs BEGIN"
            " UPDATE sessions SET seq = NEW.seq, updated = NEW.at WHERE id = NEW.session_id; END"
        )
    op.drop_index("sessions_game", "sessions")
    op.drop_index("sessions_clock", "sessions")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("clock")


def _pg() -> bool:
    return op.get_bind().dialect.name == "postgresql"
