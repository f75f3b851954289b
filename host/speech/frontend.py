"""Which sample rate phone audio (8 kHz mu-law) is decoded at.

Both engines' models are trained on 16 kHz speech. Measured with pocketsphinx on the
numbers 1..100 after an 8 kHz mu-law round trip (``tests/bench/bench_english.py``),
upsampling to 16 kHz reads far more of them right than pocketsphinx's own 8 kHz front
end (``-samprate 8000 -nfft 256`` with the filter bank cut at 3.5 kHz), whose features no
longer match the model's. Streams therefore upsample; the media path builds its
recogniser with :func:`phone_decode_rate` and resamples with
:func:`host.speech.audio.mulaw8k_to_pcm16k` (or a :class:`~host.speech.audio.Resampler`).
"""

from __future__ import annotations

from host.speech.audio import SAMPLE_RATE
from host.speech.model import SpeechModel

#: Rate at which 8 kHz phone audio is decoded, for every engine (see the module docstring).
PHONE_DECODE_RATE = SAMPLE_RATE


def phone_decode_rate(model: SpeechModel) -> int:
    """The rate to build ``GrammarRecognizer(model, rate, ...)`` at for 8 kHz call audio."""
    del model  # the same for both engines today; kept so a narrowband model can differ
    return PHONE_DECODE_RATE
