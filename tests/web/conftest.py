"""The web pages over the same SMS host the SMS suites use (signed texts, a real SQLite file),
and Debian's Chromium through Playwright: one browser a test module, a fresh context a test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from tests.clock import Clock
from tests.sms.conftest import Sms, build
from tests.twilio_helpers import FakeTwilio
from tests.web.browser import CHROMIUM, FLAGS

ADMIN = "s3cret-admin-token-for-tests"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def sms(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> Iterator[Sms]:
    host = build(tmp_path, fake, clock, admin_token=ADMIN)
    yield host
    host.app.state.store.close()


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    # No skip without a browser: scripts/test installs Debian's Chromium. Not for the whole
    # session: Playwright's sync API leaves its event loop running in the thread, and a later
    # test's asyncio.run() fails (tests/reliability/test_crash_between.py).
    assert CHROMIUM.exists(), "no /usr/bin/chromium: apt-get install chromium (scripts/test does)"
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def module_chromium(playwright: Any) -> Iterator[Any]:
    """One Chromium for the module's tests (starting one takes a second or two of CPU)."""
    chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
    yield chromium
    chromium.close()


@pytest.fixture
def browser(module_chromium: Any) -> Iterator[Any]:
    """A fresh browser context (its own cookies, storage and cache, as a new profile) in the
    module's Chromium; a test that needs other launch flags (a fake microphone) starts its
    own with tests/web/browser.py's ``chromium``."""
    context = module_chromium.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    yield context
    context.close()
