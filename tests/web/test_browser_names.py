"""The browser's table asks the players' names, as `gamehost table` does (issue 44): in a
real Chromium whose fake microphone plays Ann (Piper's joe) and Bob (espeak-ng male) saying
their names and then Bob calling Ann's move, the page shows "Ann, say your name.", then
"Bob, say your name.", then Bob's "fifty three" answered as out of turn in Bob's voice, and
Ann's own "fifty three" ruled hers. Real synthesised audio, real pocketsphinx, a real
server process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from host.speech.audio import write_wav
from tests import voices
from tests.speech.conftest import silence, trim
from tests.timeouts import stretch
from tests.twilio_helpers import FakeTwilio
from tests.web.browser import CHROMIUM, Server, chromium, fake_microphone, free_port
from tests.web.test_browser import last_number, mic_link, new_game

# Each text the host's answers box showed, in order.
WATCH = """() => {
  window.__said = [];
  const box = document.getElementById("host-said");
  new MutationObserver(() => window.__said.push(box.textContent))
    .observe(box, {childList: true, subtree: true, characterData: true});
}"""


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    assert CHROMIUM.exists(), "no /usr/bin/chromium: apt-get install chromium (scripts/test does)"
    with sync_playwright() as p:
        yield p


def _script(tmp_path: Path) -> Path:
    """The names, then Bob's move out of turn and Ann's on turn, with room after each move
    for the host's answer (the input it covers is dropped; a name round's question drops
    nothing)."""
    ann = lambda text: trim(voices.piper(text))  # noqa: E731
    bob = lambda text: trim(voices.espeak(text, "en-us+m3"))  # noqa: E731
    audio = tmp_path / "names.wav"
    parts = [silence(1.0), ann("Ann"), silence(1.5), bob("Bob"), silence(1.5)]
    parts += [bob("fifty three"), silence(3.0), ann("fifty three"), silence(2.0)]
    write_wav(audio, b"".join(parts))
    return audio


def test_the_page_asks_the_names_and_tells_the_voices_apart(
    playwright: Any, tmp_path: Path, fake: FakeTwilio
) -> None:
    server = Server(tmp_path / "gamehost.sqlite3", free_port(), fake, tmp_path / "server.log").launch()
    try:
        audio = _script(tmp_path)  # while the server starts
        fake_mic = fake_microphone(audio)
        with chromium(playwright, tmp_path / "profile", fake_mic) as browser:
            server.wait()
            phones, code = new_game(server, ["Ann", "Bob"])
            server.text(phones[0], "START")
            page = browser.new_page()
            page.goto(mic_link(server, code))
            page.evaluate(WATCH)
            page.click("#listen")
            page.wait_for_function(
                "() => window.__said.some(t => t.includes('Ann said 53.'))", timeout=round(40_000 * stretch())
            )
            said = page.evaluate("() => window.__said")
    finally:
        server.stop()
    shown = [s for s in said if s]
    order = ["Ann, say your name.", "Bob, say your name.", "(Bob) Waiting for Ann.", "Ann said 53."]
    at = [next(i for i, s in enumerate(shown) if words in s) for words in order]
    assert at == sorted(at), shown
    assert last_number(server.db, code) == 53
