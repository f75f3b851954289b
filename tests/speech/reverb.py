"""A room for the tests: speech as a microphone on a table hears it, a metre or more from
the speaker, the room ringing on after each word.

The impulse response is the textbook model of a room's: the direct sound, then a tail of
noise decaying at 60 dB per ``rt60`` seconds, carrying ``reverb_db`` more energy than the
direct sound (a player 1.3 m from the microphone in a living room stands well past its
critical distance: the tail's energy is several times the direct sound's). Seeded, numpy
only, so a test needs no room simulator (the benches use pyroomacoustics:
tests/bench/rooms.py).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy.signal import fftconvolve

from host.speech.audio import SAMPLE_RATE, as_int16
from tests.bench.rooms import through

#: Two seats of the benches' kitchen (tests/bench/rooms.py: RT60 0.9 s, 0.8 and 1.0 m from a
#: microphone on the table), their impulse responses as pyroomacoustics made them there
#: (``impulse_response(ROOMS["kitchen"], seat_position(0 | 1))``, the first 1.2 s, float16):
#: the textbook tail above does not hold Silero's speech probability down as a simulated
#: room's early reflections do (tests/speech/test_vad.py).
KITCHEN_SEATS = Path(__file__).with_name("kitchen_rirs.npz")

Float = npt.NDArray[np.float64]


def impulse_response(rt60: float, reverb_db: float = 6.0, seed: int = 1) -> Float:
    """The direct sound (gain 1) and an exponentially decaying tail of noise."""
    n = round(1.5 * rt60 * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    tail = np.random.default_rng(seed).normal(0.0, 1.0, n) * np.exp(-3 * math.log(10) * t / rt60)
    tail[: round(0.003 * SAMPLE_RATE)] = 0.0  # the first reflection comes a few ms after
    tail *= math.sqrt(10 ** (reverb_db / 10) / float(np.sum(tail**2)))
    tail[0] = 1.0
    return tail


def in_room(pcm: bytes, rt60: float, *, reverb_db: float = 6.0, seed: int = 1) -> bytes:
    """``pcm`` as heard in the room (longer by its tail), at the same speech level."""
    dry = as_int16(pcm).astype(np.float64)
    wet = fftconvolve(dry, impulse_response(rt60, reverb_db, seed))
    wet *= math.sqrt(float(np.mean(dry**2)) / max(float(np.mean(wet[: dry.size] ** 2)), 1e-9))
    return np.clip(np.rint(wet), -32768, 32767).astype("<i2").tobytes()


def floor(seconds: float, level: float = 20.0, seed: int = 2) -> Float:
    """The room's quiet noise floor (white, RMS ``level``), float samples."""
    return np.random.default_rng(seed).normal(0.0, level, round(seconds * SAMPLE_RATE))


def said_in_room(
    parts: list[bytes], rt60: float | None, *, gap_s: float = 1.2, lead_s: float = 0.8, reverb_db: float = 6.0
) -> tuple[bytes, list[tuple[float, float]]]:
    """``parts`` (dry speech) said one after another with ``gap_s`` of pause, in the room of
    ``rt60`` (None: dry), the tails running on into the pauses, over the room's floor; the
    audio and each part's speech (start, end) in seconds."""
    spans, pieces, at = [], [], lead_s
    for k, pcm in enumerate(parts):
        n = as_int16(pcm).size
        wet = pcm if rt60 is None else in_room(pcm, rt60, reverb_db=reverb_db, seed=k + 1)
        pieces.append((round(at * SAMPLE_RATE), as_int16(wet).astype(np.float64)))
        spans.append((at, at + n / SAMPLE_RATE))
        at += n / SAMPLE_RATE + gap_s
    return over_floor(pieces, at + 0.5), spans


def over_floor(pieces: list[tuple[int, Float]], seconds: float) -> bytes:
    """``seconds`` of the room's floor with each (sample offset, samples) of ``pieces``
    added, as pcm16."""
    x = floor(seconds)
    for start, samples in pieces:
        end = min(x.size, start + samples.size)
        x[start:end] += samples[: end - start]
    return np.clip(np.rint(x), -32768, 32767).astype("<i2").tobytes()


def said_in_kitchen(parts: list[bytes], *, gap_s: float = 1.2, lead_s: float = 0.6) -> bytes:
    """``parts`` (dry speech) said one after another from the kitchen's two seats in turn
    (:data:`KITCHEN_SEATS`), at the benches' speech level (-30 dBFS at 1 m of direct path),
    ``gap_s`` apart, the tails running on into the pauses, over the room's floor."""
    with np.load(KITCHEN_SEATS) as seats:
        rirs = [np.asarray(seats[name], dtype=np.float64) for name in sorted(seats.files)]
    pieces: list[tuple[int, Float]] = []
    at = round(lead_s * SAMPLE_RATE)
    for k, pcm in enumerate(parts):
        pieces.append((at, through(pcm, rirs[k % len(rirs)])))
        at += len(pcm) // 2 + round(gap_s * SAMPLE_RATE)
    return over_floor(pieces, at / SAMPLE_RATE + 1.0)
