"""Fixtures shared by the phone channels' tests; the suite's time by folder
(tests/timing.py), its timeouts stretched on a busy machine (tests/timeouts.py) and its
slowest tests started first under xdist (tests/order.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import order, pg, timeouts, timing
from tests.pg import PgServer
from tests.twilio_helpers import FakeTwilio


def pytest_configure(config: pytest.Config) -> None:
    timing.register(config)
    timeouts.register(config)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    order.slowest_first(items)


@pytest.fixture
def fake() -> Iterator[FakeTwilio]:
    """A local stand-in for Twilio's REST API that the real twilio Client talks to."""
    with FakeTwilio() as fake:
        yield fake


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One private PostgreSQL cluster for the whole test run (see tests/pg.py)."""
    if not pg.available():
        pytest.skip("PostgreSQL 15 binaries are not installed (scripts/test installs postgresql-15)")
    yield from pg.serve()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's Store lives: a SQLite file, then a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "gamehost.sqlite3")
    server: PgServer = request.getfixturevalue("pg_server")
    return server.migrated_database()
