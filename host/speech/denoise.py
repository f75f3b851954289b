"""Noise suppression in front of the recognisers (a table's microphone).

pocketsphinx's acoustic model knows silence only as quiet: steady white noise before and
after a move fits fricatives ("f", "s") better than silence, so "eight" in white noise
20 dB below the speech decodes as "fifty", and the talk gate explains the noise as a run
of short words ("us said if") and drops the move as talk (docs/speech.md, "Hearing in
noise"). Two stages, per 10 ms frame of 16 kHz pcm16, streaming:

1. WebRTC's noise suppressor (``webrtc-noise-gain``: the AudioProcessing module's NS and
   high-pass filter) takes the noise spectrum out, by about 15 dB at :data:`NS_LEVEL` 3.
2. A noise gate (a downward expander) turns what is left between words down by
   :data:`GATE_GAIN`: a frame not :data:`GATE_RATIO` times louder than the noise floor
   (the 10th percentile of frame levels over the last :data:`FLOOR_WINDOW_S`) is residual
   noise. The gain moves smoothly (fast up, slower down) so word edges are not clipped.

Both engage only while the noise floor of the audio as it comes is :data:`ENGAGE_FLOOR` or
more: in quiet the audio passes unchanged (always on, it failed two of the English table
tests on clean recordings, tests/table/test_english_table.py), and in noise it is what
stands between the noise and the recogniser.

Neither stage alone was enough (tests/bench/bench_table_talk.py, 24 Piper moves in white
noise 20 dB below: as it comes 6 right; suppressor alone 6; gate alone 3; both 22), and
clean speech is unchanged by both (24 of 24). The floor is also what :attr:`Denoiser.floor`
reports.
"""

from __future__ import annotations

import numpy as np
from webrtc_noise_gain import AudioProcessor

from host.speech.audio import SAMPLE_RATE, SAMPLE_WIDTH, RollingPercentile, as_int16, rms

#: WebRTC's suppression level, 1 (least) .. 4 (most). 3 and 4 measured alike (22 and 23
#: of 24 moves right in white noise); 3 changes speech least.
NS_LEVEL = 3
#: A frame quieter than this many times the noise floor is turned down (about 10 dB).
GATE_RATIO = 3.0
#: By this much (-26 dB): noise stays, but far below any word.
GATE_GAIN = 0.05
#: Noise floor (frame RMS of pcm16, 10th percentile) from which the audio is processed:
#: -50 dBFS, above a quiet room through an ordinary microphone, below a fan at a few metres;
#: white noise 20 dB below a voice at a normal level is about 300-500.
ENGAGE_FLOOR = 100.0
#: Seconds of frame levels the noise floor is the 10th percentile of.
FLOOR_WINDOW_S = 4.0
FLOOR_PERCENTILE = 10.0
# Per-frame steps of the gain towards its target: opening is fast (a word's onset), closing
# slower (its fading end).
_OPEN, _CLOSE = 0.5, 0.1


def wanted(engine: str, sample_rate: int, *, phone: bool) -> bool:
    """Whether a listener's audio goes through a :class:`Denoiser` by default: where it
    measured better. pocketsphinx at a table's microphone (16 kHz), yes. Not Vosk (Korean):
    its model was trained on noisier speech, and with the denoiser its figures were mixed
    (espeak-ng in white noise: moves right first try 3 -> 6 of 30, but talk asked 1 -> 2,
    ruled wrong 0 -> 1; clean: right 5 -> 4). Not a phone call: not measured there.
    """
    return engine == "pocketsphinx" and sample_rate == SAMPLE_RATE and not phone


class Denoiser:
    """Streaming noise suppression and gating of 16 kHz pcm16 (see the module notes).

    Call it with chunks of any size; it returns the processed audio of the whole 10 ms
    frames so far and holds back the rest (less than one frame) for the next call.
    """

    FRAME_S = 0.01

    def __init__(self, rate: int = SAMPLE_RATE, *, level: int = NS_LEVEL) -> None:
        if rate != SAMPLE_RATE:
            raise ValueError(f"noise suppression needs {SAMPLE_RATE} Hz audio, not {rate} Hz")
        if not 1 <= level <= 4:
            raise ValueError(f"noise suppression level must be 1..4, not {level}")
        self.level = level
        self._frame_bytes = round(rate * self.FRAME_S) * SAMPLE_WIDTH
        self._levels = RollingPercentile(round(FLOOR_WINDOW_S / self.FRAME_S), FLOOR_PERCENTILE)
        self._raw_levels = RollingPercentile(round(FLOOR_WINDOW_S / self.FRAME_S), FLOOR_PERCENTILE)
        self._pending = b""
        self._gain = 1.0
        self._ns = AudioProcessor(0, level)  # no automatic gain: levels must stay comparable

    @property
    def floor(self) -> float:
        """The noise floor after suppression: RMS of the quiet frames (0..32768)."""
        return self._levels.value

    @property
    def raw_floor(self) -> float:
        """The noise floor of the audio as it comes."""
        return self._raw_levels.value

    @property
    def engaged(self) -> bool:
        """Whether the audio is processed now (the noise floor is :data:`ENGAGE_FLOOR` or more)."""
        return self.raw_floor >= ENGAGE_FLOOR

    def __call__(self, pcm: bytes) -> bytes:
        data = self._pending + pcm
        usable = len(data) - len(data) % self._frame_bytes
        self._pending = data[usable:]
        return b"".join(
            self._frame(data[offset : offset + self._frame_bytes])
            for offset in range(0, usable, self._frame_bytes)
        )

    def _frame(self, frame: bytes) -> bytes:
        self._raw_levels.append(rms(frame))
        # The suppressor runs all the time, so its noise estimate is ready when it engages.
        suppressed = bytes(self._ns.Process10ms(frame).audio)
        level = rms(suppressed)
        self._levels.append(level)
        if not self.engaged:
            self._gain = 1.0
            return frame
        target = 1.0 if level > GATE_RATIO * self.floor else GATE_GAIN
        self._gain += (_OPEN if target > self._gain else _CLOSE) * (target - self._gain)
        x = as_int16(suppressed).astype(np.float64)
        out: bytes = np.clip(np.rint(x * self._gain), -32768, 32767).astype("<i2").tobytes()
        return out
