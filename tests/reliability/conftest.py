"""Fixtures the reliability tests share with the channel suites."""

from tests.sms.conftest import clock, sms  # noqa: F401
