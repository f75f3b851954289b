"""PostgreSQL: the statements of a round trip sent at once through libpq's pipeline mode,
each a server-side prepared statement from its first use on a connection, psycopg's
adapters dumping the values and loading the rows."""

from __future__ import annotations

import itertools
import re
import weakref
from collections.abc import Generator, Mapping, Sequence
from typing import Any

import psycopg
from psycopg import pq
from psycopg.adapt import PyFormat, Transformer
from psycopg.waiting import Ready, Wait

from host.store.placeholders import numbered_placeholders
from host.store.rows import Result, Row


class RoundTrip:
    """What the cursor listeners are handed as the cursor of a PostgreSQL round trip (a new
    one each trip: tests/bench/statements.py counts them)."""

    __slots__ = ()


#: Statements worth keeping prepared on the server (a plan cached per connection).
_PREPARABLE = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b", re.IGNORECASE)
#: Prepared statements one connection keeps at most, and names given out in all; past them a
#: statement is sent unnamed (parsed and planned each time).
MAX_PREPARED = 256
MAX_NAMES = 4096
_names: dict[tuple[bytes, tuple[int, ...]], bytes] = {}  # (statement, parameter types) -> its name
_numbers = itertools.count(1)  # for the names (next() is atomic: no two statements get one)
_prepared: weakref.WeakKeyDictionary[Any, set[bytes]] = weakref.WeakKeyDictionary()  # connection -> names


def pg_pipeline(raw: psycopg.Connection[Any], statements: list[tuple[str, Any]]) -> list[Result]:
    """``Database._pipeline`` without the listeners: psycopg's own adapters dump the values and
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
        query, names = numbered_placeholders(sql)
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
