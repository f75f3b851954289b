"""Fixtures shared by the phone channels' tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.twilio_helpers import FakeTwilio


@pytest.fixture
def fake() -> Iterator[FakeTwilio]:
    """A local stand-in for Twilio's REST API that the real twilio Client talks to."""
    with FakeTwilio() as fake:
        yield fake
