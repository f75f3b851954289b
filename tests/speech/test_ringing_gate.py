"""The gate in a room that rings (host/speech/sphinx.py, ``RINGING_NEAR_TALK``): a long move
whose reverberant tail the gate heard as a run of short talk words is kept as near talk
(read back) when the phrase decoder heard every word of it surely; table talk stays talk.
Real Piper speech through the benches' kitchen (RT60 0.9 s), real pocketsphinx."""

from __future__ import annotations

import pytest

from grammars import load
from host.speech import sphinx
from host.speech.audio import SAMPLE_RATE, pcm_chunks
from host.speech.endpointer import Endpointer
from host.speech.engines import recognizer_for
from host.speech.hearing import Hearing
from host.speech.model import load_model
from tests import voices
from tests.speech.conftest import trim
from tests.speech.english import NUMBERS_EN
from tests.speech.reverb import said_in_kitchen, said_in_room

#: Blófa's plays, as the game says them.
PLAYS = [
    f"{count} card {colour} {value}"
    for count in ("one", "two")
    for colour in ("blue", "yellow")
    for value in ("one", "three", "five", "six", "seven", "nine", "thirteen")
]
PHRASES = [*PLAYS, "pass blue", "pass yellow", "challenge", "whose turn", "score", "undo", "help"]
#: Plays the gate dropped as talk in the kitchen ("while our oh want up").
MOVES = ("one card yellow one", "one card blue six", "one card yellow nine")
#: Sentences the phrase decoder heard there as plays or commands ("let me think about
#: this" as "one card yellow six", its weakest word at 0.85).
TALK = (
    "let me think about this",
    "ha ha ha that's hilarious",
    "whoa, didn't see that coming",
    "I've got two kids at home",
)


@pytest.fixture(scope="module")
def kitchen() -> Endpointer:
    """One table's hearing in the kitchen, the room measured as ringing (made once: the
    decoders with the room's means take a while)."""
    model = load_model(lang="en", engine="pocketsphinx", download=False)
    grammar = load("en")
    talk = list(dict.fromkeys((*grammar.decoys, *grammar.talk)))
    endpointer = Endpointer(recognizer_for(model, SAMPLE_RATE, PHRASES, talk=talk))
    # As the table's listener tells it once the room is measured: a kitchen echoes.
    endpointer.room_rings(True, echoing=True)
    return endpointer


def heard(kitchen: Endpointer, said: str) -> list[Hearing]:
    """``said`` in the kitchen, from the cepstral mean a fresh table starts with (each
    utterance as if heard first, whatever the tests heard before)."""
    recognizer = kitchen.recognizer
    assert isinstance(recognizer, sphinx.SphinxRecognizer)
    recognizer.cepstral_mean = sphinx.TABLE_CMN_INIT
    audio = said_in_kitchen([trim(voices.piper(said))])
    return list(kitchen.hearings(pcm_chunks(audio, SAMPLE_RATE, 20)))


def test_in_a_ringing_room_a_long_move_heard_surely_is_kept_as_near_talk(
    kitchen: Endpointer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for move in MOVES:
        [kept] = heard(kitchen, move)
        assert kept.text == move and kept.near_talk and not kept.talk, kept
    monkeypatch.setattr(sphinx, "RINGING_NEAR_TALK", False)
    for move in MOVES:
        [dropped] = heard(kitchen, move)
        assert dropped.talk and not dropped.near_talk, dropped


def test_in_a_ringing_room_table_talk_stays_talk(kitchen: Endpointer) -> None:
    for sentence in TALK:
        hearings = heard(kitchen, sentence)
        assert hearings and all(h.talk and not h.near_talk for h in hearings), (sentence, hearings)


#: Up-or-Down's numbers and a few commands: a lone word of talk is heard as one of them.
NUMBER_PHRASES = [*NUMBERS_EN, "whose turn", "score", "undo", "help"]


def heard_in_living_room(said: list[str]) -> list[list[Hearing]]:
    """Each of ``said`` (Piper) in a living room (RT60 0.6 s), the room measured as ringing,
    with the talk priors as host/speech/sphinx.py sets them now."""
    model = load_model(lang="en", engine="pocketsphinx", download=False)
    grammar = load("en")
    talk = list(dict.fromkeys((*grammar.decoys, *grammar.talk)))
    endpointer = Endpointer(recognizer_for(model, SAMPLE_RATE, NUMBER_PHRASES, talk=talk))
    endpointer.room_rings(True, echoing=False)
    recognizer = endpointer.recognizer
    assert isinstance(recognizer, sphinx.SphinxRecognizer)
    out = []
    for text in said:
        recognizer.cepstral_mean = sphinx.TABLE_CMN_INIT
        audio, _ = said_in_room([trim(voices.piper(text))], 0.6)
        out.append(list(endpointer.hearings(pcm_chunks(audio, SAMPLE_RATE, 20))))
    return out


def test_in_a_ringing_room_a_lone_word_the_doubting_twin_hears_as_talk_is_doubted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A laugh and a "nope" are heard as "thirteen" and "nine", the whole phrase kept by the
    # ringing room's talk prior; the twin at RINGING_DOUBT_WEIGHT hears talk ("he you",
    # "now a"): doubted, which the table drops (host/confirm.py RINGING_DOUBTED_DROP).
    # A lone move said there is kept as it was.
    *talk, move = heard_in_living_room(["hee hee", "nope", "eighty"])
    for hearings in talk:
        [laugh] = hearings
        assert laugh.text and laugh.doubted and not laugh.talk and not laugh.near_talk, hearings
    assert [(h.text, h.doubted) for h in move] == [("eighty", "")]
    monkeypatch.setattr(sphinx, "RINGING_DOUBT_WEIGHT", None)
    talk = heard_in_living_room(["hee hee", "nope"])
    assert all(h.text and not h.doubted and not h.talk for hearings in talk for h in hearings), talk
