"""Schema migrations (alembic), the same scripts for SQLite and PostgreSQL.

``upgrade`` brings a database to the newest revision; ``gamehost migrate`` and ``gamehost
serve`` call it, and so does opening a ``Store``. A database made before migrations
existed (tables made with CREATE TABLE IF NOT EXISTS by each part of the host) is taken
over by the first revision, which only adds what is missing.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect, text

HERE = Path(__file__).parent


def config(connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    cfg.attributes["connection"] = connection
    return cfg


@lru_cache(maxsize=1)
def head() -> str:
    revision = ScriptDirectory.from_config(config()).get_current_head()
    assert revision is not None
    return revision


def current(connection: Connection) -> str | None:
    """The database's revision (None: never migrated)."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    row = connection.execute(text("SELECT version_num FROM alembic_version")).first()
    return str(row[0]) if row else None


def upgrade(connection: Connection) -> bool:
    """Migrate to the newest revision, inside the caller's transaction; whether anything ran."""
    if current(connection) == head():
        return False
    command.upgrade(config(connection), "head")
    return True
