"""The pages as a new user meets them: an address with a long made-up code is not echoed
whole, and !nversion on a phone (390x844, measured in Debian's Chromium) fits the screen
without scrolling at every step of its golden games."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from host.referee import Referee
from host.store import Store
from tests.golden import SCRIPTS
from tests.sms.conftest import Sms
from tests.twilio_helpers import FakeTwilio
from tests.web.browser import servers
from tests.web.test_browser import WAIT_MS, in_view


def test_a_long_code_is_not_echoed_whole(sms: Sms) -> None:
    code = "7" * 5000
    for path in (f"/t/{code}", f"/t/{code}/events"):
        page = sms.client.get(path)
        assert page.status_code == 404
        assert "7" * 40 not in page.text, path
    heading = re.search(r"<h1>(.*?)</h1>", sms.client.get(f"/t/{code}").text, re.S)
    assert heading is not None and heading[1].startswith("No game has the code 777777"), heading


def inversion_steps(db: Path) -> dict[str, str]:
    """!nversion's golden games (2 and 4 players) at every other step, to the result: where
    -> join code."""
    store = Store(db)
    referee = Referee(store)
    found: dict[str, str] = {}
    for script in ("inversion-2p", "inversion-4p"):
        config, players, lines = SCRIPTS[script]()
        for upto in [*range(0, len(lines), 2), len(lines)]:
            found[f"{script} after {upto} lines"] = code = str(500001 + len(found))
            session = referee.create(config, players, code=code)
            for line in lines[:upto]:
                speaker, _, words = line.partition(": ")
                referee.handle(session, words, speaker)
    store.close()
    return found


def test_inversion_on_a_phone_fits_the_screen(browser: Any, tmp_path: Path, fake: FakeTwilio) -> None:
    steps = inversion_steps(tmp_path / "gamehost.sqlite3")
    with servers(tmp_path, fake) as (server,):
        page = browser.new_page()
        page.set_viewport_size({"width": 390, "height": 844})
        for where, code in steps.items():
            page.goto(f"{server.base}/t/{code}")
            page.wait_for_selector("#link.up", timeout=WAIT_MS)
            height = page.evaluate("() => document.documentElement.scrollHeight")
            assert height <= 844, f"{where}: the page is {height} px in an 844 px screen"
            for selector in ("#turn", "#players .player", "#board .part.big"):
                assert in_view(page, selector), f"{where}: {selector} is not in view"
            if page.locator("#last p").count():
                assert in_view(page, "#last"), f"{where}: the last ruling is not in view"
