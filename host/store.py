"""The event log: a session is its ordered list of accepted inputs.

One code path for SQLite (the default: one file, WAL mode) and PostgreSQL. SQLAlchemy makes
the connections (its pool, its URLs) and runs the migrations; the statements themselves go
straight to the driver (plain SQL both understand, ``?`` placeholders), because building
and compiling a SQLAlchemy statement for every call cost more than running it. On SQLite
that is the cursor (sqlite3 caches its prepared statements); on PostgreSQL libpq itself,
through psycopg's connection, in pipeline mode: the statements of a round trip are sent
at once, each a server-side prepared statement from its first use on a connection,
psycopg's adapters dumping the values and loading the rows. Listeners of the engine's
``before_cursor_execute`` event still see every statement. What differs between the two
is how writers are kept apart:

- SQLite: a write transaction is ``BEGIN IMMEDIATE`` (the database lock, also across
  processes); inside a process one connection is shared and a lock keeps threads from
  interleaving in it.
- PostgreSQL: each thread has its own pooled connection and transaction. Reading a
  session's row inside a transaction locks it (``SELECT ... FOR UPDATE``), so two workers
  never rule on one session at once, and looking up a stored reply takes an advisory lock
  on its key, so a webhook retried on another worker waits for the first and is answered
  from it.

Inside a transaction, writes whose result nobody reads (``write``: the input, the reply,
the outbox rows) wait and go to the database together, just before the next read or the
commit: on PostgreSQL in one round trip with the read or commit that follows, on SQLite
rows of one statement as one ``executemany``. What a transaction has read it remembers until it
ends (a session's row, stored replies, and whatever others keep in ``memo``), so nothing
is looked up twice; a read that also wants a session's row takes it in the same statement
(``session_read_with``, locked on PostgreSQL), one round trip instead of two.

The schema is made and upgraded by migrations (host/migrations, alembic); opening a
Store brings the database up to date unless asked not to.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import psycopg
from psycopg import pq
from psycopg.adapt import PyFormat, Transformer
from psycopg.waiting import Ready, Wait
from sqlalchemy import Connection, create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.pool import StaticPool

from host.migrations import upgrade

log = logging.getLogger(__name__)

Row = Mapping[str, Any]  # rows support ``row["col"]``

#: PostgreSQL connections a Store keeps, with no overflow: past these transactions at once a
#: thread waits for a connection. Overflow connections were closed on return and opened
#: again (a new server process each) under load: 1 worker 84-90 -> 116-123 req/s.
PG_CONNECTIONS = 16
Params = Sequence[Any] | Mapping[str, Any]
Result = tuple[list[Row], int]  # a statement's rows and count


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


_PLACEHOLDER = re.compile(r"\?|(?<![:\w]):(\w+)")


@lru_cache(maxsize=1024)
def _native(sql: str, pyformat: bool) -> str:
    """``sql`` in the driver's own placeholders: sqlite3 takes ``?`` and ``:name`` as they
    are; psycopg wants ``%s`` and ``%(name)s``, and ``%%`` for every percent sign (quoted
    ones too). Placeholders are only looked for outside quotes."""
    if not pyformat:
        return sql
    parts = sql.replace("%", "%%").split("'")

    def native(m: re.Match[str]) -> str:
        return "%s" if m.group(0) == "?" else f"%({m.group(1)})s"

    for i in range(0, len(parts), 2):
        parts[i] = _PLACEHOLDER.sub(native, parts[i])
    return "'".join(parts)


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
    seq: int = 0  # the last input logged (0: none yet)


@dataclass(frozen=True)
class Read:
    """A read that can go to the database with another in one round trip (``Store.replies``
    takes one as ``also``): its statement, and what takes its rows."""

    sql: str
    params: Params
    took: Callable[[list[Row]], object]


@dataclass
class _Transaction:
    """This thread's open transaction: its connection, and what it has read and not yet
    written."""

    conn: Connection
    raw: Any  # the driver's connection under ``conn``
    depth: int = 1
    locked: set[str] = field(default_factory=set)  # sessions whose rows are locked (PostgreSQL)
    rows: dict[str, SessionRow] = field(default_factory=dict)
    replies: dict[str, str | None] = field(default_factory=dict)  # key -> stored body (JSON)
    pending: list[tuple[str, Any, bool]] = field(default_factory=list)  # (native sql, params, many)
    after: list[Callable[[], None]] = field(default_factory=list)
    memo: dict[str, Any] = field(default_factory=dict)


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
        self._shared_raw: Any = None
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
            self._shared_raw = self._shared.connection.dbapi_connection
            self._lock = threading.RLock()
            if url.database:
                _checkpointer.add(url.database)
        else:
            self.engine = create_engine(
                self.url,
                isolation_level="AUTOCOMMIT",
                pool_size=PG_CONNECTIONS,
                max_overflow=0,
                pool_recycle=3600,
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
            if self._shared is not None and not self._shared.closed:
                self._shared.close()
                if self.path != ":memory:":
                    _checkpointer.remove(self.path)
            self.engine.dispose()

    # -- connections and transactions ----------------------------------------------------

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """This thread's SQLAlchemy connection: its open transaction's, or one for a single
        use (migrations; everything else goes through ``execute``)."""
        txn: _Transaction | None = getattr(self._local, "txn", None)
        if txn is not None:
            self._flush(txn)
            yield txn.conn
            return
        with self._lock:
            if self._shared is not None:
                yield self._shared
            else:
                with self.engine.connect() as fresh:
                    yield fresh

    @property
    def in_transaction(self) -> bool:
        return getattr(self._local, "txn", None) is not None

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """A write transaction; nested calls (in this thread) join the outer one."""
        txn: _Transaction | None = getattr(self._local, "txn", None)
        if txn is not None:
            txn.depth += 1
            try:
                yield self
            finally:
                txn.depth -= 1
            return
        committed: list[Callable[[], None]] = []
        with self._lock:
            conn = self._shared if self._shared is not None else self.engine.connect()
            raw = self._shared_raw if self._shared is not None else conn.connection.dbapi_connection
            try:
                txn = _Transaction(conn, raw)
                if self.sqlite:
                    self._run(conn, raw, "BEGIN IMMEDIATE", ())
                else:
                    txn.pending.append(("BEGIN", None, False))  # goes with the first statement
                self._local.txn = txn
                try:
                    yield self
                    # The writes still waiting, and the commit (one round trip on PostgreSQL).
                    self._flush(txn, then=("COMMIT", ()))
                except BaseException:
                    self._rollback(conn, raw)
                    raise
                committed = txn.after
            finally:
                self._local.txn = None
                if conn is not self._shared:
                    conn.close()
        _run_all(committed)

    def _rollback(self, conn: Connection, raw: Any) -> None:
        try:
            self._run(conn, raw, "ROLLBACK", ())
        except Exception:  # the connection itself failed: the pool must not hand it out again
            log.warning("rolling back failed; the connection is dropped", exc_info=True)
            if conn is not self._shared:
                conn.invalidate()

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run ``action`` once this thread's transaction has committed (never if it rolls
        back); outside a transaction, now. For what must not happen before the write it
        follows is durable: waking the outbox sender, speaking news into a live call,
        sharing what the transaction made with other threads."""
        txn: _Transaction | None = getattr(self._local, "txn", None)
        if txn is not None:
            txn.after.append(action)
        else:
            _run_all([action])

    def memo(self, name: str) -> dict[Any, Any] | None:
        """A dict of this thread's transaction, for what it has read (or made) and should
        not read again; gone when the transaction ends, whether it commits or not. None
        outside a transaction."""
        txn: _Transaction | None = getattr(self._local, "txn", None)
        if txn is None:
            return None
        found: dict[Any, Any] | None = txn.memo.get(name)
        if found is None:
            found = txn.memo[name] = {}
        return found

    # -- statements ----------------------------------------------------------------------

    def execute(self, sql: str, params: Params = ()) -> list[Row]:
        """Run one statement (``?`` or ``:name`` parameters) now; its rows, if any. Writes
        waiting in this transaction go first."""
        return self._execute(sql, params)[0]

    def execute_count(self, sql: str, params: Params = ()) -> int:
        """Run one statement now; how many rows it changed."""
        return self._execute(sql, params)[1]

    def write(self, sql: str, params: Params = ()) -> None:
        """A statement whose result nobody reads: inside a transaction it waits for the
        next read or the commit, to go with the other writes; outside one it runs now."""
        txn: _Transaction | None = getattr(self._local, "txn", None)
        if txn is None:
            self._execute(sql, params)
        else:
            txn.pending.append((sql, params, False))

    def write_many(self, sql: str, rows: Iterable[Params]) -> None:
        """``write`` for several rows of one statement."""
        rows = list(rows)
        if not rows:
            return
        txn: _Transaction | None = getattr(self._local, "txn", None)
        if txn is None:
            with self.transaction():
                self.write_many(sql, rows)
        else:
            txn.pending.append((sql, rows, True))

    def _execute(self, sql: str, params: Params, also: Read | None = None) -> Result:
        """Run ``sql`` now (and ``also`` after it, in the same round trip): its rows and count."""
        txn: _Transaction | None = getattr(self._local, "txn", None)
        if txn is not None:
            return self._flush(txn, then=(sql, params), also=also)
        with self._lock:
            if self._shared is not None:
                found = self._run(self._shared, self._shared_raw, sql, params)
                if also is not None:
                    also.took(self._run(self._shared, self._shared_raw, also.sql, also.params)[0])
                return found
            with self.engine.connect() as conn:
                raw = conn.connection.dbapi_connection
                try:
                    if also is None:
                        return self._run(conn, raw, sql, params)
                    found, rest = self._pipeline(conn, raw, [(sql, params), (also.sql, also.params)])
                    also.took(rest[0])
                    return found
                except Exception:
                    if getattr(raw, "broken", False):
                        conn.invalidate()
                    raise

    def _flush(
        self, txn: _Transaction, then: tuple[str, Params] | None = None, also: Read | None = None
    ) -> Result:
        """Run the transaction's waiting statements, then ``then`` (its rows and count are
        returned) and ``also`` (its rows go to its ``took``)."""
        pending, txn.pending = txn.pending, []
        if then is not None and then[0] == "COMMIT" and [p[0] for p in pending] == ["BEGIN"]:
            return [], 0  # nothing was read or written: nothing to send
        if self.sqlite:
            for sql, params, many in _grouped(pending):
                self._run(txn.conn, txn.raw, sql, params, many)
            found = self._run(txn.conn, txn.raw, *then) if then is not None else ([], 0)
            if also is not None:
                also.took(self._run(txn.conn, txn.raw, also.sql, also.params)[0])
            return found
        # PostgreSQL: all in one round trip (a pipeline); the first error stops the rest.
        statements = [(sql, params) for sql, rows, many in pending for params in (rows if many else [rows])]
        if then is not None:
            statements.append(then)
        if also is not None:
            statements.append((also.sql, also.params))
        if not statements:
            return [], 0
        results = self._pipeline(txn.conn, txn.raw, statements)
        if also is not None:
            also.took(results.pop()[0])
        return results[-1] if then is not None else ([], 0)

    def _run(
        self, conn: Connection, raw: Any, sql: str, params: Any, many: bool = False
    ) -> tuple[list[Row], int]:
        """One statement now: its rows and count."""
        if not self.sqlite:
            rows = params if many else [params]
            return self._pipeline(conn, raw, [(sql, p) for p in rows])[-1]
        cursor = raw.cursor()
        sql, params = self._seen(conn, cursor, sql, params, many)
        if many:
            cursor.executemany(sql, params)
        elif params is None:
            cursor.execute(sql)
        else:
            cursor.execute(sql, params)
        return _fetched(cursor)

    def _pipeline(self, conn: Connection, raw: Any, statements: list[tuple[str, Any]]) -> list[Result]:
        """PostgreSQL: ``statements`` in one round trip, each as a server-side prepared statement
        (made on its first use on the connection), in libpq's pipeline mode: the rows and
        count of each. Each statement still sees what committed before it began (its own
        snapshot, as when sent one by one); the first error stops the rest and is raised."""
        trip = _RoundTrip()  # the listeners' "cursor": one per round trip
        for sql, params in statements:
            self._seen(conn, trip, _native(sql, True), params)
        return _pg_pipeline(raw, statements)

    def _seen(
        self, conn: Connection, cursor: Any, sql: str, params: Any, many: bool = False
    ) -> tuple[str, Any]:
        """A statement as the engine's ``before_cursor_execute`` listeners pass it on (the
        driver is called directly, so SQLAlchemy does not call them itself)."""
        for listener in self.engine.dispatch.before_cursor_execute:
            sql, params = listener(conn, cursor, sql, params, None, many)
        return sql, params

    def for_update(self, skip_locked: bool = False) -> str:
        """The row-locking suffix of a ``SELECT`` (nothing on SQLite, whose writers are
        one at a time already)."""
        if self.sqlite:
            return ""
        return " FOR UPDATE SKIP LOCKED" if skip_locked else " FOR UPDATE"

    def lock_session(self, session_id: str) -> None:
        """Inside a transaction on PostgreSQL: hold the session's row until commit."""
        if not self.sqlite and self.in_transaction:
            self.session(session_id)

    # -- sessions ------------------------------------------------------------------------

    def create_session(
        self, game: str, config: dict[str, Any], code: str | None = None, status: str = "active"
    ) -> str:
        session_id = uuid.uuid4().hex[:12]
        now = time.time()
        with self.transaction():
            self.write(
                "INSERT INTO sessions (id, game, config, code, status, created, updated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, game, json.dumps(config), code, status, now, now),
            )
            txn: _Transaction = self._local.txn
            # Made here, so known (and on PostgreSQL locked: no one else can see it yet).
            txn.rows[session_id] = SessionRow(session_id, game, config, code, status, now, now)
            txn.locked.add(session_id)
        return session_id

    def session(self, session_id: str) -> SessionRow | None:
        """The session's row; inside a transaction read once (on PostgreSQL that read locks
        it: the row cannot change but through this Store until the commit)."""
        txn: _Transaction | None = getattr(self._local, "txn", None)
        if txn is not None and session_id in txn.rows:
            return txn.rows[session_id]
        lock = txn is not None and not self.sqlite
        # Locking on PostgreSQL is this same read, FOR UPDATE (one round trip).
        sql = "SELECT * FROM sessions WHERE id = ?" + (" FOR UPDATE" if lock else "")
        rows = self.execute(sql, (session_id,))
        row = _row(rows[0]) if rows else None
        if txn is not None and row is not None:
            self._keep(txn, row)
        return row

    def _keep(self, txn: _Transaction, row: SessionRow) -> None:
        """Remember a session's row for the rest of the transaction; on PostgreSQL it was
        read FOR UPDATE, so it is locked too."""
        txn.rows[row.id] = row
        if not self.sqlite:
            txn.locked.add(row.id)

    def session_read_with(self, id_sql: str) -> str:
        """A ``WITH`` item, ``s``, for a read that also wants the session whose id the scalar
        query ``id_sql`` gives: the read takes its columns (``s.*``, under a join that keeps
        its own rows when there is none) and hands its first row to ``took_session``. Inside
        a transaction on PostgreSQL the row is locked (FOR UPDATE) as ``session`` would: one
        statement instead of two, one round trip less, and still a prepared statement."""
        lock = " FOR UPDATE" if self.in_transaction and not self.sqlite else ""
        return f"s AS (SELECT * FROM sessions WHERE id = ({id_sql}){lock})"

    def took_session(self, r: Row) -> SessionRow | None:
        """The session's row from a read made with ``session_read_with`` (None if it found
        none); inside a transaction ``session`` answers from it, reading nothing."""
        if r.get("id") is None:
            return None
        txn: _Transaction | None = getattr(self._local, "txn", None)
        if txn is not None and r["id"] in txn.rows:
            return txn.rows[r["id"]]  # what this transaction knows (and may have changed) stands
        row = _row(r)
        if txn is not None:
            self._keep(txn, row)
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
        now = time.time()
        with self.transaction():
            self.write("UPDATE sessions SET status = ?, updated = ? WHERE id = ?", (status, now, session_id))
            txn: _Transaction = self._local.txn
            if (row := txn.rows.get(session_id)) is not None:
                txn.rows[session_id] = replace(row, status=status, updated=now)

    # -- the log -------------------------------------------------------------------------

    def inputs(self, session_id: str, after: int = 0) -> list[StoredInput]:
        rows = self.execute(
            "SELECT seq, at, body FROM inputs WHERE session_id = ? AND seq > ? ORDER BY seq",
            (session_id, after),
        )
        return [StoredInput(r["seq"], r["at"], json.loads(r["body"])) for r in rows]

    def last_seq(self, session_id: str) -> int:
        """The seq of the session's last input (0: none, or no such session); inside a
        transaction from its row, which that locks on PostgreSQL."""
        if self.in_transaction:
            row = self.session(session_id)
            return row.seq if row is not None else 0
        rows = self.execute("SELECT seq FROM sessions WHERE id = ?", (session_id,))
        return int(rows[0]["seq"]) if rows else 0

    def append(self, session_id: str, body: dict[str, Any], at: float) -> int:
        with self.transaction():
            row = self.session(session_id)
            if row is None:
                raise KeyError(session_id)
            seq = row.seq + 1
            # The session's row follows by itself (its seq and time: the migrations' trigger).
            self.write(
                "INSERT INTO inputs (session_id, seq, at, body) VALUES (?, ?, ?, ?)",
                (session_id, seq, at, json.dumps(body)),
            )
            txn: _Transaction = self._local.txn
            txn.rows[session_id] = replace(row, seq=seq, updated=at)
        return seq

    # -- turn clocks (host/timeouts.py) --------------------------------------------------

    def running_clocks(self, now: float, own_deadlines: Collection[str]) -> list[tuple[str, int, float]]:
        """Active sessions whose clock may be running, with their latest input (session,
        its seq, its time): a turn limit at least half gone (``sessions.clock``, kept by the
        migrations' trigger, indexed), or a game in ``own_deadlines`` (one that sets
        deadlines of its own, judged step by step by the caller). Only those are read: the
        timer asks every second, whatever the number of open games."""
        own = sorted(own_deadlines)
        games = "".join(" OR s.game = ?" for _ in own)
        rows = self.execute(
            "SELECT s.id AS id, i.seq AS seq, i.at AS at"
            " FROM sessions s JOIN inputs i ON i.session_id = s.id AND i.seq = s.seq"
            f" WHERE (s.clock <= ?{games}) AND s.status = 'active'",
            (now, *own),
        )
        return [(str(r["id"]), int(r["seq"]), float(r["at"])) for r in rows]

    def clock_quiet(self, session_id: str, seq: int) -> None:
        """Nothing is timed in the session until its next input (which sets its clock
        again): the timer stops reading it."""
        self.execute("UPDATE sessions SET clock = NULL WHERE id = ? AND seq = ?", (session_id, seq))

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
        """The reply stored under ``key``, if any (inside a transaction looked up once)."""
        return self.replies(key).get(key)

    def replies(self, *keys: str, also: Read | None = None) -> dict[str, dict[str, Any]]:
        """The replies stored under any of ``keys``, in one look; inside a transaction each
        key is looked up once. On PostgreSQL, inside a transaction, each key is locked
        first: the same webhook on two workers at once, the second waits for the first's
        reply. ``also`` is read right after the look-up, in the same round trip (so after
        the keys' locks): a request that will want it anyway saves a trip."""
        txn: _Transaction | None = getattr(self._local, "txn", None)
        known = txn.replies if txn is not None else {}
        wanted = sorted({k for k in keys if k not in known})
        if wanted:
            if txn is not None and not self.sqlite:
                # Sent with the read, in one round trip; the read sees what the wait let in.
                locks = ", ".join("pg_advisory_xact_lock(hashtextextended(?, 0))" for _ in wanted)
                self.write(f"SELECT {locks}", wanted)
            marks = ", ".join("?" for _ in wanted)
            rows = self._execute(f"SELECT key, body FROM replies WHERE key IN ({marks})", wanted, also)[0]
            found = {r["key"]: r["body"] for r in rows}
            if txn is None:
                known = found
            else:
                known.update({k: found.get(k) for k in wanted})
        elif also is not None:
            also.took(self.execute(also.sql, also.params))
        return {k: json.loads(body) for k in keys if (body := known.get(k)) is not None}

    def save_reply(self, key: str, session_id: str | None, body: dict[str, Any]) -> None:
        text = json.dumps(body)
        with self.transaction():
            self.write(
                "INSERT INTO replies (key, session_id, body, at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id,"
                " body = excluded.body, at = excluded.at",
                (key, session_id, text, time.time()),
            )
            txn: _Transaction = self._local.txn
            txn.replies[key] = text


