"""SQLite event log: a session is its ordered list of accepted inputs.

One file (WAL mode) holds every session. Writers take the database lock with
``BEGIN IMMEDIATE`` so two requests for one game are applied in a consistent order, also
across processes; inside a process a lock keeps threads from sharing a transaction.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    config TEXT NOT NULL,
    code TEXT UNIQUE,
    status TEXT NOT NULL DEFAULT 'active',
    pending TEXT,  -- read-backs of the release before the log kept them; unused now
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS inputs (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    at REAL NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    session_id TEXT,
    body TEXT NOT NULL,
    at REAL NOT NULL
);
"""


@dataclass(frozen=True)
class StoredInput:
    seq: int
    at: float
    body: dict[str, Any]


@dataclass(frozen=True)
class SessionRow:
    id: str
    game: str
    config: dict[str, Any]
    code: str | None
    status: str
    created: float
    updated: float


class Store:
    """The event log. Channels add their own tables through ``ensure_schema``."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30.0)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._depth = 0
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA busy_timeout=30000")
            self._conn.executescript(SCHEMA)

    def ensure_schema(self, sql: str) -> None:
        """Create a channel's own tables (idempotent ``CREATE TABLE IF NOT EXISTS``)."""
        with self._lock:
            self._conn.executescript(sql)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; nested calls join the outer one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")
            finally:
                self._depth = 0

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return list(self._conn.execute(sql, params))

    # -- sessions ------------------------------------------------------------------------

    def create_session(
        self, game: str, config: dict[str, Any], code: str | None = None, status: str = "active"
    ) -> str:
        session_id = uuid.uuid4().hex[:12]
        now = time.time()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO sessions (id, game, config, code, status, created, updated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, game, json.dumps(config), code, status, now, now),
            )
        return session_id

    def session(self, session_id: str) -> SessionRow | None:
        rows = self.execute("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return _row(rows[0]) if rows else None

    def session_by_code(self, code: str) -> SessionRow | None:
        rows = self.execute("SELECT * FROM sessions WHERE code = ?", (code,))
        return _row(rows[0]) if rows else None

    def sessions(self, status: str | None = None) -> list[SessionRow]:
        if status is None:
            rows = self.execute("SELECT * FROM sessions ORDER BY created")
        else:
            rows = self.execute("SELECT * FROM sessions WHERE status = ? ORDER BY created", (status,))
        return [_row(r) for r in rows]

    def set_status(self, session_id: str, status: str) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE sessions SET status = ?, updated = ? WHERE id = ?",
                (status, time.time(), session_id),
            )

    # -- the log -------------------------------------------------------------------------

    def inputs(self, session_id: str, after: int = 0) -> list[StoredInput]:
        rows = self.execute(
            "SELECT seq, at, body FROM inputs WHERE session_id = ? AND seq > ? ORDER BY seq",
            (session_id, after),
        )
        return [StoredInput(r["seq"], r["at"], json.loads(r["body"])) for r in rows]

    def last_seq(self, session_id: str) -> int:
        rows = self.execute("SELECT MAX(seq) AS m FROM inputs WHERE session_id = ?", (session_id,))
        return int(rows[0]["m"] or 0)

    def append(self, session_id: str, body: dict[str, Any], at: float) -> int:
        with self.transaction() as db:
            seq = self.last_seq(session_id) + 1
            db.execute(
                "INSERT INTO inputs (session_id, seq, at, body) VALUES (?, ?, ?, ?)",
                (session_id, seq, at, json.dumps(body)),
            )
            db.execute("UPDATE sessions SET updated = ? WHERE id = ?", (at, session_id))
        return seq

    # -- idempotency ---------------------------------------------------------------------

    def reply(self, key: str) -> dict[str, Any] | None:
        rows = self.execute("SELECT body FROM replies WHERE key = ?", (key,))
        return json.loads(rows[0]["body"]) if rows else None

    def save_reply(self, key: str, session_id: str | None, body: dict[str, Any]) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO replies (key, session_id, body, at) VALUES (?, ?, ?, ?)",
                (key, session_id, json.dumps(body), time.time()),
            )


def _row(r: sqlite3.Row) -> SessionRow:
    return SessionRow(
        id=r["id"],
        game=r["game"],
        config=json.loads(r["config"]),
        code=r["code"],
        status=r["status"],
        created=r["created"],
        updated=r["updated"],
    )
