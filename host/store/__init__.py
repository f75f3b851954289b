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

The modules: ``database`` (connections, transactions, statements), ``sessions`` (sessions,
their logs, the turn clocks' reads), ``replies`` (stored replies), ``rows`` (what
statements take and give), ``placeholders``, ``pg_pipeline`` (PostgreSQL's round trips),
``sqlite`` (pragmas, the WAL checkpointer), ``health`` (can it read and write now),
``errors`` (what a driver's error says about the store), ``outcome`` (whether a commit cut
off on its way committed, looked up by its reply) and ``urls``.
"""

from __future__ import annotations

from host.store.database import PG_CONNECTIONS, Read
from host.store.replies import Replies
from host.store.rows import Row, SessionRow, StoredInput
from host.store.sessions import Sessions
from host.store.urls import database_url, describe


class Store(Sessions, Replies):
    """The event log and the host's other tables (made by the migrations)."""


__all__ = [
    "PG_CONNECTIONS",
    "Read",
    "Row",
    "SessionRow",
    "Store",
    "StoredInput",
    "database_url",
    "describe",
]