def _fetched(cursor: Any) -> tuple[list[Row], int]:
    """A SQLite statement's rows (as dicts) and count; the cursor is done with."""
    try:
        if cursor.description is None:
            return [], cursor.rowcount
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()], cursor.rowcount
    finally:
        cursor.close()


def _grouped(pending: list[tuple[str, Any, bool]]) -> Iterator[tuple[str, Any, bool]]:
    """Consecutive single rows of one statement as one ``executemany``."""
    i = 0
    while i < len(pending):
        sql, params, many = pending[i]
        j = i + 1
        if not many:
            while j < len(pending) and pending[j][0] == sql and not pending[j][2]:
                j += 1
        if j - i > 1:
            yield sql, [p[1] for p in pending[i:j]], True
        else:
            yield sql, params, many
        i = j


class _RoundTrip:
    """What the cursor listeners are handed as the cursor of a PostgreSQL round trip (a new
    one each trip: tests/bench/statements.py counts them)."""

    __slots__ = ()


@lru_cache(maxsize=1024)
def _numbered(sql: str) -> tuple[bytes, tuple[str | None, ...]]:
    """``sql`` with PostgreSQL's own placeholders (``$1``, ``$2``, ...) for the protocol's
    parameters, and what each stands for: a ``:name``, or None for the next ``?``. Only
    looked for outside quotes."""
    names: list[str | None] = []

    def number(m: re.Match[str]) -> str:
        name = m.group(1)
        if name is None or name not in names:
            names.append(name)
            return f"${len(names)}"
        return f"${names.index(name) + 1}"

    parts = sql.split("'")
    for i in range(0, len(parts), 2):
        parts[i] = _PLACEHOLDER.sub(number, parts[i])
    return "'".join(parts).encode(), tuple(names)


