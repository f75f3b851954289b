"""A referee over a real SQLite file or PostgreSQL database, on a clock the test moves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from host.referee import Referee
from host.store import Store
from tests.clock import Clock


@pytest.fixture
def clock() -> Clock:
    return Clock(1_000_000.0)


@pytest.fixture
def referee(database: str, clock: Clock) -> Iterator[Referee]:
    store = Store(database)
    yield Referee(store, clock)
    store.close()
