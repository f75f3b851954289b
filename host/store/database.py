"""The Store's engine: connections, transactions and statements (see :mod:`host.store`)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from sqlalchemy import Connection, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

from host.migrations import upgrade
from host.store.errors import unavailable
from host.store.outcome import backend_pid, landed
from host.store.pg_pipeline import RoundTrip, pg_pipeline
from host.store.placeholders import native_placeholders
from host.store.rows import Params, Result, Row, SessionRow
from host.store.sqlite import checkpointer, fetched, grouped, sqlite_pragmas
from host.store.urls import database_url, describe

log = logging.getLogger(__name__)

#: PostgreSQL connections a Store keeps, with no overflow: past these transactions at once a
#: thread waits for a connection. Overflow connections were closed on return and opened
#: again (a new server process each) under load: 1 worker 84-90 -> 116-123 req/s.
PG_CONNECTIONS = 16


@dataclass(frozen=True)
class Read:
    """A read that can go to the database with another in one round trip (``Store.replies``
    takes one as ``also``): its statement, and what takes its rows."""

    sql: str
    params: Params
    took: Callable[[list[Row]], object]


@dataclass
class Transaction:
    """This thread's open transaction: its connection, and what it has read and not yet
    written."""

    conn: Connection
    raw: Any  # the driver's connection under ``conn``
    pid: int | None = None  # PostgreSQL's server process for it
    began: float = 0.0  # when it began (wall clock), to know that process again
    depth: int = 1
    locked: set[str] = field(default_factory=set)  # sessions whose rows are locked (PostgreSQL)
    rows: dict[str, SessionRow] = field(default_factory=dict)
    replies: dict[str, str | None] = field(default_factory=dict)  # key -> stored body (JSON)
    marks: dict[str, str] = field(default_factory=dict)  # replies this transaction stored
    pending: list[tuple[str, Any, bool]] = field(default_factory=list)  # (native sql, params, many)
    after: list[Callable[[], None]] = field(default_factory=list)
    memo: dict[str, Any] = field(default_factory=dict)


class Database:
    """Connections, transactions and statements, one code path for SQLite and PostgreSQL
    (see :mod:`host.store`). :class:`host.store.Store` adds the tables' own reads and writes."""

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
            event.listen(self.engine, "connect", sqlite_pragmas)
            self._shared = self.engine.connect()
            self._shared_raw = self._shared.connection.dbapi_connection
            self._lock = threading.RLock()
            if url.database:
                checkpointer.add(url.database)
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
                    checkpointer.remove(self.path)
            self.engine.dispose()

    # -- connections and transactions ----------------------------------------------------

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """This thread's SQLAlchemy connection: its open transaction's, or one for a single
        use (migrations; everything else goes through ``execute``)."""
        txn: Transaction | None = getattr(self._local, "txn", None)
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
    def transaction(self) -> Iterator[Self]:
        """A write transaction; nested calls (in this thread) join the outer one."""
        txn: Transaction | None = getattr(self._local, "txn", None)
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
                pid = None if self.sqlite else backend_pid(raw)
                txn = Transaction(conn, raw, pid=pid, began=time.time())
                if self.sqlite:
                    self._run(conn, raw, "BEGIN IMMEDIATE", ())
                else:
                    txn.pending.append(("BEGIN", None, False))  # goes with the first statement
                self._local.txn = txn
                try:
                    yield self
                except BaseException:
                    self._rollback(conn, raw)
                    raise
                try:
                    # The writes still waiting, and the commit (one round trip on PostgreSQL).
                    self._flush(txn, then=("COMMIT", ()))
                except BaseException as exc:
                    self._rollback(conn, raw)
                    if not self._committed_after_all(txn, exc):
                        raise
                committed = txn.after
            finally:
                self._local.txn = None
                if conn is not self._shared:
                    conn.close()
        run_all(committed)

    def _committed_after_all(self, txn: Transaction, exc: BaseException) -> bool:
        """Whether a transaction whose commit failed committed all the same: only a
        PostgreSQL connection lost on the way (its outcome unknown), for a transaction that
        stored a reply to look up (host/store/outcome.py)."""
        if self.sqlite or not txn.marks or unavailable(exc) != "unreachable":
            return False
        found = landed(self.engine, txn.marks, txn.pid, txn.began)
        keys = ", ".join(sorted(txn.marks))
        if found:
            log.warning("the connection was lost at COMMIT, but it committed (reply %s): going on", keys)
        else:
            said = "it did not" if found is False else "it could not be looked up"
            log.warning("the connection was lost at COMMIT, and %s commit (reply %s)", said, keys)
        return bool(found)

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
        txn: Transaction | None = getattr(self._local, "txn", None)
        if txn is not None:
            txn.after.append(action)
        else:
            run_all([action])

    def memo(self, name: str) -> dict[Any, Any] | None:
        """A dict of this thread's transaction, for what it has read (or made) and should
        not read again; gone when the transaction ends, whether it commits or not. None
        outside a transaction."""
        txn: Transaction | None = getattr(self._local, "txn", None)
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
        txn: Transaction | None = getattr(self._local, "txn", None)
        if txn is None:
            self._execute(sql, params)
        else:
            txn.pending.append((sql, params, False))

    def write_many(self, sql: str, rows: Iterable[Params]) -> None:
        """``write`` for several rows of one statement."""
        rows = list(rows)
        if not rows:
            return
        txn: Transaction | None = getattr(self._local, "txn", None)
        if txn is None:
            with self.transaction():
                self.write_many(sql, rows)
        else:
            txn.pending.append((sql, rows, True))

    def _execute(self, sql: str, params: Params, also: Read | None = None) -> Result:
        """Run ``sql`` now (and ``also`` after it, in the same round trip): its rows and count."""
        txn: Transaction | None = getattr(self._local, "txn", None)
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
        self, txn: Transaction, then: tuple[str, Params] | None = None, also: Read | None = None
    ) -> Result:
        """Run the transaction's waiting statements, then ``then`` (its rows and count are
        returned) and ``also`` (its rows go to its ``took``)."""
        pending, txn.pending = txn.pending, []
        if then is not None and then[0] == "COMMIT" and [p[0] for p in pending] == ["BEGIN"]:
            return [], 0  # nothing was read or written: nothing to send
        if self.sqlite:
            for sql, params, many in grouped(pending):
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
        return fetched(cursor)

    def _pipeline(self, conn: Connection, raw: Any, statements: list[tuple[str, Any]]) -> list[Result]:
        """PostgreSQL: ``statements`` in one round trip, each as a server-side prepared statement
        (made on its first use on the connection), in libpq's pipeline mode: the rows and
        count of each. Each statement still sees what committed before it began (its own
        snapshot, as when sent one by one); the first error stops the rest and is raised."""
        trip = RoundTrip()  # the listeners' "cursor": one per round trip
        for sql, params in statements:
            self._seen(conn, trip, native_placeholders(sql, True), params)
        return pg_pipeline(raw, statements)

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


def run_all(actions: list[Callable[[], None]]) -> None:
    for action in actions:
        try:
            action()
        except Exception:  # the commit stands; one failed follow-up must not undo it
            log.exception("an action after a commit failed")
