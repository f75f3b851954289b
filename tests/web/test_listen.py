"""Who may stream a microphone to a game (the websocket handshake), and the page's words in
the game's language. The voice game itself is played in test_browser.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from host.channels.web import listen
from host.channels.web.listen import origin_problem
from host.channels.web.mic import COOKIE
from host.config import Settings
from host.session import SessionConfig
from tests.sms.conftest import PHONES, Sms
from tests.web.mic import ORIGIN, carrying, open_link
from tests.web.test_pages import code_of


@pytest.mark.parametrize(
    ("origin", "host", "public", "ok"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", None, True),
        ("http://localhost:8000", "localhost:8000", None, True),
        ("https://games.example.org", "games.example.org", None, True),
        ("http://games.example.org", "games.example.org", None, False),  # a microphone in the clear
        ("http://192.168.1.5:8000", "192.168.1.5:8000", None, False),
        ("https://evil.example.net", "games.example.org", None, False),  # another site's page
        (None, "127.0.0.1:8000", None, False),
        # Behind a TLS proxy: the server is reached as 127.0.0.1, the page is the public one.
        ("https://games.example.org", "127.0.0.1:8000", "https://games.example.org", True),
        ("http://games.example.org", "127.0.0.1:8000", "http://games.example.org", False),
    ],
)
def test_only_pages_of_this_server_over_https_or_loopback(
    origin: str | None, host: str, public: str | None, ok: bool
) -> None:
    settings = Settings(public_url=public)
    assert (origin_problem(origin, host, settings) is None) is ok


def _refused(sms: Sms, path: str, origin: str, cookie: str | None = None) -> bool:
    headers = {"origin": origin, **({"cookie": f"{COOKIE}={cookie}"} if cookie else {})}
    try:
        with sms.client.websocket_connect(path, headers=headers) as ws:
            ws.close()
    except WebSocketDisconnect as exc:
        assert exc.code == 1008
        return True
    return False


def test_the_handshake_wants_an_active_game_a_good_origin_and_the_games_key(sms: Sms) -> None:
    phones = sms.new_game(2)
    code = code_of(sms, phones[0])
    local = ORIGIN  # TestClient's Host; TLS at a proxy in front
    key = open_link(sms, code)
    assert _refused(sms, f"/t/{code}/listen", "http://games.example.org", key)
    assert _refused(sms, f"/t/{code}/listen", local)  # the code alone is not enough
    assert _refused(sms, "/t/999999/listen", local, key)
    lobby = sms.text(PHONES[2], "NEW Cy")[0].split()[1]  # a game not started yet
    assert _refused(sms, f"/t/{lobby}/listen", local, key)
    headers = {"origin": local, "cookie": f"{COOKIE}={key}"}
    with sms.client.websocket_connect(f"/t/{code}/listen", headers=headers) as ws:
        ready = ws.receive_json()
        assert ready["type"] == "ready" and "pocketsphinx" in ready["engine"], ready
    sms.text(phones[0], "LEAVE")
    sms.text(phones[1], "LEAVE")
    assert _refused(sms, f"/t/{code}/listen", local, key)  # over and closed


def test_a_korean_game_page_reads_in_korean(sms: Sms) -> None:
    referee = sms.app.state.referee
    referee.create(SessionConfig(game="up-or-down", lang="ko"), ["민수", "지아"], code="424242")
    cookie = open_link(sms, "424242")  # the button shows on the table microphone's page
    page = sms.client.get("/t/424242", headers=carrying(cookie))
    assert page.status_code == 200
    # The microphone's own messages too: the script shows the page's words (below).
    korean = ("플레이어", "판", "최근 판정", "여기서 듣기", "마지막 수", "차례")
    for words in (*korean, "시작하는 중", "마이크가 허용되지"):
        assert words in page.text, words
    for words in ("Players", "Last rulings", "Listen here", "Last number", "Starting", "microphone"):
        assert words not in page.text, words
    english_code = code_of(sms, sms.new_game(2)[0])
    english = sms.client.get(f"/t/{english_code}", headers=carrying(open_link(sms, english_code)))
    assert "Last number" in english.text and "Players" in english.text and "Listen here" in english.text


def test_the_microphone_script_shows_only_the_pages_words() -> None:
    # Every message the page shows comes from web.yaml (data attributes of #listen-status),
    # so none is English on a Korean page; the host's error names a key, not English words.
    script = (Path(listen.__file__).parent / "static" / "listen.js").read_text(encoding="utf-8")
    shown = re.findall(r"show\(button, ([^,]+),", script)
    assert shown and all(not arg.strip().startswith(('"', "'")) for arg in shown), shown
    keys = set(re.findall(r'words\("([a-z-]+)"\)', script)) | set(re.findall(r'"(mic-[a-z]+)"', script))
    page = (Path(listen.__file__).parent / "templates" / "table.html").read_text(encoding="utf-8")
    for key in keys | {"failed"}:
        assert f"data-{key}=" in page, key
    source = Path(listen.__file__).read_text(encoding="utf-8")
    assert '"key": "failed"' in source