#: Statements worth keeping prepared on the server (a plan cached per connection).
_PREPARABLE = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b", re.IGNORECASE)
#: Prepared statements one connection keeps at most, and names given out in all; past them a
#: statement is sent unnamed (parsed and planned each time).
MAX_PREPARED = 256
MAX_NAMES = 4096
_names: dict[tuple[bytes, tuple[int, ...]], bytes] = {}  # (statement, parameter types) -> its name
_numbers = itertools.count(1)  # for the names (next() is atomic: no two statements get one)
_prepared: weakref.WeakKeyDictionary[Any, set[bytes]] = weakref.WeakKeyDictionary()  # connection -> names


def _pg_pipeline(raw: psycopg.Connection[Any], statements: list[tuple[str, Any]]) -> list[Result]:
    """``Store._pipeline`` without the listeners: psycopg's own adapters dump the values and
    load the rows (as psycopg's cursors would), libpq sends everything at once and psycopg's
    wait function waits for the answers (the GIL let go)."""
    pgconn = raw.pgconn
    tx = Transformer(raw)
    known = _prepared.get(raw)
    if known is None:
        known = _prepared[raw] = set()
    # Every value is dumped before anything is sent: one psycopg cannot adapt fails here,
    # with the connection untouched.
    sends: list[tuple[bytes, bytes | None, bool, Any, tuple[int, ...], Any]] = []
    parsing: set[bytes] = set()
    for sql, params in statements:
        query, names = _numbered(sql)
        values = [params[n] for n in names] if isinstance(params, Mapping) else params if names else ()
        dumped: Sequence[Any] = ()
        types: tuple[int, ...] = ()
        formats: list[Any] = []
        if values:
            dumped = tx.dump_sequence(values, [PyFormat.AUTO] * len(values))
            types, formats = tuple(tx.types or ()), list(tx.formats or ())
        name = _names.get((query, types))
        if name is None and _PREPARABLE.match(sql) and len(_names) < MAX_NAMES:
            name = _names.setdefault((query, types), b"gamehost_%d" % next(_numbers))
        fresh = name is not None and name not in known and name not in parsing
        if fresh and len(known) + len(parsing) >= MAX_PREPARED:
            name, fresh = None, False
        if fresh:
            assert name is not None
            parsing.add(name)
        sends.append((query, name, fresh, dumped, types, formats))
    pgconn.enter_pipeline_mode()
    try:
        for query, name, fresh, dumped, types, formats in sends:
            if name is None:
                pgconn.send_query_params(query, dumped, types, formats)
                continue
            if fresh:
                pgconn.send_prepare(name, query, types)
            pgconn.send_query_prepared(name, dumped, formats)
        pgconn.pipeline_sync()
        results = raw.wait(_communicate(pgconn))
        pgconn.exit_pipeline_mode()
    except BaseException:
        if pgconn.pipeline_status:  # answers left unread: the connection cannot be used again
            pgconn.finish()
        raise
    out: list[Result] = []
    error: psycopg.Error | None = None
    it = iter(results)
    for _, name, fresh, *_ in sends:
        if fresh and name is not None:  # the Parse's own result first
            made = next(it)
            if made.status == pq.ExecStatus.COMMAND_OK:
                known.add(name)
            elif made.status == pq.ExecStatus.FATAL_ERROR and error is None:
                error = psycopg.errors.error_from_result(made, encoding=raw.info.encoding)
        res = next(it)
        if res.status == pq.ExecStatus.TUPLES_OK:
            tx.set_pgresult(res)
            columns = [res.fname(i).decode() for i in range(res.nfields)]
            loaded = tx.load_rows(0, res.ntuples, tuple)
            rows: list[Row] = [dict(zip(columns, v, strict=True)) for v in loaded]
            out.append((rows, int(res.ntuples)))
        elif res.status == pq.ExecStatus.COMMAND_OK:
            out.append(([], res.command_tuples if res.command_tuples is not None else -1))
        else:  # FATAL_ERROR, or PIPELINE_ABORTED after one
            if error is None and res.status == pq.ExecStatus.FATAL_ERROR:
                error = psycopg.errors.error_from_result(res, encoding=raw.info.encoding)
            out.append(([], -1))
    if error is not None:
        raise error
    return out


