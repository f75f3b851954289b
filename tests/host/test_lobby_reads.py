"""What a text reads about its sender, on SQLite and PostgreSQL: their game's members and
its row come in one statement (``Lobby.game_of``), the row is then known to the
transaction and, on PostgreSQL, locked until it ends; that statement goes in one round trip
with the look-up of the text's stored reply (after its key's lock); a second worker reading
the same game waits for the first and sees the row as the first left it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import event

from host.lobby import Lobby
from host.referee import Referee
from host.session import SessionConfig
from host.store import Store
from tests.host.statements import statements_seen

ANN, BOB, STRANGER = "+15550100001", "+15550100002", "+15550100099"


@pytest.fixture
def lobby(database: str) -> Iterator[Lobby]:
    store = Store(database)
    yield Lobby(Referee(store))
    store.close()


def _psycopg_url(store: Store) -> str:
    return store.url.replace("postgresql+psycopg://", "postgresql://")


def _locked_elsewhere(store: Store, session_id: str) -> bool:
    """Whether another connection finds the session's row locked."""
    with psycopg.connect(_psycopg_url(store), autocommit=True) as other:
        try:
            other.execute("SELECT 1 FROM sessions WHERE id = %s FOR UPDATE NOWAIT", (session_id,))
        except psycopg.errors.LockNotAvailable:
            return True
    return False


def test_a_text_reads_its_senders_game_row_with_the_members(lobby: Lobby) -> None:
    store = lobby.store
    joined = lobby.create(ANN, "Ann", "sms", SessionConfig(game="up-or-down"))
    lobby.join(BOB, joined.code, "Bob", "sms")
    seq = store.append(joined.session_id, {"kind": "note", "text": "Ann's 100% \u00e9"}, 5.0)
    statements = statements_seen(store)
    with store.transaction():
        member = lobby.game_of(BOB)
        assert member is not None and member.session_id == joined.session_id
        before = len(statements)
        row = store.session(joined.session_id)
        assert len(statements) == before  # read with the members: no statement of its own
        assert row is not None and (row.id, row.code, row.seq, row.updated) == (
            joined.session_id,
            joined.code,
            seq,
            5.0,
        )
        assert [m.name for m in lobby.members(joined.session_id)] == ["Ann", "Bob"]
        assert len(statements) == before
        if not store.sqlite:
            assert _locked_elsewhere(store, joined.session_id)  # until the commit
    if not store.sqlite:
        assert not _locked_elsewhere(store, joined.session_id)
    assert store.session(joined.session_id) == row


def test_the_stored_reply_and_the_senders_game_come_in_one_round_trip(lobby: Lobby) -> None:
    store = lobby.store
    joined = lobby.create(ANN, "Ann", "sms", SessionConfig(game="up-or-down"))
    lobby.join(BOB, joined.code, "Bob", "sms")
    store.save_reply("sms:SM1", joined.session_id, {"messages": ["hi"]})
    trips: list[tuple[Any, str]] = []  # (the cursor each went on, statement)

    def seen(conn: Any, cursor: Any, sql: str, *_: Any) -> None:
        trips.append((cursor, sql))

    event.listen(store.engine, "before_cursor_execute", seen)
    with store.transaction():
        saved = store.replies("sms:SM1", "sms:SM2", also=lobby.reading_game_of(BOB))
        assert saved == {"sms:SM1": {"messages": ["hi"]}}
        sent = len(trips)
        member = lobby.member(BOB)
        assert member is not None and member.session_id == joined.session_id
        row = store.session(joined.session_id)
        assert row is not None and row.code == joined.code
        assert [m.name for m in lobby.members(joined.session_id)] == ["Ann", "Bob"]
        assert len(trips) == sent  # all known from that look
        if not store.sqlite:
            assert _locked_elsewhere(store, joined.session_id)
    words = [sql.split()[0] for _, sql in trips]
    if store.sqlite:
        assert words == ["BEGIN", "SELECT", "WITH", "COMMIT"]  # the reply, then the game
    else:
        assert words == ["BEGIN", "SELECT", "SELECT", "WITH", "COMMIT"]
        assert "pg_advisory_xact_lock" in trips[1][1] and "FROM replies" in trips[2][1]
        assert len({id(cursor) for cursor, _ in trips[:4]}) == 1  # one round trip


def test_a_stranger_has_no_game_row_and_later_reads_still_go_to_the_database(lobby: Lobby) -> None:
    store = lobby.store
    joined = lobby.create(ANN, "Ann", "sms", SessionConfig(game="up-or-down"))
    statements = statements_seen(store)
    with store.transaction():
        assert lobby.game_of(STRANGER) is None
        before = len(statements)
        row = store.session(joined.session_id)
        assert row is not None and row.id == joined.session_id
        assert len(statements) == before + 1  # not known: read now
        if not store.sqlite:
            assert _locked_elsewhere(store, joined.session_id)  # and locked by that read


def test_a_second_worker_on_the_same_game_waits_and_sees_the_first_ones_move(database: str) -> None:
    if "://" not in database:
        pytest.skip("SQLite's writers are one at a time already (BEGIN IMMEDIATE)")
    first, second = Store(database), Store(database)  # two workers
    try:
        lobbies = Lobby(Referee(first)), Lobby(Referee(second))
        joined = lobbies[0].create(ANN, "Ann", "sms", SessionConfig(game="up-or-down"))
        seq = first.append(joined.session_id, {"kind": "note"}, 1.0)
        holding, seen = threading.Event(), []

        def other() -> None:
            holding.wait()
            with second.transaction():
                lobbies[1].game_of(ANN)  # waits for the first worker's commit
                row = second.session(joined.session_id)
                seen.append(row.seq if row is not None else None)

        thread = threading.Thread(target=other)
        thread.start()
        with first.transaction():
            lobbies[0].game_of(ANN)
            first.append(joined.session_id, {"kind": "note"}, 2.0)
            holding.set()
            with psycopg.connect(_psycopg_url(first), autocommit=True) as watch:
                while (
                    thread.is_alive()
                    and not watch.execute(  # the other waits for this row
                        "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                        " AND datname = current_database()"
                    ).fetchone()
                ):
                    time.sleep(0.01)
        thread.join(30)
        assert not thread.is_alive()
        assert seen == [seq + 1]
    finally:
        first.close()
        second.close()
