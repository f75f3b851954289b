"""What a database driver's error says about the store: read-only, full, unreachable, busy,
an I/O error or damaged (:func:`unavailable`), so the app answers 503 and says so rather
than a bare 500, ``/healthz`` names it, and a transaction whose COMMIT was cut off
(``unreachable``) is looked up before anyone is told it failed (host/store/database.py).
"""

from __future__ import annotations

import sqlite3

# SQLite's primary result codes (the low byte of an extended one).
_SQLITE = {3: "read-only", 8: "read-only", 13: "full", 14: "unreachable", 10: "I/O error"}
_SQLITE.update({5: "busy", 6: "busy", 11: "damaged", 26: "damaged"})
# PostgreSQL's SQLSTATE classes and codes.
_PG_CODES = {"25006": "read-only", "53100": "full", "57P01": "unreachable", "57P02": "unreachable"}
_PG_CODES.update({"57P03": "unreachable", "55P03": "busy", "40P01": "busy", "53300": "busy"})
_PG_CLASSES = {"08": "unreachable", "53": "busy", "58": "I/O error", "XX": "damaged"}


def unavailable(exc: BaseException) -> str | None:
    """Why the store cannot serve now, if ``exc`` (or what it wraps) says so: "read-only",
    "full", "unreachable", "busy", "I/O error" or "damaged"; None: some other error."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        why = _why(current)
        if why is not None:
            return why
        current = getattr(current, "orig", None) or current.__cause__ or current.__context__
    return None


def _why(exc: BaseException) -> str | None:
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if isinstance(code, int):
            return _SQLITE.get(code & 0xFF)
        text = str(exc).lower()
        return "read-only" if "readonly" in text or "read-only" in text else None
    sqlstate = getattr(exc, "sqlstate", None)
    module = type(exc).__module__
    if module.startswith("psycopg"):
        if isinstance(sqlstate, str):
            return _PG_CODES.get(sqlstate) or _PG_CLASSES.get(sqlstate[:2])
        if type(exc).__name__ == "OperationalError":  # the connection failed or was lost
            return "unreachable"
    if module.startswith("sqlalchemy") and type(exc).__name__ == "TimeoutError":
        return "busy"  # every pooled connection in use for the pool's whole timeout
    return None
