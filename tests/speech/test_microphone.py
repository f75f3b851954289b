"""A real microphone (host/speech/audio.py): opened at the device's own rate and resampled
once to 16 kHz; a clear message when its input clips or is silent at first. sounddevice
is stood in for (no sound card here); the speech is Piper's."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

import host.speech.audio as audio
from host.speech.audio import SAMPLE_RATE, InputWatch, as_int16, microphone_chunks, resample
from tests import voices
from tests.speech.conftest import trim


class FakeDevice:
    """sounddevice with one input device at ``rate`` that delivers ``pcm`` (at that rate)."""

    def __init__(self, rate: int, pcm: bytes) -> None:
        self.rate, self.pcm = rate, pcm
        self.opened_at: float | None = None

    def query_devices(self, device: Any, kind: str) -> dict[str, Any]:
        assert kind == "input"
        return {"default_samplerate": float(self.rate)}

    def RawInputStream(self, *, samplerate: float, blocksize: int, callback: Any, **_: Any) -> Any:
        self.opened_at = samplerate
        pcm, step = self.pcm, 2 * blocksize

        class Stream:
            def __enter__(self) -> Stream:
                def run() -> None:
                    for i in range(0, len(pcm), step):
                        callback(pcm[i : i + step], blocksize, None, None)

                threading.Thread(target=run, daemon=True).start()
                return self

            def __exit__(self, *_: Any) -> None:
                pass

        return Stream()


def test_the_microphone_is_opened_at_its_own_rate_and_resampled_once(monkeypatch: Any) -> None:
    said = trim(voices.piper("forty two"))
    device = FakeDevice(48000, resample(said, SAMPLE_RATE, 48000))
    monkeypatch.setattr(audio, "load_sounddevice", lambda: device)
    got = b""
    for chunk in microphone_chunks(SAMPLE_RATE, 20, stop_after_s=30):
        got += chunk
        if len(got) >= len(said) - 2 * 320:
            break
    assert device.opened_at == 48000
    x, y = as_int16(said).astype(np.float64), as_int16(got).astype(np.float64)
    n = min(x.size, y.size) - 400
    # The same speech at 16 kHz (soxr's filter delays it by a few samples).
    best = max(np.corrcoef(x[:n], y[k : k + n])[0, 1] for k in range(0, 40))
    assert best > 0.95


def test_a_clipping_input_is_told_once() -> None:
    told: list[str] = []
    watch = InputWatch(48000, told.append)
    speech = as_int16(resample(trim(voices.piper("nineteen")), SAMPLE_RATE, 48000)).astype(np.float64)
    loud = np.clip(speech * 20, -32768, 32767).astype("<i2").tobytes()
    fine = speech.astype("<i2").tobytes()
    for _ in range(3):
        watch(fine)
    assert told == []  # speech at its level: nothing to say
    for _ in range(3):
        watch(loud)
    assert len(told) == 1 and "too loud" in told[0]


def test_a_silent_input_is_told_after_ten_seconds_a_quiet_room_is_not() -> None:
    told: list[str] = []
    watch = InputWatch(SAMPLE_RATE, told.append)
    for _ in range(9):
        watch(bytes(2 * SAMPLE_RATE))
    assert told == []
    watch(bytes(2 * SAMPLE_RATE))
    assert len(told) == 1 and "heard nothing" in told[0]
    quiet = InputWatch(SAMPLE_RATE, told.append)
    room = np.random.default_rng(1).normal(0, 10, SAMPLE_RATE).astype("<i2").tobytes()  # -70 dBFS
    for _ in range(12):
        quiet(room)
    assert len(told) == 1
