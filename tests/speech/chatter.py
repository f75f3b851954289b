"""Others at the table talking among themselves, for the tests: three espeak-ng voices saying
sentences without a pause, each in a modelled room (tests/speech/reverb.py)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from host.speech.audio import SAMPLE_RATE, as_int16
from tests import voices
from tests.speech.conftest import trim
from tests.speech.reverb import in_room

CHATTER = (
    ("did you see the match last night it was something else", "en-us"),
    ("I need another drink does anyone want one", "en-us+f3"),
    ("my sister moved to the coast in the spring", "en-gb"),
)


def chatter(seconds: float) -> np.ndarray:
    """Three others talking among themselves without a pause, further from the phone."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("needs espeak-ng")
    n = round(seconds * SAMPLE_RATE)
    out = np.zeros(n)
    for k, (text, voice) in enumerate(CHATTER):
        said = as_int16(in_room(trim(voices.espeak(text, voice)), 0.4, seed=k + 2)).astype(np.float64)
        at = round(0.4 * k * SAMPLE_RATE)
        while at < n:
            part = said[: n - at]
            out[at : at + part.size] += part
            at += said.size + round(0.2 * SAMPLE_RATE)
    return out


def with_chatter(x: np.ndarray, below_db: float, loud: float) -> np.ndarray:
    """``x`` (samples) with the chatter mixed ``below_db`` under ``loud`` (the speech's RMS)."""
    others = chatter(x.size / SAMPLE_RATE)
    return x + others * loud / float(np.sqrt(np.mean(others**2))) * 10 ** (-below_db / 20)


def over_chatter(pcm: bytes, below_db: float, loud: float) -> bytes:
    """``pcm`` with the chatter mixed in (:func:`with_chatter`)."""
    x = with_chatter(as_int16(pcm).astype(np.float64), below_db, loud)
    return np.clip(np.rint(x), -32768, 32767).astype("<i2").tobytes()
