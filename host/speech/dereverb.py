"""Late reverberation taken out of a table's microphone before the recognisers.

At a table the microphone lies a metre or more from the players, past a room's critical
distance: most of what it hears of a word is the room ringing on after it, which smears the
next phonemes (pocketsphinx heard Piper's "fifty three" as "thirty three" and "eighty five"
as a run of talk words "a by our" in a living room of RT60 0.6 s; docs/speech.md, "Hearing
in a room").

:class:`Dereverberator` is the statistical late-reverberation suppressor of Lebart et al.
(2001) and Habets (2009): in each band the room's late tail at a moment is what the signal
was ``DELAY_S`` before, attenuated by the room's decay over that time (exp(-2 delta t),
delta = 3 ln 10 / RT60), and a spectral gain takes that estimate out, never by more than
``floor_db``. It needs the room's RT60, which :class:`host.speech.room.RoomMeter` measures
from the decay of what players say. Streaming, 32 ms frames every 8 ms (24 ms of delay),
numpy only.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import numpy.typing as npt

from host.speech.audio import SAMPLE_RATE, as_int16

Float = npt.NDArray[np.float64]

#: Frame and hop of the short-time spectra (samples at 16 kHz): 32 ms every 8 ms.
FRAME = 512
HOP = 128
#: Where the late tail starts: reflections within 50 ms of the sound are heard as part of it.
DELAY_S = 0.05
#: The most a band is turned down, in dB: deeper leaves "musical" holes the recogniser hears.
FLOOR_DB = -12.0
#: How much of the estimated tail is taken out (over-subtraction factor).
STRENGTH = 1.0
#: Below this RT60 (s) the room barely rings: the audio passes unchanged.
MIN_RT60 = 0.2


class Dereverberator:
    """Streaming late-reverberation suppression of 16 kHz pcm16 (see the module notes).

    Call it with chunks of any size; it returns as much processed audio as it was given,
    delayed by :data:`FRAME` - :data:`HOP` samples (24 ms). ``rt60`` may be changed at any time (the room as
    measured so far); below :data:`MIN_RT60` the audio passes unchanged (still delayed, so
    the stream's time does not jump).
    """

    def __init__(
        self,
        rt60: float,
        rate: int = SAMPLE_RATE,
        *,
        floor_db: float = FLOOR_DB,
        strength: float = STRENGTH,
        delay_s: float = DELAY_S,
    ) -> None:
        if rate != SAMPLE_RATE:
            raise ValueError(f"dereverberation needs {SAMPLE_RATE} Hz audio, not {rate} Hz")
        self.rt60 = rt60
        self.floor = 10 ** (floor_db / 20)
        self.strength = strength
        self._delay = max(1, round(delay_s * rate / HOP))
        self._window = np.sqrt(np.hanning(FRAME + 1)[:FRAME])
        self._scale = 2 * FRAME / (HOP * 4)  # sqrt-Hann twice at 75 % overlap sums to 2
        self._input = np.zeros(FRAME, dtype=np.float64)  # the last FRAME samples seen
        self._fill = 0  # new samples since the last frame
        self._output = np.zeros(FRAME, dtype=np.float64)  # overlap-add accumulator
        self._past: deque[Float] = deque(maxlen=self._delay)  # smoothed power of past frames
        self._smooth = np.zeros(FRAME // 2 + 1, dtype=np.float64)
        self._pending = np.zeros(0, dtype=np.float64)

    @property
    def active(self) -> bool:
        return self.rt60 >= MIN_RT60

    def __call__(self, pcm: bytes) -> bytes:
        x = np.concatenate([self._pending, as_int16(pcm).astype(np.float64)])
        usable = x.size - x.size % HOP
        self._pending = x[usable:]
        out = [self._hop(x[i : i + HOP]) for i in range(0, usable, HOP)]
        if not out:
            return b""
        y = np.concatenate(out)
        return np.clip(np.rint(y), -32768, 32767).astype("<i2").tobytes()

    def _hop(self, samples: Float) -> Float:
        self._input = np.concatenate([self._input[HOP:], samples])
        spectrum = np.fft.rfft(self._input * self._window)
        power = spectrum.real**2 + spectrum.imag**2
        self._smooth = 0.5 * self._smooth + 0.5 * power
        if self.active and len(self._past) == self._delay:
            decay = math.exp(-2 * (3 * math.log(10) / self.rt60) * self._delay * HOP / SAMPLE_RATE)
            late = decay * self._past[0]
            gain = np.sqrt(np.maximum(1 - self.strength * late / np.maximum(power, 1e-9), self.floor**2))
            spectrum = spectrum * gain
        self._past.append(self._smooth.copy())
        frame = np.fft.irfft(spectrum, FRAME) * self._window / self._scale
        self._output += frame
        done = self._output[:HOP].copy()
        self._output = np.concatenate([self._output[HOP:], np.zeros(HOP)])
        return done
