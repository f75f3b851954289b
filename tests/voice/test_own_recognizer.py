"""GAMEHOST_VOICE_RECOGNIZER=vosk: a running game is handed to our recogniser over a
Media Stream when the language's model is there, and stays on <Gather> when it is not."""

from __future__ import annotations

from pathlib import Path

from tests.voice.conftest import BASE, Host, Phone, build, query
from tests.voice.test_one_phone import ROOM, start_room


def start_by_keypad(host: Host) -> Phone:
    """A two-player room game set up with the keypad and default names."""
    phone = host.phone(ROOM)
    phone.call()
    phone.press("3")
    phone.press("2")
    phone.empty()
    phone.empty()
    return phone


def test_a_running_game_is_streamed_to_our_recogniser(tmp_path: Path) -> None:
    host = build(tmp_path, None, voice_recognizer="vosk", lang="ko")
    phone = start_by_keypad(host)
    root = phone.twiml
    assert root is not None
    connect = root.find("Connect")
    assert connect is not None, phone.verbs
    stream = connect.find("Stream")
    assert stream is not None and stream.get("url") == "ws://testserver/twilio/media"
    params = {p.get("name"): p.get("value") for p in stream.iter("Parameter")}
    assert params["lang"] == "ko" and "player" not in params  # one phone: no fixed speaker
    assert host.table_of(params["session"]).running
    # When the stream ends the call gets one <Gather> round, never a loop of streams.
    after = phone.redirect_url()
    assert after.startswith(f"{BASE}/twilio/voice/wait") and query(after)["g"] == "1"
    phone.post(after)
    assert "Gather" in phone.verbs and "Connect" not in phone.verbs
    host.app.state.store.close()


def test_without_a_model_calls_stay_on_gather(tmp_path: Path) -> None:
    empty = tmp_path / "no-model"
    empty.mkdir()
    host = build(tmp_path, None, voice_recognizer="vosk", media_model_dir=empty)
    phone = start_room(host, ["Ann", "Bob"])
    assert "Connect" not in phone.verbs and phone.gather.get("input") == "speech dtmf"
    host.app.state.store.close()