def _communicate(pgconn: Any) -> Generator[Wait, Ready | int, list[Any]]:
    """Send what libpq holds and read the results up to the pipeline's sync (psycopg's wait
    protocol: yield what to wait for, get what is ready)."""
    results: list[Any] = []
    while True:
        ready = yield (Wait.RW if pgconn.flush() else Wait.R)
        if ready & Ready.R:
            pgconn.consume_input()
            while not pgconn.is_busy():
                res = pgconn.get_result()
                if res is None:
                    continue  # the end of one statement's results
                if res.status == pq.ExecStatus.PIPELINE_SYNC:
                    return results
                results.append(res)


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
    # The WAL is copied into the database by _Checkpointer, off the writers' path; a commit
    # does it itself only if that falls far behind.
    cur.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
    cur.close()


#: Seconds between background checkpoints of each open SQLite file.
CHECKPOINT_EVERY = 1.0
#: WAL pages (4 KB) after which a commit checkpoints by itself anyway (SQLite's default: 1000).
AUTOCHECKPOINT_PAGES = 10_000


class _Checkpointer:
    """Copies the write-ahead log of every SQLite file open in this process back into the
    database, on a thread of its own, every CHECKPOINT_EVERY seconds. SQLite otherwise does
    it inside the commit that crosses 1,000 pages, with two fsyncs, holding up every other
    request of the process for as long (2 % of commits took over 2 ms, up to 20 ms). A
    PASSIVE checkpoint never waits for readers or writers: it copies what it can."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, tuple[int, Any]] = {}  # path -> (stores using it, our connection)
        self._thread: threading.Thread | None = None

    def add(self, path: str) -> None:
        import sqlite3

        with self._lock:
            count, conn = self._open.get(path, (0, None))
            if conn is None:
                conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=0)
            self._open[path] = (count + 1, conn)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
                self._thread.start()

    def remove(self, path: str) -> None:
        with self._lock:
            count, conn = self._open.get(path, (0, None))
            if count > 1:
                self._open[path] = (count - 1, conn)
            elif conn is not None:
                del self._open[path]
                conn.close()

    def _run(self) -> None:
        while True:
            time.sleep(CHECKPOINT_EVERY)
            with self._lock:
                for path, (_, conn) in self._open.items():
                    try:
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    except Exception:  # busy or gone: the next round (or a commit) does it
                        log.debug("checkpoint of %s skipped", path, exc_info=True)


_checkpointer = _Checkpointer()


def _row(r: Row) -> SessionRow:
    return SessionRow(
        id=r["id"],
        game=r["game"],
        config=json.loads(r["config"]),
        code=r["code"],
        status=r["status"],
        created=r["created"],
        updated=r["updated"],
        seq=int(r["seq"]),
    )


__all__ = ["Engine", "Read", "Row", "SessionRow", "Store", "StoredInput", "database_url", "describe"]
