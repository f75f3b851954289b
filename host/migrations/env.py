"""Alembic's entry: runs on the connection the host hands it (see host/migrations)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

connection: Connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    if connection.dialect.name == "postgresql":
        # Two servers starting at once: the second waits, then finds nothing to do.
        connection.exec_driver_sql("SELECT pg_advisory_xact_lock(7146100001)")
    context.run_migrations()
