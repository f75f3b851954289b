"""The recogniser for a model, whichever engine loaded it: callers need not know."""

from __future__ import annotations

from collections.abc import Iterable

from host.speech.model import SpeechModel
from host.speech.recognizer import GrammarRecognizer
from host.speech.sphinx import SphinxRecognizer


def recognizer_for(
    model: SpeechModel,
    sample_rate: int,
    phrases: Iterable[str] | None = (),
    *,
    phone: bool = False,
    talk: Iterable[str] = (),
) -> GrammarRecognizer:
    """A phrase-list recogniser: Vosk's grammar, or a JSGF grammar for pocketsphinx.
    ``phone``: the audio is a phone call's 8 kHz, upsampled to ``sample_rate``. ``talk``:
    words that table talk may decode as instead of the nearest phrase."""
    if model.engine == "pocketsphinx":
        return SphinxRecognizer(model, sample_rate, phrases, phone=phone, talk=talk)
    return GrammarRecognizer(model, sample_rate, phrases, talk=talk)
