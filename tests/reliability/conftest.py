"""Issue 12 (trust): one test module per item. The SMS host of tests/sms (real SQLite file,
real signatures, fake Twilio REST servers only) is reused here."""

from __future__ import annotations

from tests.sms.conftest import clock, sms  # noqa: F401  (fixtures)
