"""The Store's own promises, on SQLite and PostgreSQL: statements reach the database in
order, writes that wait for the commit are read back inside the transaction and gone with
a rollback, nothing is looked up twice in a transaction, the session's row follows its log
whoever writes it, and SQLAlchemy's cursor listeners see every statement."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest

from host.store import Store
from host.store.placeholders import native_placeholders, numbered_placeholders
from host.store.sqlite import checkpointer
from tests.host.statements import statements_seen


class Boom(Exception):
    pass


@pytest.fixture
def db(database: str) -> Any:
    store = Store(database)
    yield store
    store.close()


def test_placeholders_become_the_drivers_own() -> None:
    sql = "SELECT a FROM t WHERE b = ? AND c = :name AND d LIKE '%?:x%' AND e::text = ?"
    assert native_placeholders(sql, False) == sql
    assert native_placeholders(sql, True) == (
        "SELECT a FROM t WHERE b = %s AND c = %(name)s AND d LIKE '%%?:x%%' AND e::text = %s"
    )


def test_postgresql_numbers_its_parameters() -> None:
    sql = "SELECT a FROM t WHERE b = ? AND c = :name AND d LIKE '%?:x%' AND e::text = ? AND f = :name"
    assert numbered_placeholders(sql) == (
        b"SELECT a FROM t WHERE b = $1 AND c = $2 AND d LIKE '%?:x%' AND e::text = $3 AND f = $2",
        (None, "name", None),
    )


def test_postgresql_prepares_a_statement_once_per_connection(database: str) -> None:
    """Each statement is a server-side prepared statement from its first use on a connection,
    also when it comes twice in one round trip; one whose preparing a failed round trip cut
    short is prepared again when next used."""
    if not database.startswith("postgresql"):
        pytest.skip("PostgreSQL's prepared statements")
    db = Store(database)
    try:
        sid = db.create_session("up-or-down", {"game": "up-or-down"})
        with db.transaction():
            db.write("UPDATE sessions SET updated = ? WHERE id = ?", (1.0, sid))
            db.write("UPDATE sessions SET updated = ? WHERE id = ?", (2.0, sid))  # the same, one trip
            assert db.execute("SELECT updated FROM sessions WHERE id = ?", (sid,)) == [{"updated": 2.0}]
            assert db.execute("SELECT updated FROM sessions WHERE id = ?", (sid,)) == [{"updated": 2.0}]
            made = db.execute(
                "SELECT statement FROM pg_prepared_statements"
                " WHERE statement LIKE 'SELECT updated %' OR statement LIKE 'UPDATE sessions %'"
            )
        assert sorted(r["statement"] for r in made) == [
            "SELECT updated FROM sessions WHERE id = $1",
            "UPDATE sessions SET updated = $1 WHERE id = $2",
        ]
        fresh = "SELECT updated + ? AS later FROM sessions WHERE id = ?"
        with pytest.raises(psycopg.IntegrityError), db.transaction():
            db.write("INSERT INTO optouts (address, at) VALUES (?, ?)", ("a", 1.0))
            db.write("INSERT INTO optouts (address, at) VALUES (?, ?)", ("a", 1.0))
            db.execute(fresh, (1.0, sid))  # its Parse is skipped: the trip failed before it
        assert db.execute(fresh, (1.0, sid)) == [{"later": 3.0}]
        assert db.execute(fresh, (2.0, sid)) == [{"later": 4.0}]
    finally:
        db.close()


def test_writes_wait_for_a_read_or_the_commit_and_a_rollback_drops_them(db: Store) -> None:
    statements = statements_seen(db)
    sid = db.create_session("up-or-down", {"game": "up-or-down"})
    with pytest.raises(Boom), db.transaction():
        db.append(sid, {"kind": "seat", "name": "Ann"}, 1.0)
        assert not any(s.startswith("INSERT INTO inputs") for s in statements)  # waiting
        assert [i.body["name"] for i in db.inputs(sid)] == ["Ann"]  # a read sends it first
        db.append(sid, {"kind": "seat", "name": "Bob"}, 2.0)
        raise Boom
    assert db.inputs(sid) == [] and db.last_seq(sid) == 0
    with db.transaction():
        db.append(sid, {"kind": "seat", "name": "Cy"}, 3.0)
    assert [(i.seq, i.body["name"]) for i in db.inputs(sid)] == [(1, "Cy")]


def test_the_sessions_row_follows_its_log_whoever_writes_it(db: Store) -> None:
    sid = db.create_session("up-or-down", {"game": "up-or-down"})
    db.append(sid, {"kind": "seat", "name": "Ann"}, 5.0)
    # Another writer (an older release, a person at the database) logs an input by hand.
    db.execute(
        "INSERT INTO inputs (session_id, seq, at, body) VALUES (?, ?, ?, ?)",
        (sid, 2, 7.0, json.dumps({"kind": "seat", "name": "Bob"})),
    )
    row = db.session(sid)
    assert row is not None and (row.seq, row.updated) == (2, 7.0)
    assert db.last_seq(sid) == 2
    assert db.append(sid, {"kind": "seat", "name": "Cy"}, 8.0) == 3


def test_a_transaction_looks_each_reply_key_up_once(db: Store) -> None:
    statements = statements_seen(db)
    db.save_reply("SM1", None, {"messages": ["hi"]})
    with db.transaction():
        assert db.replies("SM1", "SM2") == {"SM1": {"messages": ["hi"]}}
        before = len(statements)
        assert db.reply("SM1") == {"messages": ["hi"]} and db.reply("SM2") is None
        db.save_reply("SM2", None, {"messages": ["again"]})
        assert db.reply("SM2") == {"messages": ["again"]}
        assert len(statements) == before  # remembered, and the save waits for the commit
    assert db.reply("SM2") == {"messages": ["again"]}


def test_memo_lives_as_long_as_the_transaction(db: Store) -> None:
    assert db.memo("x") is None
    with db.transaction():
        memo = db.memo("x")
        assert memo is not None
        memo["k"] = 1
        with db.transaction():
            assert db.memo("x") == {"k": 1}  # a nested transaction is the same one
    with db.transaction():
        assert db.memo("x") == {}


def test_each_sqlite_file_is_checkpointed_while_a_store_has_it_open(tmp_path: Path) -> None:
    path = str(tmp_path / "g.sqlite3")
    first, second = Store(path), Store(path)
    registry = checkpointer._open
    assert registry[path][0] == 2
    first.close()
    assert registry[path][0] == 1
    second.close()
    second.close()  # twice is harmless
    assert path not in registry


def test_batched_writes_keep_every_value_as_it_was(db: Store) -> None:
    """Writes that wait go with the next read as one batch (on PostgreSQL one round trip):
    quotes, semicolons, percent signs, backslashes,
    Hangul and floats come back exactly, and a failing statement in a batch fails it all."""
    tricky = "Ann's '; DROP TABLE inputs; -- 100% \\ %s %(x)s 한글 \x01"
    sid = db.create_session("up-or-down", {"game": "up-or-down"})
    with db.transaction():
        db.append(sid, {"kind": "seat", "name": tricky}, 1.25)
        db.write_many("INSERT INTO optouts (address, at) VALUES (?, ?)", [(tricky, 2.5), ("b;", 3.0)])
        [back] = db.inputs(sid)
        rows = db.execute("SELECT address, at FROM optouts ORDER BY at")
    assert (back.body["name"], back.at) == (tricky, 1.25)
    assert [(r["address"], r["at"]) for r in rows] == [(tricky, 2.5), ("b;", 3.0)]
    with pytest.raises((sqlite3.IntegrityError, psycopg.IntegrityError)), db.transaction():
        db.write("INSERT INTO optouts (address, at) VALUES (?, ?)", ("c", 4.0))
        db.write("INSERT INTO optouts (address, at) VALUES (?, ?)", ("b;", 5.0))  # the key again
        db.execute("SELECT 1")
    assert len(db.execute("SELECT address FROM optouts")) == 2
