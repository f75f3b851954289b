"""Shared fixtures: the real packaged Korean Vosk model and espeak-ng Korean speech.

The model is loaded once per session (about 3 s). Speech is synthesised at test time into
a temporary directory as 16 kHz WAV files, so the tests also exercise read_wav.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from host.speech.audio import SAMPLE_RATE, read_wav, write_wav
from host.speech.endpointer import Endpointer
from host.speech.model import SpeechModel, load_model
from host.speech.recognizer import GrammarRecognizer
from tests import voices
from tests.speech.korean import sino

# Words spoken in the tests; all are recognised reliably from espeak-ng's Korean voice.
SPOKEN = ("오십삼", "이십오", "사십삼", "사", "오십", "삼")
NUMBERS = [sino(n) for n in range(1, 101)]

requires_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")


def silence(seconds: float) -> bytes:
    return bytes(2 * round(SAMPLE_RATE * seconds))


def trim(pcm: bytes) -> bytes:
    """Cut espeak-ng's digital silence (it appends ~0.3 s) so pauses are what tests say."""
    samples = np.frombuffer(pcm, dtype="<i2")
    loud = np.nonzero(np.abs(samples) > 50)[0]
    return samples[loud[0] : loud[-1] + 1].tobytes()


@pytest.fixture(scope="session")
def ko_model() -> SpeechModel:
    return load_model(lang="ko", download=False)


@pytest.fixture(scope="session")
def ko_wavs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if shutil.which("espeak-ng") is None:
        pytest.skip("needs espeak-ng")
    directory = tmp_path_factory.mktemp("ko-speech")
    paths = {}
    for i, text in enumerate(SPOKEN):
        path = directory / f"{i}.wav"
        write_wav(path, trim(voices.espeak(text, "ko")), SAMPLE_RATE)
        paths[text] = path
    return paths


@pytest.fixture(scope="session")
def say(ko_wavs: dict[str, Path]) -> Callable[[str], bytes]:
    """pcm16 at 16 kHz of one of SPOKEN, read back from its WAV file."""

    def load(text: str) -> bytes:
        pcm, _ = read_wav(ko_wavs[text])
        return pcm

    return load


@pytest.fixture
def endpointer(ko_model: SpeechModel) -> Endpointer:
    return Endpointer(GrammarRecognizer(ko_model, SAMPLE_RATE, NUMBERS))
