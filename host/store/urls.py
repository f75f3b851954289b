"""Where the database is: a SQLAlchemy URL from what a person gives, and back for people
to read."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import make_url


def database_url(target: str | Path) -> str:
    """A SQLAlchemy URL for a SQLite path, ``sqlite:///path`` or ``postgresql://...``
    (psycopg 3 is the driver, whatever the URL names)."""
    raw = str(target)
    if raw == ":memory:":
        return "sqlite://"
    if "://" not in raw:
        return f"sqlite:///{Path(raw).expanduser()}"
    url = make_url(raw)
    if url.get_backend_name() in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    return url.render_as_string(hide_password=False)


def describe(target: str | Path) -> str:
    """The database for people to read (no password)."""
    url = make_url(database_url(target))
    if url.get_backend_name() == "sqlite":
        return url.database or ":memory:"
    return url.set(drivername=url.get_backend_name()).render_as_string(hide_password=True)
