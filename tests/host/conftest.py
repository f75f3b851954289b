"""A referee over a real SQLite file, on a clock the test moves."""

from __future__ import annotations

from pathlib import Path

import pytest

from host.referee import Referee
from host.store import Store
from tests.clock import Clock


@pytest.fixture
def clock() -> Clock:
    return Clock(1_000_000.0)


@pytest.fixture
def referee(tmp_path: Path, clock: Clock) -> Referee:
    return Referee(Store(tmp_path / "log.sqlite3"), clock)
