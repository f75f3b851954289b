"""GAMEHOST_DATABASE_URL: unset is the SQLite file of GAMEHOST_DB; URLs name either engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from host.config import Settings
from host.migrations import head
from host.store import Store, database_url, describe
from tests.pg import PgServer


def test_unset_or_empty_is_the_sqlite_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAMEHOST_DB", str(tmp_path / "g.sqlite3"))
    monkeypatch.setenv("GAMEHOST_DATABASE_URL", "")
    assert Settings().database == str(tmp_path / "g.sqlite3")
    monkeypatch.setenv("GAMEHOST_DATABASE_URL", "postgresql://u:secret@db:5432/games")
    assert Settings().database == "postgresql://u:secret@db:5432/games"


def test_urls_and_paths() -> None:
    assert database_url("/var/g.sqlite3") == "sqlite:////var/g.sqlite3"
    assert database_url("sqlite:///rel.sqlite3") == "sqlite:///rel.sqlite3"
    assert database_url(":memory:") == "sqlite://"
    assert database_url("postgresql://u:p@h/d") == "postgresql+psycopg://u:p@h/d"
    assert describe("postgresql://u:secret@h:5432/d") == "postgresql://u:***@h:5432/d"


def test_a_sqlite_url_opens_a_migrated_file(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'u.sqlite3'}")
    try:
        assert store.sqlite and (tmp_path / "u.sqlite3").exists()
        assert store.execute("SELECT version_num FROM alembic_version")[0]["version_num"] == head()
        assert not store.migrate()  # nothing left to do
    finally:
        store.close()


def test_postgresql_is_migrated_on_open(pg_server: PgServer) -> None:
    url = pg_server.new_database()
    store = Store(url)
    try:
        assert not store.sqlite and store.dialect == "postgresql"
        assert store.execute("SELECT version_num FROM alembic_version")[0]["version_num"] == head()
        rows = store.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        expected = {"sessions", "inputs", "replies", "outbox", "members", "turn_reminders", "voice_calls"}
        assert expected <= {r["tablename"] for r in rows}
    finally:
        store.close()
