"""Media-stream calls end to end: a websocket client sending Twilio-shaped frames of real
espeak-ng Korean speech, the real Korean Vosk model, the referee on a real SQLite file, and
the host's synthesised answers coming back as mu-law ``media`` messages with ``mark``s."""

from __future__ import annotations

import logging
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from host.channels.media.handover import mint_token, stream_twiml
from host.channels.media.playout import mulaw_frames
from host.channels.media.session import StreamSession
from host.lobby import Lobby
from host.session import SessionConfig
from host.speech.audio import mulaw_decode, mulaw_encode, rms
from host.speech.tts import synthesize
from tests.media.conftest import PUBLIC_URL, SIGNED_URL, Host, make_host
from tests.media.stream_client import FRAME, Heard, TwilioStream, new_sids, open_stream
from tests.speech.conftest import silence

pytestmark = pytest.mark.timeout(60)
Say = dict[str, bytes]


def start_call(ws: object, params: dict[str, str], host: Host | None = None) -> TwilioStream:
    """A stream's start; with ``host``, carrying the token the voice channel would have
    minted for this call (the parameters are then only what the token was minted for)."""
    stream_sid, call_sid = new_sids()
    call = TwilioStream(ws, stream_sid, call_sid)
    call.connected()
    if host is not None:
        params = {**params, "token": grant(host, call_sid, params)}
    call.start(params)
    return call


def grant(host: Host, call_sid: str, params: dict[str, str]) -> str:
    return mint_token(
        host.app.state.store,
        call_sid,
        params.get("session", ""),
        params.get("player"),
        params.get("address"),
        params.get("lang", "ko"),
    )


def live(host: Host, call: TwilioStream) -> StreamSession:
    session: StreamSession = host.app.state.media.live[call.call_sid]
    return session


def assert_speech(heard: Heard, session: StreamSession, text_index: int) -> None:
    """The audio is exactly the synthesised text: 20 ms frames of 8 kHz mu-law, in order."""
    assert heard.frames and all(len(f) == FRAME for f in heard.frames)
    text = session.said[text_index]
    expected = b"".join(mulaw_frames(mulaw_encode(synthesize(text, "ko", 8000))))
    assert heard.audio == expected
    assert rms(mulaw_decode(heard.audio)) > 500  # speech, not silence


def test_a_move_spoken_into_the_stream_is_ruled_and_answered(host: Host, say_on_phone: Say) -> None:
    session_id = host.korean_game("Ann", "Bob")
    with open_stream(host.client, SIGNED_URL) as ws:
        call = start_call(ws, {"session": session_id, "lang": "ko"}, host)
        greeting = call.utterance()  # Ann's turn: any number from 1 to 100
        session = live(host, call)
        # The Korean phone wording (grammars/ko, Up-or-Down's spoken lines), numbers in words.
        assert session.said[0] == "Ann 님 차례예요. 일부터 백까지 아무 숫자나 말하세요."
        assert_speech(greeting, session, 0)
        assert host.table(session_id).state.last is None  # type: ignore[union-attr]

        call.audio(silence(0.5) + say_on_phone["오"] + silence(1.2))
        answer = call.utterance()
        game = host.table(session_id).state
        assert game is not None and game.last == 5 and game.current_player == "Bob"
        assert session.said[1] == "Ann, 오. Bob 님 차례예요. 오보다 큰 홀수, 또는 오보다 작은 짝수."
        assert_speech(answer, session, 1)
        assert answer.mark != greeting.mark
        call.stop()
    assert host.app.state.media.live == {}


def test_talking_over_the_host_clears_its_speech_and_is_heard(host: Host, say_on_phone: Say) -> None:
    session_id = host.korean_game("Ann", "Bob")
    with open_stream(host.client, SIGNED_URL) as ws:
        call = start_call(ws, {"session": session_id, "lang": "ko"}, host)
        call.utterance()
        call.audio(silence(0.5) + say_on_phone["오"] + silence(1.2))
        first = call.receive()  # the answer has begun playing...
        assert first["event"] == "media"
        session = live(host, call)
        said = len(session.said)
        call.audio(silence(0.3) + say_on_phone["이"] + silence(1.2))  # ...and Bob talks over it
        cut = call.utterance(stop_at_clear=True)
        assert cut.cleared and cut.mark is None  # no mark for audio that was cleared
        assert session.barge_ins == 1
        # What Bob said while the host spoke was heard (not muted away) and ruled.
        call.utterance()
        game = host.table(session_id).state
        assert game is not None and game.last == 2 and game.current_player == "Ann"
        assert len(session.said) == said + 1
        call.stop()


