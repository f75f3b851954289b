"""The recogniser for a model, whichever engine loaded it: callers need not know."""

from __future__ import annotations

from collections.abc import Iterable

from host.speech.model import SpeechModel
from host.speech.recognizer import GrammarRecognizer
from host.speech.sphinx import SphinxRecognizer


def recognizer_for(
    model: SpeechModel, sample_rate: int, phrases: Iterable[str] | None = ()
) -> GrammarRecognizer:
    """A phrase-list recogniser: Vosk's grammar, or a JSGF grammar for pocketsphinx."""
    if model.engine == "pocketsphinx":
        return SphinxRecognizer(model, sample_rate, phrases)
    return GrammarRecognizer(model, sample_rate, phrases)
