"""Whether the store can read and write now, and what a driver's error says about it.

``/healthz`` asks :class:`Health`: a read (``SELECT 1``) and a write that is committed (a
row added to ``join_failures`` and taken out again in one transaction: real pages and WAL
written, nothing left behind, under an address no client has). A database that answers
reads but refuses writes (a read-only file or mount, a full disk, a PostgreSQL in
read-only mode or a standby) used to pass as healthy. The answer is kept for ``EVERY_S``,
so a client polling ``/healthz`` cannot make the server write at its own pace.

:func:`unavailable` names what a database error says about the store (read-only, full,
unreachable, busy, damaged), so the app answers 503 and says so rather than a bare 500.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from dataclasses import dataclass

from host.store.database import Database

log = logging.getLogger(__name__)

#: Seconds a health answer is kept (the check is one read and one small committed write).
EVERY_S = 1.0

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


@dataclass(frozen=True)
class Failure:
    part: str  # "read" or "write"
    why: str  # what unavailable() says, or "error"


class Health:
    """The store's last answer to "can you read and write?", at most ``every`` seconds old."""

    def __init__(self, db: Database, every: float = EVERY_S) -> None:
        self.db = db
        self.every = every
        self._lock = threading.Lock()
        self._at = float("-inf")
        self._last: Failure | None = None
        self._probe = f"health:{os.getpid()}"  # never a client's key ("web:..." or a number)

    def check(self) -> Failure | None:
        """None when the store reads and writes; else the part that failed and why. Callers
        at once share one check (from worker threads)."""
        with self._lock:
            if time.monotonic() - self._at >= self.every:
                self._last = self._check()
                self._at = time.monotonic()
            return self._last

    def _check(self) -> Failure | None:
        part = "read"
        try:
            self.db.execute("SELECT 1")
            part = "write"
            with self.db.transaction() as db:
                db.execute("INSERT INTO join_failures (address, at) VALUES (?, ?)", (self._probe, 0.0))
                db.execute("DELETE FROM join_failures WHERE address = ?", (self._probe,))
        except Exception as exc:
            why = unavailable(exc) or "error"
            log.warning("health: the store cannot %s (%s): %s", part, why, exc)
            return Failure(part, why)
        return None
