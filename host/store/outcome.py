"""Whether a PostgreSQL transaction whose COMMIT was cut off committed after all.

When the connection is lost while the COMMIT is on its way (the database restarting, a
network cut), the commit may or may not have happened. Told "please text that again", a
player resent a move that already counted (2 of 8,191 moves over five restarts). So a
transaction that stored a reply (its idempotency mark: the webhook's key) is looked up by
it on a new connection before anyone is told anything: the reply there, as written, means
it committed. The old server process must be gone first (a commit still running there
could land after the look-up), so it is ended and waited for; the look-up is tried again
while the database is unreachable, for up to ``LOOK_S`` (Twilio waits 15 s for a webhook).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from sqlalchemy import Engine

log = logging.getLogger(__name__)

#: Seconds a cut-off commit is looked up for before it counts as failed.
LOOK_S = 10.0
RETRY_S = 0.25


def backend_pid(raw: Any) -> int | None:
    """The server process of a psycopg connection (no round trip)."""
    info = getattr(raw, "info", None)
    pid = getattr(info, "backend_pid", None)
    return pid if isinstance(pid, int) and pid > 0 else None


def landed(
    engine: Engine, marks: dict[str, str], pid: int | None, began: float, within: float = LOOK_S
) -> bool | None:
    """Whether the replies ``marks`` (key -> body as written) are stored: True, the
    transaction that wrote them (on server process ``pid``, begun at ``began``) committed;
    False, it did not; None: the database could not be asked within ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        try:
            with engine.connect() as conn:
                raw = conn.connection.dbapi_connection
                assert raw is not None
                if pid is not None and not _gone(raw, pid, began, deadline):
                    return None
                rows = raw.execute(
                    "SELECT key, body FROM replies WHERE key = ANY(%s)", (list(marks),)
                ).fetchall()
            stored = dict(rows)
            return all(stored.get(key) == body for key, body in marks.items())
        except Exception as exc:
            if time.monotonic() + RETRY_S > deadline:
                log.warning("a cut-off commit could not be looked up: %s", exc)
                return None
            time.sleep(RETRY_S)


def _gone(raw: Any, pid: int, began: float, deadline: float) -> bool:
    """End the server process ``pid`` if it still runs (a role may end its own) and wait
    until it has: whatever it was committing is then committed or rolled back. Only a
    process that was there before the transaction began: after a restart the number may
    be another's."""
    ours = "pid = %s AND backend_start < to_timestamp(%s)"
    raw.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE {ours}", (pid, began))
    while raw.execute(f"SELECT 1 FROM pg_stat_activity WHERE {ours}", (pid, began)).fetchone() is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
