"""Issue 25, hole 3, for media streams: a move said into a call's stream, or keyed on its
keypad, is committed together with the messages telling the others (one transaction; see
tests/reliability/ledger.py). Until this held, the news was queued in a second
transaction after the stream had spoken its answer: a crash in between lost it."""

from __future__ import annotations

import pytest

from host.lobby import Lobby
from host.session import SessionConfig
from tests.media.conftest import SIGNED_URL, Host
from tests.media.stream_client import TwilioStream, new_sids, open_stream
from tests.media.test_stream import grant
from tests.reliability.ledger import Ledger
from tests.speech.conftest import silence

pytestmark = pytest.mark.timeout(60)
ANN, BOB = "+15005550001", "+15005550002"


def _ann_on_a_stream_bob_by_text(host: Host) -> str:
    lobby: Lobby = host.app.state.lobby
    session_id = lobby.create(ANN, "Ann", "voice", SessionConfig(lang="ko"), call_sid="CA-voice").session_id
    code = host.app.state.store.session(session_id).code
    assert lobby.join(BOB, code, "Bob", "sms") != "no_such_game"
    host.referee.begin(session_id)
    return str(session_id)


def _call(host: Host, ws: object, session_id: str) -> TwilioStream:
    stream_sid, call_sid = new_sids()
    host.app.state.lobby.set_call(ANN, call_sid, "voice")
    call = TwilioStream(ws, stream_sid, call_sid)
    call.connected()
    params = {"session": session_id, "player": "Ann", "lang": "ko", "address": ANN}
    call.start({**params, "token": grant(host, call_sid, params)})
    call.utterance()  # Ann's turn
    return call


def test_a_move_said_into_the_stream_and_its_news(host: Host, say_on_phone: dict[str, bytes]) -> None:
    session_id = _ann_on_a_stream_bob_by_text(host)
    ledger = Ledger(host.app.state.store)
    with open_stream(host.client, SIGNED_URL) as ws:
        call = _call(host, ws, session_id)
        call.audio(silence(0.5) + say_on_phone["오"] + silence(1.2))
        call.utterance()
        call.stop()
    assert host.table(session_id).state.last == 5  # type: ignore[union-attr]
    assert ledger.news_with_move('"number": 5', BOB)


def test_a_move_keyed_on_the_keypad_and_its_news(host: Host) -> None:
    session_id = _ann_on_a_stream_bob_by_text(host)
    ledger = Ledger(host.app.state.store)
    with open_stream(host.client, SIGNED_URL) as ws:
        call = _call(host, ws, session_id)
        for digit in "42#":
            call.dtmf(digit)
        call.utterance()
        call.stop()
    assert host.table(session_id).state.last == 42  # type: ignore[union-attr]
    assert ledger.news_with_move('"number": 42', BOB)
