"""SQLite: a cursor's rows, single rows of one statement as one ``executemany``, the
connection pragmas (WAL), and the checkpointer that keeps the WAL short off the writers'
path."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from typing import Any

from host.store.rows import Row

log = logging.getLogger(__name__)


def fetched(cursor: Any) -> tuple[list[Row], int]:
    """A SQLite statement's rows (as dicts) and count; the cursor is done with."""
    try:
        if cursor.description is None:
            return [], cursor.rowcount
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()], cursor.rowcount
    finally:
        cursor.close()


def grouped(pending: list[tuple[str, Any, bool]]) -> Iterator[tuple[str, Any, bool]]:
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


def sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    # The WAL is copied into the database by the Checkpointer, off the writers' path; a commit
    # does it itself only if that falls far behind.
    cur.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
    cur.close()


#: Seconds between background checkpoints of each open SQLite file.
CHECKPOINT_EVERY = 1.0
#: WAL pages (4 KB) after which a commit checkpoints by itself anyway (SQLite's default: 1000).
AUTOCHECKPOINT_PAGES = 10_000


class Checkpointer:
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


checkpointer = Checkpointer()
