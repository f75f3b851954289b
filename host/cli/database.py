"""Which database a command opens: ``--db``, ``--database-url`` or the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from host.cli.console import fail
from host.config import Settings, get_settings, load_settings
from host.store import Store, describe

# Where the server's database is, for the commands that open it (serve, migrate, outbox, mic).
DbOption = Annotated[
    Path | None, typer.Option(help="SQLite file (default: GAMEHOST_DB or the user data directory).")
]
DatabaseUrlOption = Annotated[
    str | None, typer.Option(help="sqlite:///path or postgresql://... (default: GAMEHOST_DATABASE_URL).")
]
# The games played here keep their sessions in a file of their own by default.
GameDbOption = Annotated[Path | None, typer.Option(help="SQLite file (default: the user data directory).")]


def open_store(db: Path | str | None) -> Store:
    """A SQLite path or database URL (default: GAMEHOST_DATABASE_URL, else GAMEHOST_DB),
    migrated to the newest schema."""
    target = db or get_settings().database
    try:
        return Store(target)
    except Exception as exc:  # a bad path, URL or server is the user's to fix
        raise fail(f"cannot open the database {describe(target)}: {exc}") from None


def db_settings(db: Path | None, database_url: str | None) -> Settings:
    """The settings with a database given on the command line taking precedence."""
    if database_url:
        return load_settings(database_url=database_url)
    return get_settings() if db is None else load_settings(db=db, database_url=None)
