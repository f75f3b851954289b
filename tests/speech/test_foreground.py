"""A move said while others at the table talk among themselves (host/speech/foreground.py):
real Piper and espeak-ng speech in a modelled room, real Silero and pocketsphinx."""

from __future__ import annotations

import numpy as np
import pytest

from grammars import load
from host.speech.audio import SAMPLE_RATE, as_int16, frame_levels, pcm_chunks
from host.speech.endpointer import Endpointer
from host.speech.engines import recognizer_for
from host.speech.foreground import Foreground
from host.speech.hearing import Hearing
from host.speech.model import SpeechModel, load_model
from host.speech.vad import SileroVad
from tests import voices
from tests.speech.chatter import with_chatter
from tests.speech.conftest import trim
from tests.speech.english import NUMBERS_EN
from tests.speech.reverb import in_room

MOVE_AT_S = 6.0


@pytest.fixture(scope="module")
def en_model() -> SpeechModel:
    return load_model(lang="en", engine="pocketsphinx", download=False)


def table(move: str, *, below_db: float | None) -> tuple[bytes, float]:
    """The player nearest the phone says "fifty three" (the last move), then ``move`` at
    :data:`MOVE_AT_S`, while the others chatter ``below_db`` under them (None: a quiet
    table); the stream and the end of ``move`` (of the dry speech: the room rings on)."""
    n = round((MOVE_AT_S + 3.5) * SAMPLE_RATE)
    x = np.zeros(n)
    for text, start in (("fifty three", 1.0), (move, MOVE_AT_S)):
        dry = trim(voices.piper(text))
        said = as_int16(in_room(dry, 0.4)).astype(np.float64)
        at = round(start * SAMPLE_RATE)
        x[at : at + said.size] = said
    if below_db is not None:
        x = with_chatter(x, below_db, float(np.sqrt(np.mean(said**2))))
    x += np.random.default_rng(1).normal(0.0, 20.0, n)  # the room's own floor
    pcm = np.clip(np.rint(x), -32768, 32767).astype("<i2").tobytes()
    return pcm, start + len(dry) / 2 / SAMPLE_RATE


def hear(model: SpeechModel, pcm: bytes) -> list[Hearing]:
    grammar = load("en")
    recognizer = recognizer_for(model, SAMPLE_RATE, NUMBERS_EN, talk=[*grammar.decoys, *grammar.talk])
    return list(Endpointer(recognizer).hearings(pcm_chunks(pcm, SAMPLE_RATE, 20)))


def the_move(hearings: list[Hearing], end: float) -> Hearing:
    (mine,) = [h for h in hearings if h.start < end and h.speech_end > MOVE_AT_S]
    return mine


def test_a_move_said_over_the_others_chatter_is_heard_on_its_own(en_model: SpeechModel) -> None:
    pcm, end = table("sixty one", below_db=10.0)
    heard = the_move(hear(en_model, pcm), end)
    # The utterance is the move, not seconds of the chatter around it, and it says it was
    # heard in company (the listener reads it back).
    assert heard.speech_end - MOVE_AT_S < 2.0, heard
    assert heard.crowded
    # The move itself was decoded (the talk gate may still hear the chatter under it as
    # talk: then it is dropped, never ruled).
    assert heard.text == "sixty one", heard


def test_the_detector_hears_the_chatter_on_and_the_foreground_the_pause() -> None:
    # Why the end-pointer needs the foreground: Silero rightly calls the others' chatter
    # speech, so after the move it never stops; near the loudest, the speech stops.
    pcm, end = table("sixty one", below_db=10.0)
    samples = as_int16(pcm)
    vad, fg = SileroVad(SAMPLE_RATE), Foreground()
    said: list[tuple[float, float]] = []
    kept: list[tuple[float, float]] = []
    for at in range(0, samples.size - 1600 + 1, 1600):
        block, start = samples[at : at + 1600], at / SAMPLE_RATE
        spans = vad.speech(block, start)
        said += spans
        kept += fg.speech(frame_levels(block.astype(np.float64), 160), start, spans)
    after = end + 1.0  # the room's tail over
    assert fg.busy
    assert sum(b - a for a, b in said if a >= after) > 0.8 * (samples.size / SAMPLE_RATE - after)
    assert sum(b - a for a, b in kept if a >= after) < 0.2 * (samples.size / SAMPLE_RATE - after)


def test_at_a_quiet_table_nothing_changes(en_model: SpeechModel) -> None:
    pcm, end = table("sixty one", below_db=None)
    heard = the_move(hear(en_model, pcm), end)
    assert heard.text == "sixty one" and not heard.crowded
    assert end - 0.1 < heard.speech_end < end + 0.6


def test_a_quiet_table_keeps_every_span_of_the_detector() -> None:
    # Speech in half of the window (moves and talk with pauses between them) is no crowd,
    # however loud one player is against another.
    fg = Foreground()
    for block in range(200):
        start = block * 0.1
        loud = block % 20 < 10
        levels = np.full(10, 3000.0 if block % 40 < 10 else 300.0 if loud else 20.0)
        spans = [(start, start + 0.1)] if loud else []
        assert fg.speech(levels, start, spans) == spans
    assert not fg.busy


def test_at_a_busy_table_speech_far_below_the_loudest_is_not_the_speaker() -> None:
    fg = Foreground()
    for block in range(120):
        start = round(block * 0.1, 1)
        speaker = 35 <= block < 42 or 100 <= block < 106
        levels = np.full(10, 3000.0 if speaker else 600.0)  # the others 14 dB below
        kept = fg.speech(levels, start, [(start, start + 0.1)])
        if block >= 30:
            assert fg.busy
        if block < 30 or speaker:
            # (the first frame or two of a word louder than what went before may fall to
            # the smoothing: the decoder hears a lead-in before the first speech anyway)
            assert len(kept) == 1 and start <= kept[0][0] < start + 0.03, (block, kept)
            assert kept[0][1] == pytest.approx(start + 0.1), (block, kept)
        elif 43 <= block < 100:  # not the block after the speaker's: a syllable's smoothing
            assert kept == [], (block, kept)
