"""The referee's tables in memory: bounded (least recently used out, rebuilt from the log
when used again), and only ever what was committed: a ruling rolled back is forgotten, even
when another input is then logged at the same seq."""

from __future__ import annotations

import pytest

from host.referee import Referee
from host.session import SessionConfig, replay
from host.store import Store
from host.table_cache import TableCache
from tests.clock import Clock


class Crash(Exception):
    """Whatever went wrong after the ruling and before the commit."""


def _start(referee: Referee, mode: str = "tournament") -> str:
    config = SessionConfig.model_validate({"game": "up-or-down", "options": {"mode": mode}})
    return referee.create(config, ["Ann", "Bob"])


def _fresh(referee: Referee, session_id: str) -> object:
    """The state as the log alone has it."""
    row = referee.store.session(session_id)
    assert row is not None
    return replay(SessionConfig.model_validate(row.config), referee.store.inputs(session_id)).state


def test_a_ruling_rolled_back_is_not_remembered_even_at_a_seq_used_again(database: str) -> None:
    # Two referees on one database, as two server processes are.
    stores = [Store(database), Store(database)]
    first, other = (Referee(store, Clock(1_000_000.0)) for store in stores)
    try:
        sid = _start(first)
        seq = first.store.last_seq(sid)
        with pytest.raises(Crash), first.store.transaction():
            assert first.handle(sid, "53", "Ann").accepted
            raise Crash
        assert first.store.last_seq(sid) == seq
        # The other process logs another move at the seq the rolled-back one had.
        assert other.handle(sid, "40", "Ann").accepted
        assert first.store.last_seq(sid) == seq + 1
        table = first.table(sid)
        assert table.moves[-1].move.number == 40
        assert table.state == _fresh(first, sid)
    finally:
        for store in stores:
            store.close()


def test_a_transaction_keeps_its_tables_to_itself_until_it_commits(database: str) -> None:
    store = Store(database)
    referee = Referee(store, Clock(1_000_000.0))
    try:
        sid = _start(referee)
        committed = referee.table(sid)
        with store.transaction():
            referee.handle(sid, "53", "Ann")
            assert referee.table(sid).seq == committed.seq + 1  # its own ruling, in it
            assert referee._cache.get(sid) is committed  # everyone else: the committed one
        assert referee._cache.get(sid) is referee.table(sid)
        assert referee.table(sid).seq == committed.seq + 1
    finally:
        store.close()


def test_sessions_beyond_the_bound_are_rebuilt_from_the_log(database: str) -> None:
    store = Store(database)
    referee = Referee(store, Clock(1_000_000.0), cache_size=2)
    try:
        sessions = [_start(referee, "training") for _ in range(3)]
        for i, sid in enumerate(sessions):
            assert referee.handle(sid, str(50 + 2 * i), "Ann").accepted
        assert len(referee._cache) == 2
        assert sessions[0] not in referee._cache  # the least recently used went
        # Used again, it is folded from its log and goes on where it was.
        assert referee.table(sessions[0]).state == _fresh(referee, sessions[0])
        assert sessions[0] in referee._cache and sessions[1] not in referee._cache
        assert referee.handle(sessions[1], "33", "Bob").accepted
        for sid in sessions:
            assert referee.table(sid).state == _fresh(referee, sid)
    finally:
        store.close()


def test_no_cache_at_all_still_referees(tmp_path: object) -> None:
    store = Store(str(tmp_path) + "/g.sqlite3")
    referee = Referee(store, Clock(1_000_000.0), cache_size=0)
    try:
        sid = _start(referee)
        assert referee.handle(sid, "53", "Ann").accepted
        assert referee.handle(sid, "54", "Bob").accepted
        assert len(referee._cache) == 0
        assert referee.table(sid).state == _fresh(referee, sid)
    finally:
        store.close()


def test_an_older_table_does_not_replace_a_later_one() -> None:
    cache = TableCache(4)
    store = Store(":memory:")
    try:
        referee = Referee(store, Clock(1_000_000.0))
        sid = _start(referee)
        before = referee.table(sid)
        referee.handle(sid, "53", "Ann")
        after = referee.table(sid)
        cache.put(sid, after)
        cache.put(sid, before)  # a slower thread sharing what it committed earlier
        assert cache.get(sid) is after
    finally:
        store.close()
