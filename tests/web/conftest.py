"""The web pages over the same SMS host the SMS suites use (signed texts, a real SQLite file)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clock import Clock
from tests.sms.conftest import Sms, build
from tests.twilio_helpers import FakeTwilio

ADMIN = "s3cret-admin-token-for-tests"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def sms(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> Iterator[Sms]:
    host = build(tmp_path, fake, clock, admin_token=ADMIN)
    yield host
    host.app.state.store.close()
