"""The event log: a session is its ordered list of accepted inputs.

One code path for SQLite (the default: one file, WAL mode) and PostgreSQL, through
SQLAlchemy Core with plain SQL that both understand. What differs is how writers are kept
apart:

- SQLite: a write transaction is ``BEGIN IMMEDIATE`` (the database lock, also across
  processes); inside a process one connection is shared and a lock keeps threads from
  interleaving in it.
- PostgreSQL: each thread has its own pooled connection and transaction. Reading a
  session's row or its last sequence number inside a transaction locks the row
  (``SELECT ... FOR UPDATE``), so two workers never rule on one session at once, and
  looking up a stored reply takes an advisory lock on its key, so a webhook retried on
  another worker waits for the first and is answered from it.

The schema is made and upgraded by migrations (host/migrations, alembic); opening a
Store brings the database up to date unless asked not to.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import uuid
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, create_engine, event, text
from sqlalchemy.engine import Engine, RowMapping, make_url
from sqlalchemy.pool import StaticPool

from host.migrations import upgrade

log = logging.getLogger(__name__)

Row = RowMapping  # rows support ``row["col"]``
Params = Sequence[Any] | Mapping[str, Any]


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


@lru_cache(maxsize=512)
def _named(sql: str) -> str:
    """``?`` placeholders (outside quotes) as ``:p0, :p1, ...`` for ``text()``."""
    parts = sql.split("'")
    n = 0
    for i in range(0, len(parts), 2):

        def number(_: re.Match[str]) -> str:
            nonlocal n
            n += 1
            return f":p{n - 1}"

        parts[i] = re.sub(r"\?", number, parts[i])
    return "'".join(parts)


def _bind(sql: str, params: Params) -> tuple[Any, dict[str, Any]]:
    if isinstance(params, Mapping):
        return text(sql), dict(params)
    return text(_named(sql)), {f"p{i}": v for i, v in enumerate(params)}


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
    """The event log and the host's other tables (made by the migrations)."""

    def __init__(self, target: str | Path, *, migrate: bool = True) -> None:
        self.url = database_url(target)
        url = make_url(self.url)
        self.dialect = url.get_backend_name()
        self.sqlite = self.dialect == "sqlite"
        self.path = url.database or ":memory:" if self.sqlite else describe(self.url)
        self._local = threading.local()
        self._shared: Connection | None = None
        self._lock: AbstractContextManager[Any]
        if self.sqlite:
            if url.database:
                Path(url.database).parent.mkdir(parents=True, exist_ok=True)
            self.engine = create_engine(
                self.url,
                poolclass=StaticPool,
                connect_args={"check_same_thread": False, "timeout": 30.0},
                isolation_level="AUTOCOMMIT",  # Store says BEGIN IMMEDIATE and COMMIT itself
            )
            event.listen(self.engine, "connect", _sqlite_pragmas)
            self._shared = self.engine.connect()
            self._lock = threading.RLock()
        else:
            self.engine = create_engine(
                self.url, isolation_level="AUTOCOMMIT", pool_size=8, max_overflow=24, pool_recycle=3600
            )
            self._lock = nullcontext()
        if migrate:
            self.migrate()

    def migrate(self) -> bool:
        """Bring the schema to the newest revision; whether anything had to change."""
        with self.transaction(), self.connection() as conn:
            return upgrade(conn)

    def ensure_schema(self, sql: str) -> None:
        """Run ``CREATE ... IF NOT EXISTS`` statements. The host's tables come from the
        migrations; this is for scratch tables only."""
        for statement in filter(str.strip, sql.split(";")):
            self.execute(statement)

    def close(self) -> None:
        with self._lock:
            if self._shared is not None:
                self._shared.close()
            self.engine.dispose()

    # -- connections and transactions ----------------------------------------------------

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """This thread's connection: its open transaction's, or one for a single statement."""
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        with self._lock:
            if self._shared is not None:
                yield self._shared
            else:
                with self.engine.connect() as fresh:
                    yield fresh

    @property
    def in_transaction(self) -> bool:
        return bool(getattr(self._local, "depth", 0))

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """A write transaction; nested calls (in this thread) join the outer one."""
        local = self._local
        if getattr(local, "depth", 0):
            local.depth += 1
            try:
                yield self
            finally:
                local.depth -= 1
            return
        with self._lock:
            conn = self._shared if self._shared is not None else self.engine.connect()
            try:
                conn.exec_driver_sql("BEGIN IMMEDIATE" if self.sqlite else "BEGIN")
                local.conn, local.depth, local.locked = conn, 1, set()
                local.rows, local.seqs, local.after = {}, {}, []
                try:
                    yield self
                except BaseException:
                    conn.exec_driver_sql("ROLLBACK")
                    raise
                else:
                    conn.exec_driver_sql("COMMIT")
                    committed: list[Callable[[], None]] = local.after
                finally:
                    local.conn, local.depth, local.locked = None, 0, set()
                    local.rows, local.seqs, local.after = {}, {}, []
            finally:
                if conn is not self._shared:
                    conn.close()
        _run_all(committed)

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run ``action`` once this thread's transaction has committed (never if it rolls
        back); outside a transaction, now. For what must not happen before the write it
        follows is durable: waking the outbox sender, speaking news into a live call."""
        if self.in_transaction:
            self._local.after.append(action)
        else:
            _run_all([action])

    def execute(self, sql: str, params: Params = ()) -> list[Row]:
        """Run one statement (``?`` or ``:name`` parameters); its rows, if any."""
        statement, values = _bind(sql, params)
        with self.connection() as conn:
            result = conn.execute(statement, values)
            return list(result.mappings()) if result.returns_rows else []

    def execute_count(self, sql: str, params: Params = ()) -> int:
        """Run one statement; how many rows it changed."""
        statement, values = _bind(sql, params)
        with self.connection() as conn:
            return int(conn.execute(statement, values).rowcount)

    def for_update(self, skip_locked: bool = False) -> str:
        """The row-locking suffix of a ``SELECT`` (nothing on SQLite, whose writers are
        one at a time already)."""
        if self.sqlite:
            return ""
        return " FOR UPDATE SKIP LOCKED" if skip_locked else " FOR UPDATE"

    def lock_session(self, session_id: str) -> None:
        """Inside a transaction on PostgreSQL: hold the session's row until commit."""
        if self.sqlite or not self.in_transaction:
            return
        locked: set[str] = self._local.locked
        if session_id not in locked:
            self.execute("SELECT id FROM sessions WHERE id = ? FOR UPDATE", (session_id,))
            locked.add(session_id)

    # -- sessions ------------------------------------------------------------------------

    def create_session(
        self, game: str, config: dict[str, Any], code: str | None = None, status: str = "active"
    ) -> str:
        session_id = uuid.uuid4().hex[:12]
        now = time.time()
        with self.transaction():
            self.execute(
                "INSERT INTO sessions (id, game, config, code, status, created, updated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, game, json.dumps(config), code, status, now, now),
            )
        return session_id

    def session(self, session_id: str) -> SessionRow | None:
        # Inside a transaction the row cannot change but through this Store (it is locked,
        # or SQLite's writers wait): it is read once.
        cache: dict[str, SessionRow] | None = self._local.rows if self.in_transaction else None
        if cache is not None and session_id in cache:
            return cache[session_id]
        lock = not self.sqlite and cache is not None and session_id not in self._local.locked
        # Locking on PostgreSQL is this same read, FOR UPDATE (one round trip).
        sql = "SELECT * FROM sessions WHERE id = ?" + (" FOR UPDATE" if lock else "")
        rows = self.execute(sql, (session_id,))
        if lock:
            self._local.locked.add(session_id)
        row = _row(rows[0]) if rows else None
        if cache is not None and row is not None:
            cache[session_id] = row
        return row

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
        with self.transaction():
            self._local.rows.pop(session_id, None)
            self.execute(
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
        cache: dict[str, int] | None = self._local.seqs if self.in_transaction else None
        if cache is not None and session_id in cache:
            return cache[session_id]
        self.lock_session(session_id)
        rows = self.execute("SELECT MAX(seq) AS m FROM inputs WHERE session_id = ?", (session_id,))
        seq = int(rows[0]["m"] or 0)
        if cache is not None:
            cache[session_id] = seq
        return seq

    def append(self, session_id: str, body: dict[str, Any], at: float) -> int:
        with self.transaction():
            seq = self.last_seq(session_id) + 1
            self.execute(
                "INSERT INTO inputs (session_id, seq, at, body) VALUES (?, ?, ?, ?)",
                (session_id, seq, at, json.dumps(body)),
            )
            self.execute("UPDATE sessions SET updated = ? WHERE id = ?", (at, session_id))
            self._local.seqs[session_id] = seq
            if (row := self._local.rows.get(session_id)) is not None:
                self._local.rows[session_id] = replace(row, updated=at)
        return seq

    # -- turn clocks (host/timeouts.py) --------------------------------------------------

    def running_clocks(self, now: float, own_deadlines: Collection[str]) -> list[tuple[str, int, float]]:
        """Active sessions whose clock may be running, with their latest input (session,
        its seq, its time): a turn limit at least half gone, or a game in ``own_deadlines``
        (one that sets deadlines of its own, judged step by step by the caller)."""
        rows = self.execute(
            "SELECT s.id AS id, s.game AS game, s.config AS config, i.seq AS seq, i.at AS at"
            " FROM sessions s JOIN inputs i ON i.session_id = s.id"
            " WHERE s.status = 'active'"
            " AND i.seq = (SELECT MAX(seq) FROM inputs WHERE session_id = s.id)"
        )
        due = []
        for r in rows:
            limit = json.loads(r["config"]).get("turn_timeout")
            half_gone = isinstance(limit, int | float) and limit > 0 and r["at"] + limit / 2.0 <= now
            if half_gone or r["game"] in own_deadlines:
                due.append((str(r["id"]), int(r["seq"]), float(r["at"])))
        return due

    def remember_reminder(self, session_id: str, seq: int, at: float) -> bool:
        """Record the reminder for the turn begun by ``seq``; False if one was already
        recorded (by this or another worker): only the one that records it sends it."""
        return bool(
            self.execute_count(
                "INSERT INTO turn_reminders (session_id, seq, at) VALUES (?, ?, ?)"
                " ON CONFLICT (session_id, seq) DO NOTHING",
                (session_id, seq, at),
            )
        )

    # -- idempotency ---------------------------------------------------------------------

    def reply(self, key: str) -> dict[str, Any] | None:
        if not self.sqlite and self.in_transaction:
            # The same webhook on two workers at once: the second waits for the first's reply.
            self.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (key,))
        rows = self.execute("SELECT body FROM replies WHERE key = ?", (key,))
        return json.loads(rows[0]["body"]) if rows else None

    def save_reply(self, key: str, session_id: str | None, body: dict[str, Any]) -> None:
        with self.transaction():
            self.execute(
                "INSERT INTO replies (key, session_id, body, at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id,"
                " body = excluded.body, at = excluded.at",
                (key, session_id, json.dumps(body), time.time()),
            )


def _run_all(actions: list[Callable[[], None]]) -> None:
    for action in actions:
        try:
            action()
        except Exception:  # the commit stands; one failed follow-up must not undo it
            log.exception("an action after a commit failed")


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


def _row(r: Row) -> SessionRow:
    return SessionRow(
        id=r["id"],
        game=r["game"],
        config=json.loads(r["config"]),
        code=r["code"],
        status=r["status"],
        created=r["created"],
        updated=r["updated"],
    )


__all__ = ["Engine", "Row", "SessionRow", "Store", "StoredInput", "database_url", "describe"]
