"""Every table of release 0.2, made where missing (a new database, or one made by an
older release: its tables were created by each part of the host as it started).

Revision ID: r0001
Revises:
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "r0001"
down_revision = None
branch_labels = None
depends_on = None

REAL = sa.Float(precision=53)  # double precision on PostgreSQL, REAL affinity on SQLite


def _tables() -> list[tuple[str, list[Any], dict[str, Any]]]:
    text, integer = sa.Text, sa.Integer
    return [
        (
            "sessions",
            [
                sa.Column("id", text, primary_key=True),
                sa.Column("game", text, nullable=False),
                sa.Column("config", text, nullable=False),
                sa.Column("code", text, unique=True),
                sa.Column("status", text, nullable=False, server_default="active"),
                sa.Column("pending", text),  # read-backs of release 0.1; unused now
                sa.Column("created", REAL, nullable=False),
                sa.Column("updated", REAL, nullable=False),
            ],
            {},
        ),
        (
            "inputs",
            [
                sa.Column("session_id", text, sa.ForeignKey("sessions.id"), nullable=False),
                sa.Column("seq", integer, nullable=False),
                sa.Column("at", REAL, nullable=False),
                sa.Column("body", text, nullable=False),
                sa.PrimaryKeyConstraint("session_id", "seq"),
            ],
            {},
        ),
        (
            "replies",
            [
                sa.Column("key", text, primary_key=True),
                sa.Column("session_id", text),
                sa.Column("body", text, nullable=False),
                sa.Column("at", REAL, nullable=False),
            ],
            {},
        ),
        (
            "members",
            [
                sa.Column("address", text, primary_key=True),
                sa.Column("session_id", text, nullable=False),
                sa.Column("name", text, nullable=False),
                sa.Column("channel", text, nullable=False),
                sa.Column("call_sid", text),
                sa.Column("joined", REAL, nullable=False),
            ],
            {},
        ),
        (
            "optouts",
            [
                sa.Column("address", text, primary_key=True),
                sa.Column("at", REAL, nullable=False),
            ],
            {},
        ),
        (
            "join_failures",
            [
                sa.Column("address", text, nullable=False),
                sa.Column("at", REAL, nullable=False),
            ],
            {},
        ),
        (
            "outbox",
            [
                sa.Column("id", integer, primary_key=True, autoincrement=True),
                sa.Column("kind", text, nullable=False),  # 'sms' or 'call'
                sa.Column("to_addr", text, nullable=False),  # phone number, or call SID
                sa.Column("body", text, nullable=False),  # message text, or TwiML
                sa.Column("status", text, nullable=False),  # pending, sending, sent, dead, stored
                sa.Column("detail", text),  # the last error
                sa.Column("at", REAL, nullable=False),
                *_outbox_added(),
            ],
            {"sqlite_autoincrement": True},
        ),
        (
            "sms_numbers",
            [
                sa.Column("address", text, primary_key=True),  # a player's phone number
                sa.Column("host", text, nullable=False),  # the number of ours they last texted
                sa.Column("at", REAL, nullable=False),
            ],
            {},
        ),
        (
            "turn_reminders",
            [
                sa.Column("session_id", text, nullable=False),
                sa.Column("seq", integer, nullable=False),  # the input that started the turn
                sa.Column("at", REAL, nullable=False),
                sa.PrimaryKeyConstraint("session_id", "seq"),
            ],
            {},
        ),
        (
            "voice_calls",
            [
                sa.Column("call_sid", text, primary_key=True),
                sa.Column("address", text, nullable=False),
                sa.Column("base_url", text, nullable=False),
                sa.Column("session_id", text),
                sa.Column("shared", integer, nullable=False, server_default="0"),
                sa.Column("prev_channel", text),
                sa.Column("counter", integer, nullable=False, server_default="0"),
                sa.Column("setup", text),  # JSON: a one-phone game being set up
                sa.Column("ended", integer, nullable=False, server_default="0"),
                sa.Column("at", REAL, nullable=False),
            ],
            {},
        ),
        (
            "voice_rooms",
            [
                sa.Column("address", text, primary_key=True),
                sa.Column("session_id", text, nullable=False),
                sa.Column("at", REAL, nullable=False),
            ],
            {},
        ),
        (
            "stream_tokens",
            [
                sa.Column("token", text, primary_key=True),
                sa.Column("call_sid", text, nullable=False),
                sa.Column("session_id", text, nullable=False),
                sa.Column("player", text),
                sa.Column("address", text),
                sa.Column("lang", text, nullable=False),
                sa.Column("expires", REAL, nullable=False),
                sa.Column("used", REAL),
            ],
            {},
        ),
    ]


def _outbox_added() -> list[sa.Column[object]]:
    """Columns the outbox gained after its first release (added to older tables)."""
    return [
        sa.Column("from_addr", sa.Text),  # the number of ours an SMS goes out from
        sa.Column("summary", sa.Text),  # what a call update says, in words
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("next_at", REAL),  # not before (backoff)
        sa.Column("claimed_at", REAL),  # when a sender marked it 'sending'
        sa.Column("sid", sa.Text),  # Twilio's SID once sent
        sa.Column("sent_at", REAL),
    ]


INDEXES = [
    ("outbox_due", "outbox", ["status"]),
    ("members_session", "members", ["session_id"]),
    ("voice_calls_address", "voice_calls", ["address"]),
]


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    have = set(inspector.get_table_names())
    for name, columns, kw in _tables():
        if name not in have:
            op.create_table(name, *columns, **kw)
    if "outbox" in have:
        old = {c["name"] for c in inspector.get_columns("outbox")}
        for column in _outbox_added():
            if column.name not in old:
                op.add_column("outbox", column)
    for index, table, cols in INDEXES:
        existing = {i["name"] for i in inspector.get_indexes(table)} if table in have else set()
        if index not in existing:
            op.create_index(index, table, cols)


def downgrade() -> None:
    raise NotImplementedError("release 0.2's tables are the first revision")