def test_the_others_moves_are_spoken_into_a_live_stream(host: Host, say_on_phone: Say) -> None:
    lobby: Lobby = host.app.state.lobby
    ann, bob = "+15005550001", "+15005550002"
    session_id = lobby.create(ann, "Ann", "voice", SessionConfig(lang="ko"), call_sid="CA-voice").session_id
    code = host.app.state.store.session(session_id).code
    assert lobby.join(bob, code, "Bob", "sms") != "no_such_game"
    host.referee.begin(session_id)
    with open_stream(host.client, SIGNED_URL) as ws:
        stream_sid, call_sid = new_sids()
        lobby.set_call(ann, call_sid, "voice")
        call = TwilioStream(ws, stream_sid, call_sid)
        call.connected()
        params = {"session": session_id, "player": "Ann", "lang": "ko", "address": ann}
        call.start({**params, "token": grant(host, call_sid, params)})
        call.utterance()  # Ann's turn
        member = lobby.member(ann)
        assert member is not None and member.channel == "media" and member.call_sid == call_sid

        call.audio(silence(0.5) + say_on_phone["오"] + silence(1.2))
        call.utterance()
        game = host.table(session_id).state
        assert game is not None and game.last == 5

        reply = host.referee.handle(session_id, "3", "Bob")  # by text: odd below 5, a mistake
        host.app.state.notifiers.fan_out(reply, exclude=bob)
        news = call.utterance()
        session = live(host, call)
        assert "Bob" in session.said[-1] and "탈락" in session.said[-1]  # Bob is out
        assert_speech(news, session, len(session.said) - 1)
        call.stop()
    # The stream's end is handled by the server in its own time (a thread may still be
    # finishing its last hearing): wait for it, boundedly, instead of racing it.
    deadline = time.monotonic() + 10
    member = lobby.member(ann)
    while (member is None or member.channel != "voice") and time.monotonic() < deadline:
        time.sleep(0.02)
        member = lobby.member(ann)
    assert member is not None and member.channel == "voice" and member.call_sid == call_sid


def test_keypad_digits_are_moves(host: Host) -> None:
    session_id = host.korean_game("Ann", "Bob")
    with open_stream(host.client, SIGNED_URL) as ws:
        call = start_call(ws, {"session": session_id, "lang": "ko"}, host)
        call.utterance()
        for digit in "42#":
            call.dtmf(digit)
        call.utterance()
        game = host.table(session_id).state
        assert game is not None and game.last == 42
        call.stop()


@pytest.mark.parametrize(
    "signature",
    [None, "forged", "sign-other-url"],
    ids=["missing", "forged", "other-url"],
)
def test_an_unsigned_or_forged_handshake_is_refused(host: Host, signature: str | None) -> None:
    session_id = host.korean_game()
    if signature == "sign-other-url":
        url, signature = "wss://elsewhere.example/twilio/media", "sign"
    else:
        url = SIGNED_URL
    with pytest.raises(WebSocketDisconnect) as refused, open_stream(host.client, url, signature):
        pass
    assert refused.value.code == 1008
    assert host.table(session_id).seq == 3  # two seats and the start: nothing else


def test_signature_checking_can_be_switched_off_for_development(tmp_path: Path) -> None:
    dev = make_host(tmp_path, validate_signatures=False, twilio_auth_token=None)
    with open_stream(dev.client, SIGNED_URL, signature=None) as ws:
        call = start_call(ws, {"session": "no-such-game", "lang": "ko"})
        # Accepted without a signature: the unknown game gets its spoken apology (see below).
        assert rms(mulaw_decode(call.utterance().audio)) > 500
    dev.app.state.store.close()


def test_without_a_model_the_caller_hears_an_apology_and_the_stream_ends(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    host = make_host(tmp_path, media_model_dir=tmp_path / "no-model-here")
    session_id = host.korean_game()
    for _ in range(2):  # the second call is refused from memory, the same way
        with caplog.at_level(logging.ERROR), open_stream(host.client, SIGNED_URL) as ws:
            call = start_call(ws, {"session": session_id, "lang": "ko"}, host)
            apology = call.utterance()
            assert rms(mulaw_decode(apology.audio)) > 500
            with pytest.raises(WebSocketDisconnect):
                call.receive()  # we hang up: Twilio goes on with the TwiML after <Connect>
        assert "no-model-here" in caplog.text and "does not exist" in caplog.text
        caplog.clear()
    host.app.state.store.close()


def test_an_unknown_game_gets_an_apology_not_an_error(host: Host) -> None:
    with open_stream(host.client, SIGNED_URL) as ws:
        call = start_call(ws, {"session": "no-such-game", "lang": "ko"}, host)
        assert call.utterance().audio
        with pytest.raises(WebSocketDisconnect):
            call.receive()


def test_stream_twiml_connects_to_the_websocket_with_parameters() -> None:
    xml = stream_twiml(
        PUBLIC_URL + "/",
        "s-1",
        "Ann",
        "ko",
        address="+15005550001",
        after_url=PUBLIC_URL + "/twilio/voice/wait",
    )
    root = ET.fromstring(xml)
    assert [child.tag for child in root] == ["Connect", "Redirect"]
    (stream,) = root.findall("Connect/Stream")
    assert stream.get("url") == SIGNED_URL and len(root.findall("Connect/*")) == 1
    params = {p.get("name"): p.get("value") for p in stream.iter("Parameter")}
    assert params == {"session": "s-1", "player": "Ann", "lang": "ko", "address": "+15005550001"}
    assert "?" not in (stream.get("url") or "")  # Twilio drops query strings: all in <Parameter>s

    shared = ET.fromstring(stream_twiml("http://localhost:8000", "s-2", None, "en"))
    (stream,) = shared.findall("Connect/Stream")
    assert stream.get("url") == "ws://localhost:8000/twilio/media"
    assert {p.get("name") for p in stream.iter("Parameter")} == {"session", "lang"}
    assert shared.find("Redirect") is None
