"""Item 2: a media stream is bound to the call whose TwiML opened it. The voice channel
mints a single-use, short-lived token stored with the CallSid and who may play; the stream's
start must bring it from that same call, and who plays comes from the server's row, never
from the client's customParameters."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from host.channels.media.handover import mint_token
from tests.media.conftest import SIGNED_URL, Host, make_host
from tests.media.stream_client import TwilioStream, new_sids, open_stream
from tests.speech.conftest import ko_model  # noqa: F401  (a shared fixture)
from tests.voice.conftest import build
from tests.voice.test_own_recognizer import start_by_keypad

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def host(tmp_path: Path, ko_model: Any) -> Any:  # noqa: F811
    built = make_host(tmp_path)
    yield built
    built.app.state.store.close()


def _start(host: Host, call_sid: str, params: dict[str, str]) -> tuple[bool, str | None]:
    """Open a stream as ``call_sid``; (taken live, the player it plays as)."""
    stream_sid = new_sids()[0]
    with open_stream(host.client, SIGNED_URL) as ws:
        call = TwilioStream(ws, stream_sid, call_sid)
        call.connected()
        call.start(params)
        call.utterance()  # the greeting, or the apology of a refused stream
        session = host.app.state.media.live.get(call_sid)
        taken = session is not None and not session.closed
        player = session.info.player if session is not None else None
        if not taken:
            with pytest.raises(WebSocketDisconnect):
                call.receive()  # refused: we hang up after the apology
        else:
            call.stop()
    return taken, player


def test_a_token_plays_once_for_its_own_call(host: Host, caplog: pytest.LogCaptureFixture) -> None:
    session = host.korean_game("Ann", "Bob")
    call_sid = new_sids()[1]
    token = mint_token(host.app.state.store, call_sid, session, "Ann", None, "ko")
    assert _start(host, call_sid, {"token": token}) == (True, "Ann")
    with caplog.at_level(logging.WARNING):
        assert _start(host, call_sid, {"token": token})[0] is False  # replayed
    assert "already used" in caplog.text


def test_a_token_of_another_call_is_refused(host: Host, caplog: pytest.LogCaptureFixture) -> None:
    session = host.korean_game("Ann", "Bob")
    token = mint_token(host.app.state.store, new_sids()[1], session, "Ann", None, "ko")
    with caplog.at_level(logging.WARNING):
        assert _start(host, new_sids()[1], {"token": token})[0] is False
    assert "another call" in caplog.text


def test_an_expired_token_is_refused(host: Host, caplog: pytest.LogCaptureFixture) -> None:
    session = host.korean_game("Ann", "Bob")
    call_sid = new_sids()[1]
    token = mint_token(host.app.state.store, call_sid, session, "Ann", None, "ko", now=time.time() - 3600)
    with caplog.at_level(logging.WARNING):
        assert _start(host, call_sid, {"token": token})[0] is False
    assert "expired" in caplog.text


def test_forged_custom_parameters_are_ignored(host: Host) -> None:
    ours = host.korean_game("Ann", "Bob")
    theirs = host.korean_game("Cy", "Dee")
    call_sid = new_sids()[1]
    token = mint_token(host.app.state.store, call_sid, ours, "Ann", None, "ko")
    forged = {"token": token, "session": theirs, "player": "Dee", "address": "+15005550009"}
    taken, player = _start(host, call_sid, forged)
    assert (taken, player) == (True, "Ann")
    # Without a token the parameters alone open nothing.
    assert _start(host, new_sids()[1], {"session": theirs, "player": "Dee", "lang": "ko"})[0] is False


def test_the_voice_channel_mints_a_token_for_the_call(tmp_path: Path) -> None:
    voice = build(tmp_path, None, voice_recognizer="vosk", lang="ko")
    phone = start_by_keypad(voice)
    assert phone.twiml is not None
    stream = phone.twiml.find("Connect/Stream")
    assert stream is not None
    params = {p.get("name"): p.get("value") for p in stream.iter("Parameter")}
    rows = voice.app.state.store.execute("SELECT * FROM stream_tokens WHERE token = ?", (params["token"],))
    assert len(rows) == 1 and rows[0]["call_sid"] == phone.sid and rows[0]["session_id"] == params["session"]
    assert rows[0]["used"] is None and rows[0]["expires"] > time.time()
    voice.app.state.store.close()
