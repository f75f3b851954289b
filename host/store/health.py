"""Whether the store can read and write now.

``/healthz`` asks :class:`Health`: a read (``SELECT 1``) and a write that is committed (a
row added to ``join_failures`` and taken out again in one transaction: real pages and WAL
written, nothing left behind, under an address no client has). A database that answers
reads but refuses writes (a read-only file or mount, a full disk, a PostgreSQL in
read-only mode or a standby) used to pass as healthy. The answer is kept for ``EVERY_S``,
so a client polling ``/healthz`` cannot make the server write at its own pace. Why it
failed is what :func:`host.store.errors.unavailable` makes of the driver's error.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass

from host.store.database import Database
from host.store.errors import unavailable

log = logging.getLogger(__name__)

#: Seconds a health answer is kept (the check is one read and one small committed write).
EVERY_S = 1.0


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
