"""The live page's "Check the room" (host/channels/web/room_check.py): the room check of
``gamehost table --check`` through the browser's microphone. Its socket without a browser
(who may open it; the frames of a whole check), and the page in Debian's Chromium with a fake
microphone playing the players' numbers (real Piper speech, real pocketsphinx)."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from host.channels.web import room_check
from host.channels.web.listen import Inbox
from host.speech.audio import write_wav
from tests import voices
from tests.sms.conftest import PHONES, Sms
from tests.speech.conftest import silence, trim
from tests.table.test_check import louder
from tests.timeouts import stretch
from tests.twilio_helpers import FakeTwilio
from tests.web.browser import Server, chromium, fake_microphone, free_port
from tests.web.mic import FRAME, ORIGIN, carrying, open_link, session_code
from tests.web.test_browser import mic_link, new_game

SAID = {"Ann": ("twenty three", "seventy one"), "Bob": ("forty five", "eighteen")}
#: Room for the host's question before each player ("Ann, say two numbers, with a pause
#: between them.", ~3.2 s, which the check drops from its input) and for the last word's end.
ASKED_S, PAUSE_S, END_S = 4.3, 1.0, 2.6


def check_script() -> bytes:
    """Ann's two numbers, then Bob's, each after the host's question: ~17 s. Piper's own
    level peaks near full scale: a microphone on the table hears players far lower."""
    parts = []
    for said in SAID.values():
        first, second = (louder(trim(voices.piper(words)), 0.25) for words in said)
        parts += [silence(ASKED_S), first, silence(PAUSE_S), second]
    return b"".join(parts) + silence(END_S)


def _inputs(sms: Sms) -> int:
    return int(sms.app.state.store.execute("SELECT count(*) AS n FROM inputs")[0]["n"])


def _refused(sms: Sms, code: str, headers: dict[str, str]) -> bool:
    try:
        with sms.client.websocket_connect(f"/t/{code}/check", headers=headers) as ws:
            ws.receive_json()
    except WebSocketDisconnect as exc:
        return exc.code == 1008
    return False


def test_the_check_socket_admits_as_the_microphone_and_reports_without_touching_the_game(
    sms: Sms, monkeypatch: pytest.MonkeyPatch
) -> None:
    sms.new_game(2)
    code = session_code(sms)
    cookie = open_link(sms, code)
    assert _refused(sms, code, {"origin": ORIGIN})  # the code alone is not enough
    assert _refused(sms, code, {"origin": "https://evil.example.net", **carrying(cookie)})
    assert _refused(sms, "999999", {"origin": ORIGIN, **carrying(cookie)})
    before = _inputs(sms)
    # The script at once, not in real time: the page's pace is listen.Inbox's to judge
    # (tests/web/test_inbox.py), the check's words and turns are this test's.
    monkeypatch.setattr(room_check, "Inbox", partial(Inbox, clock=lambda: 1e9))
    frames: list[dict[str, Any]] = []
    voiced = 0
    with sms.client.websocket_connect(
        f"/t/{code}/check", headers={"origin": ORIGIN, **carrying(cookie)}
    ) as ws:
        ready = ws.receive_json()
        assert ready["type"] == "ready" and ready["players"] == ["Ann", "Bob"], ready
        pcm = check_script()
        for i in range(0, len(pcm), FRAME):
            ws.send_bytes(pcm[i : i + FRAME])
        while not frames or frames[-1]["type"] != "report":
            message = ws.receive()
            if message.get("bytes"):
                voiced += message["bytes"][:4] == b"RIFF"  # the host's question, said
            elif message.get("text"):
                frames.append(json.loads(message["text"]))
    turns = [f for f in frames if f["type"] == "turn"]
    assert [t["player"] for t in turns] == ["Ann", "Bob"] and voiced >= 2
    assert turns[0]["lines"] == ["Ann, say two numbers, with a pause between them."]
    report = frames[-1]
    assert [(s["player"], tuple(s["heard"])) for s in report["seats"]] == list(SAID.items())
    assert report["lines"][:2] == [
        f"Ann: heard twenty three, seventy one at {report['seats'][0]['level_db']:.0f} dBFS",
        f"Bob: heard forty five, eighteen at {report['seats'][1]['level_db']:.0f} dBFS",
    ]
    assert report["lines"][2].startswith("The room: noise floor ")
    assert report["verdicts"] == ["Everyone is heard well."] == report["lines"][3:]
    assert _inputs(sms) == before  # nothing ruled, nothing logged
    assert sms.text(PHONES[0], "STATUS")  # and the game goes on as it was


def test_a_room_checked_from_the_page_through_its_microphone(
    playwright: Any, tmp_path: Path, fake: FakeTwilio
) -> None:
    server = Server(tmp_path / "gamehost.sqlite3", free_port(), fake, tmp_path / "server.log").launch()
    try:
        audio = tmp_path / "check.wav"
        write_wav(audio, check_script())  # while the server starts
        with chromium(playwright, tmp_path / "profile", fake_microphone(audio)) as browser:
            _check_from_the_page(server.wait(), browser)
    finally:
        server.stop()


def _check_from_the_page(server: Server, browser: Any) -> None:
    phones, code = new_game(server, ["Ann", "Bob"])
    server.text(phones[0], "START")
    page = browser.new_page()
    page.goto(mic_link(server, code))
    page.click("#check")
    # Each player asked in turn on the page (and aloud), then the report, in the game's words.
    page.wait_for_selector("#host-said[data-asked=Ann]", timeout=round(15_000 * stretch()))
    page.wait_for_selector("#check-report li", timeout=round(45_000 * stretch()))
    lines = page.locator("#check-report li").all_inner_texts()
    assert lines[0].startswith("Ann: heard twenty three, seventy one at "), lines
    assert lines[1].startswith("Bob: heard forty five, eighteen at "), lines
    assert lines[2].startswith("The room: noise floor ") and "RT60" in lines[2], lines
    assert len(lines) > 3  # the verdicts: what the fake microphone's level makes of them
    assert page.locator("#check[data-state=off]").count() == 1  # the microphone let go
    assert page.locator("#check").get_attribute("data-played")  # the questions were said
