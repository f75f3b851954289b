"""Our side of a stream's audio out and the caller's in while we talk: frames released on
a deadline schedule (:class:`Pacer`), and speech onset in the caller's audio while the host
is talking (:class:`BargeInDetector`)."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

import numpy as np

from host.speech.audio import (
    SAMPLE_RATE,
    TELEPHONY_RATE,
    RollingPercentile,
    as_int16,
    frame_levels,
    threshold_over,
)

FRAME_S = 0.02
FRAME_BYTES = round(TELEPHONY_RATE * FRAME_S)  # 160 bytes of mu-law: one byte per sample
MULAW_SILENCE = b"\xff"

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


# -- pacing ----------------------------------------------------------------------------------


class Pacer:
    """Deadline scheduling of fixed-length frames on a monotonic clock.

    Frame ``i`` is due at ``start + i * frame_s - lead_s``: a late wake-up delays one frame
    but never shifts the ones after it, unlike sleeping ``frame_s`` between sends.
    """

    def __init__(
        self,
        frame_s: float = FRAME_S,
        lead_s: float = 0.2,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.frame_s = frame_s
        self.lead_s = lead_s
        self.clock = clock
        self.sleep = sleep
        self.start = clock()

    def begin(self) -> None:
        self.start = self.clock()

    def due(self, i: int) -> float:
        return self.start + i * self.frame_s - self.lead_s

    def end(self, frames: int) -> float:
        """When the last of ``frames`` frames has played, if playback started at once."""
        return self.start + frames * self.frame_s

    async def wait(self, i: int) -> None:
        delay = self.due(i) - self.clock()
        if delay > 0:
            await self.sleep(delay)


def mulaw_frames(mulaw: bytes, size: int = FRAME_BYTES) -> list[bytes]:
    """Split mu-law audio into equal frames, padding the last with mu-law silence."""
    if len(mulaw) % size:
        mulaw += MULAW_SILENCE * (size - len(mulaw) % size)
    return [mulaw[i : i + size] for i in range(0, len(mulaw), size)]


# -- barge-in --------------------------------------------------------------------------------


class BargeInDetector:
    """Speech onset in the caller's audio while the host is talking, by energy.

    Each 10 ms frame's RMS is compared with ``ratio`` times the noise floor (the
    ``floor_percentile`` of recent frame levels, so a steady line hiss is not speech) and
    never below ``min_rms``. Speech is ``min_speech_s`` of loud frames within the last
    ``window_s``: a click or a cough is shorter.
    """

    FRAME_S = 0.01

    def __init__(
        self,
        rate: int = SAMPLE_RATE,
        *,
        min_rms: float = 300.0,
        ratio: float = 3.0,
        min_speech_s: float = 0.15,
        window_s: float = 0.25,
        floor_window_s: float = 4.0,
        floor_percentile: float = 10.0,
    ) -> None:
        self.frame = round(rate * self.FRAME_S)
        self.min_rms = min_rms
        self.ratio = ratio
        self.need = round(min_speech_s / self.FRAME_S)
        self._levels = RollingPercentile(round(floor_window_s / self.FRAME_S), floor_percentile)
        self._recent: deque[bool] = deque(maxlen=round(window_s / self.FRAME_S))
        self._pending = np.zeros(0, dtype=np.float64)

    def threshold(self) -> float:
        return threshold_over(self._levels.value, self.min_rms, self.ratio)

    def feed(self, pcm: bytes) -> bool:
        """Take the next pcm16 chunk; True if the caller is speaking now."""
        samples = np.concatenate([self._pending, as_int16(pcm).astype(np.float64)])
        usable = len(samples) - len(samples) % self.frame
        self._pending = samples[usable:]
        if usable:
            for level in frame_levels(samples[:usable], self.frame):
                # Judge against the floor before this frame joins it.
                self._recent.append(bool(level > self.threshold()))
                self._levels.append(float(level))
        return self.speaking

    @property
    def speaking(self) -> bool:
        return sum(self._recent) >= self.need

    @property
    def active(self) -> bool:
        """Some loud frames lately: speech may be starting."""
        return any(self._recent)

    def reset(self) -> None:
        self._recent.clear()
