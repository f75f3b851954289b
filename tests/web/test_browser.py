"""The live page in a real browser (Debian's Chromium through Playwright) against real
server processes: rulings made over signed SMS webhooks appear within 200 ms, also when
another process made them; the page rides out a server restart; a game is played by voice
through the page's microphone; and each game's board is photographed for the README."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from games.base import all_games
from host.referee import Referee
from host.session import SessionConfig
from host.speech.audio import write_wav
from host.store import Store
from tests.sms.conftest import PHONES, messages_of
from tests.twilio_helpers import FakeTwilio
from tests.web.browser import CHROMIUM, Server, chromium, free_port, servers

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "screenshots"
FRESH_MS = 200  # the promise: a ruling is on the page this soon after the webhook answered
WAIT_MS = 15_000  # waits that are not measurements: generous on a loaded machine

# Each change of the rulings list, stamped with the wall clock (ms) when it happened.
WATCH = """() => {
  window.__changes = [];
  const box = document.getElementById("rulings");
  new MutationObserver(() => {
    window.__changes.push({t: Date.now(), text: box.textContent});
  }).observe(box, {childList: true, subtree: true, characterData: true});
}"""


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    # No skip without a browser: scripts/test installs Debian's Chromium.
    assert CHROMIUM.exists(), "no /usr/bin/chromium: apt-get install chromium (scripts/test does)"
    with sync_playwright() as p:
        yield p


def new_game(server: Server, names: list[str]) -> tuple[list[str], str]:
    """NEW, JOINs (START is left to the caller); the phones and the join code."""
    phones = PHONES[: len(names)]
    created = messages_of(server.text(phones[0], f"NEW {names[0]}"))
    code = created[0].split()[1]
    assert code.isdigit() and len(code) == 6, created
    for phone, name in zip(phones[1:], names[1:], strict=True):
        server.text(phone, f"JOIN {code} {name}")
    return phones, code


def changed_at(page: Any, words: str) -> float:
    """When the rulings list first contained ``words`` (ms, wall clock)."""
    page.wait_for_function(
        "(w) => window.__changes.some(c => c.text.includes(w))", arg=words, timeout=WAIT_MS
    )
    stamp: float = page.evaluate("(w) => window.__changes.find(c => c.text.includes(w)).t", words)
    return stamp


def test_every_sms_ruling_made_by_another_process_shows_within_200_ms(
    playwright: Any, tmp_path: Path, fake: FakeTwilio
) -> None:
    # Two server processes on one database: the page is served by one, the texts go to
    # the other, so only the log can carry the news.
    profile = tmp_path / "profile"
    with servers(tmp_path, fake, 2) as (watcher, ruler), chromium(playwright, profile) as browser:
        phones, code = new_game(ruler, ["Ann", "Bob"])
        page = browser.new_page()
        page.goto(f"{watcher.base}/t/{code}")
        page.wait_for_selector("#link.up", timeout=WAIT_MS)
        page.evaluate(WATCH)
        delays = []
        steps = [(phones[0], "START", "New game")]
        steps += [(phones[i % 2], str(n), f"{'AB'[i % 2]}{'nn' if i % 2 == 0 else 'ob'} said {n}.")
                  for i, n in enumerate((53, 40, 44, 13))]  # fmt: skip
        for phone, body, words in steps:
            ruler.text(phone, body)
            answered = time.time() * 1000
            delays.append(changed_at(page, words) - answered)
        assert all(d < FRESH_MS for d in delays), f"page updates {delays} ms after the webhooks answered"
        assert page.locator("#board").inner_text().count("13") >= 1
        assert page.locator("#to-act").inner_text() == "Ann"
        print(f"ruling to page: {', '.join(f'{d:.0f}' for d in delays)} ms")


def test_the_page_comes_back_by_itself_after_a_server_restart(
    playwright: Any, tmp_path: Path, fake: FakeTwilio
) -> None:
    with servers(tmp_path, fake) as (server,), chromium(playwright, tmp_path / "profile") as browser:
        phones, code = new_game(server, ["Ann", "Bob"])
        server.text(phones[0], "START")
        server.text(phones[0], "53")
        page = browser.new_page()
        page.goto(f"{server.base}/t/{code}")
        page.wait_for_selector("#link.up", timeout=WAIT_MS)
        assert "Ann said 53." in page.locator("#rulings").inner_text()
        server.kill()
        page.wait_for_selector("#link.down", timeout=WAIT_MS)
        server.start()  # the same port and database
        page.wait_for_selector("#link.up", timeout=WAIT_MS)
        server.text(phones[1], "40")
        page.wait_for_function(
            "() => document.getElementById('rulings').textContent.includes('Bob said 40.')", timeout=WAIT_MS
        )
        assert "Ann" in page.locator("#to-act").inner_text()


def _piper(text: str) -> bytes:
    from piper import SynthesisConfig

    from host.speech.audio import SAMPLE_RATE
    from host.speech.tts import piper_synthesize
    from tests.speech.conftest import trim

    steady = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)  # the same audio every run
    return trim(piper_synthesize(text, SAMPLE_RATE, syn_config=steady))


def _script(tmp_path: Path) -> Path:
    """Three Up-or-Down moves, with room after each for the host's spoken answer (~6 s:
    "Ann said 53. Bob: an odd number above 53 or ..."): the input it covers is dropped, as a
    microphone would hear the host then."""
    from tests.speech.conftest import silence

    audio = tmp_path / "game.wav"
    gap = silence(8.0)
    moves = ["fifty three", "forty", "forty four"]
    write_wav(audio, silence(1.0) + gap.join(_piper(m) for m in moves) + silence(1.5))
    return audio


def test_a_game_played_by_voice_through_the_page(playwright: Any, tmp_path: Path, fake: FakeTwilio) -> None:
    server = Server(tmp_path / "gamehost.sqlite3", free_port(), fake, tmp_path / "server.log").launch()
    try:
        audio = _script(tmp_path)  # while the server starts
        fake_mic = [
            "--use-fake-ui-for-media-stream",
            "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={audio}%noloop",  # played once, in real time
            "--autoplay-policy=no-user-gesture-required",
        ]
        with chromium(playwright, tmp_path / "profile", fake_mic) as browser:
            _voice_game(server.wait(), browser, fake)
    finally:
        server.stop()


def _voice_game(server: Server, browser: Any, fake: FakeTwilio) -> None:
    phones, code = new_game(server, ["Ann", "Bob"])
    server.text(phones[0], "START")
    page = browser.new_page()
    page.goto(mic_link(server, code))  # the host's microphone link: the page keeps a cookie
    assert page.url == f"{server.base}/t/{code}"  # and the key left the address bar
    page.click("#listen")
    page.wait_for_selector("#listen[data-state=on]", timeout=WAIT_MS)
    page.wait_for_function(
        "() => document.getElementById('rulings').textContent.includes('Ann said 44.')", timeout=40_000
    )
    rulings = page.locator("#rulings").inner_text()
    assert rulings.index("Ann said 44.") < rulings.index("Bob said 40.") < rulings.index("Ann said 53.")
    assert "Ann said 44." in page.locator("#host-said").inner_text()
    page.wait_for_selector("#listen[data-played]", timeout=WAIT_MS)  # the host's voice played
    page.click("#listen")  # stop
    # In the log, and told to the phones like any ruling.
    store = Store(server.db)
    try:
        row = store.session_by_code(code)
        assert row is not None
        table = Referee(store).table(row.id)
        assert table.state is not None and table.state.last == 44  # type: ignore[attr-defined]
    finally:
        store.close()
    deadline = time.monotonic() + 10
    while "Ann said 53." not in " ".join(fake.messages_to(phones[1])) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert any("Ann said 53." in m for m in fake.messages_to(phones[1]))


def mic_link(server: Server, code: str) -> str:
    """What ``gamehost mic CODE`` prints for this server."""
    from typer.testing import CliRunner

    from host import cli

    printed = CliRunner().invoke(cli.app, ["mic", code, "--db", str(server.db)])
    assert printed.exit_code == 0, printed.output
    link = next(word for word in printed.output.split() if "?mic=" in word)
    return server.base + link[link.index("/t/"):]


def test_a_screenshot_of_every_game_board(playwright: Any, tmp_path: Path, fake: FakeTwilio) -> None:
    # Fixed codes and names; the deal still follows the session id (counts only are shown).
    db = tmp_path / "gamehost.sqlite3"
    store = Store(db)
    referee = Referee(store)
    codes = {}
    for i, spec in enumerate(sorted(all_games(), key=lambda s: s.name)):
        names = ["Ann", "Bob", "Cy", "Dee"][: max(spec.min_players, 2)]
        codes[spec.name] = code = f"{100001 + i}"
        referee.create(SessionConfig(game=spec.name, lang="en"), names, code=code)
    store.close()
    out = tmp_path / "screenshots"
    out.mkdir()
    with servers(tmp_path, fake) as (server,), chromium(playwright, tmp_path / "profile") as browser:
        page = browser.new_page()
        for name, code in codes.items():
            page.goto(f"{server.base}/t/{code}")
            page.wait_for_selector("#link.up", timeout=WAIT_MS)
            assert page.locator("#board dt").count() > 0, name
            page.screenshot(path=str(out / f"{name}.png"), full_page=True, animations="disabled")
    for name in codes:
        shot = out / f"{name}.png"
        assert shot.read_bytes().startswith(b"\x89PNG"), name
        committed = SCREENSHOTS / f"{name}.png"
        if os.environ.get("UPDATE_SCREENSHOTS") == "1":
            shutil.copyfile(shot, committed)
        assert committed.is_file(), f"{committed} is missing: run with UPDATE_SCREENSHOTS=1"
