"""The pages as a new user meets them: an address with a long made-up code is not echoed
whole (!nversion on a phone fitting the screen at every step of its golden games is
tests/web/test_browser.py's, with the other pages drawn in Chromium)."""

from __future__ import annotations

import re

from tests.sms.conftest import Sms


def test_a_long_code_is_not_echoed_whole(sms: Sms) -> None:
    code = "7" * 5000
    for path in (f"/t/{code}", f"/t/{code}/events"):
        page = sms.client.get(path)
        assert page.status_code == 404
        assert "7" * 40 not in page.text, path
    heading = re.search(r"<h1>(.*?)</h1>", sms.client.get(f"/t/{code}").text, re.S)
    assert heading is not None and heading[1].startswith("No game has the code 777777"), heading
