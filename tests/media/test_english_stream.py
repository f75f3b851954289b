"""English over a phone call's Media Stream, with nothing downloaded: the caller's 8 kHz
mu-law (Piper's joe voice, as Twilio would carry it) is upsampled and heard by pocketsphinx,
and the moves are ruled.

The first move is the call's first utterance, heard by a fresh decoder: with the model's
wideband cepstral mean it came out "thirty three" for "fifty three" (and "seventy one" as
"what"); the phone decoder starts from a phone-audio mean (``sphinx.PHONE_CMN_INIT``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from host.channels.media import session
from host.session import SessionConfig
from tests import voices
from tests.media.conftest import SIGNED_URL, Host, make_host
from tests.media.stream_client import open_stream
from tests.media.test_stream import start_call
from tests.speech.conftest import silence, trim


def piper(text: str) -> bytes:
    return trim(voices.piper(text))


@pytest.fixture
def english(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    # The call's announcements are still Piper's, each made when it is due; only making all
    # of English's fixed ones at 8 kHz in the background (~10 s of CPU, going on after the
    # test in this worker) is left out: tests/speech/test_tts.py and test_table_exit.py
    # test that preparation.
    monkeypatch.setattr(session, "prepare_in_background", lambda *_: None)
    built = make_host(tmp_path, lang="en")
    yield built
    built.app.state.store.close()


def test_an_english_game_on_a_stream(english: Host) -> None:
    session_id = english.referee.create(SessionConfig(lang="en"), ["Ann", "Bob"])
    with open_stream(english.client, SIGNED_URL) as ws:
        call = start_call(ws, {"session": session_id, "lang": "en"}, english)
        call.utterance()  # Ann's turn
        for number in ("fifty three", "seventy one"):
            call.audio(silence(0.5) + piper(number) + silence(1.2))
            call.utterance()
        call.stop()
    moves = [m.move.number for m in english.table(session_id).moves]
    assert moves == [53, 71]
