"""The end-pointer in a room that rings: a complete phrase ends sooner; with a word's
reverberant tail not speech (a candidate, kept off: docs/speech.md "Hearing in a room")
the tail is not speech, a quieter word rising out of it is. Real Piper speech in a modelled room
(tests/speech/reverb.py), real pocketsphinx."""

from __future__ import annotations

import numpy as np

from host.speech.audio import SAMPLE_RATE, as_int16, pcm_chunks
from host.speech.endpointer import EARLY_END_SILENCE_S, RINGING_EARLY_END_S, Endpointer
from host.speech.engines import recognizer_for
from host.speech.hearing import Hearing
from host.speech.model import load_model
from tests import voices
from tests.speech.conftest import trim
from tests.speech.english import NUMBERS_EN
from tests.speech.reverb import said_in_room

RT60 = 0.6
TAIL_DB = 15.0  # as measured in tests/bench/bench_room.py --chain room-tail


def heard(
    parts: list[bytes],
    phrases: list[str],
    rings: bool,
    gap_s: float = 1.2,
    tail: bool = True,
    early_s: float | None = None,
    hold: bool = True,
) -> tuple[list[Hearing], float]:
    """What an end-pointer hears of ``parts`` said in the room, and the dry end of the last
    (``tail``: with a word's tail not speech, the candidate; ``early_s``: the early end's
    silence, if not the room's; ``hold``: speech ends where it began, as in a room that
    rings but does not echo, else the detector's own hysteresis)."""
    model = load_model(lang="en", engine="pocketsphinx", download=False)
    endpointer = Endpointer(recognizer_for(model, SAMPLE_RATE, phrases))
    endpointer.room_rings(rings, echoing=not hold)
    endpointer.tail_db = TAIL_DB if rings and tail else None
    if early_s is not None:
        endpointer.early_silence_s = early_s
    audio, spans = said_in_room(parts, RT60, gap_s=gap_s)
    return list(endpointer.hearings(pcm_chunks(audio, SAMPLE_RATE, 20))), spans[-1][1]


def test_a_words_tail_is_not_speech_in_a_room_that_rings() -> None:
    said = [trim(voices.piper("sixty one"))]
    (plain,), end = heard(said, NUMBERS_EN, rings=False)
    (tuned,), _ = heard(said, NUMBERS_EN, rings=True)
    assert tuned.text == plain.text == "sixty one"
    # The detector heard the tail as speech past the dry end (0.15 s); the tuned end-pointer
    # ends the speech at it, and decides sooner (0.37 -> 0.21 s after the dry end).
    assert plain.speech_end - end > 0.1
    assert tuned.speech_end - end < 0.05
    assert tuned.emitted_at < plain.emitted_at - 0.1


def test_a_quieter_word_rising_out_of_the_tail_is_speech() -> None:
    back = (as_int16(trim(voices.piper("back"))) * 0.1).astype(np.int16).tobytes()  # 20 dB down
    # The tail candidate's own rise, so the detector's own hysteresis: held at the bar
    # speech begins at (endpointer.RINGING_VAD_HOLD), a word 20 dB down in the tail of the
    # last is below it, and "take back" is still heard whole (the full silence waits on
    # "take", no phrase of its own).
    said = [trim(voices.piper("take")), back]
    (hearing,), end = heard(said, ["take back", "pass"], rings=True, gap_s=0.3, hold=False)
    assert hearing.text == "take back"
    assert hearing.speech_end > end - 0.1  # "back" was speech, not the tail of "take"


def test_in_a_room_that_rings_a_complete_phrase_ends_sooner() -> None:
    # The room's tail fills a stop consonant's closure itself: the early end's silence is
    # shorter there (endpointer.RINGING_EARLY_END_S), and "sixty one" is ruled sooner.
    said = [trim(voices.piper("sixty one"))]
    (plain,), _ = heard(said, NUMBERS_EN, rings=True, tail=False, early_s=EARLY_END_SILENCE_S)
    (ringing,), _ = heard(said, NUMBERS_EN, rings=True, tail=False)
    assert ringing.text == plain.text == "sixty one"
    assert ringing.speech_end == plain.speech_end  # the same speech, ended sooner
    sooner = EARLY_END_SILENCE_S - (RINGING_EARLY_END_S or EARLY_END_SILENCE_S)
    assert sooner > 0 and ringing.emitted_at <= plain.emitted_at - sooner + 0.011
