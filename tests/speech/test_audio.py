from __future__ import annotations

import sys
import time
import warnings
import wave
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.speech import audio
from host.speech.audio import (
    AudioDeviceError,
    AudioFormatError,
    Resampler,
    mulaw8k_to_pcm16k,
    mulaw_decode,
    mulaw_encode,
    pcm_to_mulaw8k,
    read_recording,
    read_wav,
    resample,
    rms,
    wav_chunks,
    write_wav,
)

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        import audioop
    except ImportError:  # removed in Python 3.13
        audioop = None  # type: ignore[assignment]


def tone(freq: float, seconds: float, rate: int, amplitude: float = 10000) -> bytes:
    t = np.arange(round(seconds * rate)) / rate
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype("<i2").tobytes()


def write_raw_wav(path: Path, channels: int, width: int, rate: int, frames: int = 1600) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(bytes(frames * channels * width))
    return path


# --- read_wav ---


def test_read_wav_round_trip(tmp_path: Path) -> None:
    pcm = tone(440, 0.3, 16000)
    write_wav(tmp_path / "a.wav", pcm, 16000)
    assert read_wav(tmp_path / "a.wav") == (pcm, 16000)


@pytest.mark.parametrize(
    ("channels", "width", "rate", "message"),
    [
        (2, 2, 16000, "2 channels, need mono"),
        (1, 1, 16000, "8-bit samples, need 16-bit"),
        (1, 2, 44100, "44100 Hz, need 16000 Hz"),
        (1, 2, 8000, "8000 Hz, need 16000 Hz"),
    ],
)
def test_read_wav_rejects_wrong_format(
    tmp_path: Path, channels: int, width: int, rate: int, message: str
) -> None:
    path = write_raw_wav(tmp_path / "bad.wav", channels, width, rate)
    with pytest.raises(AudioFormatError, match=message) as info:
        read_wav(path)
    assert "sox in.wav -r 16000 -c 1 -b 16 out.wav" in str(info.value)


def test_read_wav_any_rate_when_asked(tmp_path: Path) -> None:
    path = write_raw_wav(tmp_path / "cd.wav", 1, 2, 44100)
    pcm, rate = read_wav(path, rate=None)
    assert rate == 44100 and len(pcm) == 3200


@pytest.mark.parametrize(
    "content",
    [b"this is not audio at all" * 10, b"", b"RIFF\x10\x00\x00\x00WAVEfmt ", b"\x00" * 100],
    ids=["garbage", "empty", "truncated-header", "zeros"],
)
def test_read_wav_rejects_corrupt(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "corrupt.wav"
    path.write_bytes(content)
    with pytest.raises(AudioFormatError, match="not a readable PCM WAV"):
        read_wav(path)


def test_read_wav_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(AudioFormatError, match="no such file"):
        read_wav(tmp_path / "missing.wav")
    with pytest.raises(AudioFormatError, match="directory"):
        read_wav(tmp_path)


# --- read_recording ---


def _as_width(samples: np.ndarray, width: int) -> bytes:
    """Float samples in [-1, 1) as WAV sample bytes of ``width`` (8-bit unsigned)."""
    if width == 1:
        return np.clip(np.rint(samples * 128 + 128), 0, 255).astype(np.uint8).tobytes()
    ints = np.rint(samples * 2 ** (8 * width - 1)).astype("<i4" if width > 2 else "<i2")
    if width == 3:
        return ints.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    return ints.tobytes()


@pytest.mark.parametrize(
    ("rate", "channels", "width", "said"),
    [
        (44100, 2, 3, "44100 Hz, 2 channels, 24-bit"),
        (48000, 1, 4, "48000 Hz, 32-bit"),
        (8000, 1, 1, "8000 Hz, 8-bit"),
        (16000, 2, 2, "2 channels"),
    ],
)
def test_a_recording_of_any_pcm_format_is_heard_as_16k_mono(
    tmp_path: Path, rate: int, channels: int, width: int, said: str
) -> None:
    t = np.arange(rate) / rate  # one second of 300 Hz at a third of full scale
    left = np.sin(2 * np.pi * 300 * t) / 3
    samples = np.stack([left] + [left * 0.5] * (channels - 1), axis=1).reshape(-1)
    path = tmp_path / "rec.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(_as_width(samples, width))
    pcm, converted = read_recording(path)
    assert converted == said
    x = np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768
    assert abs(x.size - 16000) <= 2  # one second at 16 kHz
    mono = (1 + 0.5 * (channels - 1)) / channels / 3  # the channels' mean
    assert np.sqrt(np.mean(x[800:-800] ** 2)) == pytest.approx(mono / np.sqrt(2), rel=0.03)
    spectrum = np.abs(np.fft.rfft(x))
    assert np.argmax(spectrum) * 16000 / x.size == pytest.approx(300, abs=2)


def test_a_16k_mono_recording_is_read_as_it_is(tmp_path: Path) -> None:
    pcm = tone(440, 0.3, 16000)
    write_wav(tmp_path / "a.wav", pcm, 16000)
    assert read_recording(tmp_path / "a.wav") == (pcm, None)


@pytest.mark.parametrize("content", [b"", b"this is not audio at all" * 10], ids=["empty", "garbage"])
def test_an_unreadable_recording_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.wav"
    path.write_bytes(content)
    with pytest.raises(AudioFormatError, match="not a readable PCM WAV"):
        read_recording(path)
    with pytest.raises(AudioFormatError, match="no such file"):
        read_recording(tmp_path / "missing.wav")


# --- chunked sources ---


def test_wav_chunks_sizes(tmp_path: Path) -> None:
    write_wav(tmp_path / "a.wav", tone(300, 0.25, 16000), 16000)
    chunks = list(wav_chunks(tmp_path / "a.wav", chunk_ms=20))
    assert [len(c) for c in chunks] == [640] * 12 + [320]


def test_wav_chunks_realtime_pacing(tmp_path: Path) -> None:
    write_wav(tmp_path / "a.wav", tone(300, 0.3, 16000), 16000)
    start = time.monotonic()
    assert len(list(wav_chunks(tmp_path / "a.wav", chunk_ms=50, realtime=True))) == 6
    assert 0.27 <= time.monotonic() - start < 1.0


def test_microphone_without_portaudio_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", None)  # makes the import fail
    with pytest.raises(AudioDeviceError, match="PortAudio"):
        next(audio.microphone_chunks())


# --- mu-law and resampling ---


def test_mulaw_known_values() -> None:
    # G.711 stores the inverted sign/exponent/mantissa; -1 is "-0.25" after the 14-bit shift
    assert mulaw_encode(np.array([0, -1, 32767, -32768], "<i2").tobytes()) == b"\xff\x7e\x80\x00"
    decoded = np.frombuffer(mulaw_decode(b"\xff\x7f\x80\x00"), "<i2").tolist()
    assert decoded == [0, 0, 32124, -32124]


@pytest.mark.skipif(audioop is None, reason="audioop removed from this Python")
def test_mulaw_matches_audioop_exactly() -> None:
    every_sample = np.arange(-32768, 32768, dtype="<i2").tobytes()
    assert mulaw_encode(every_sample) == audioop.lin2ulaw(every_sample, 2)
    every_code = bytes(range(256))
    assert mulaw_decode(every_code) == audioop.ulaw2lin(every_code, 2)


def test_mulaw_round_trip_error_is_small() -> None:
    pcm = tone(440, 0.1, 8000, amplitude=20000)
    original = np.frombuffer(pcm, "<i2").astype(float)
    back = np.frombuffer(mulaw_decode(mulaw_encode(pcm)), "<i2").astype(float)
    # mu-law keeps ~3% relative precision plus a few counts near zero
    assert np.all(np.abs(back - original) <= 0.035 * np.abs(original) + 8)
    codes = bytes(c for c in range(256) if c != 0x7F)  # 0x7F is "-0", re-encoded as 0xFF
    assert mulaw_encode(mulaw_decode(codes)) == codes


def dominant_frequency(pcm: bytes, rate: int) -> float:
    samples = np.frombuffer(pcm, "<i2").astype(float)
    spectrum = np.abs(np.fft.rfft(samples))
    return float(np.fft.rfftfreq(samples.size, 1 / rate)[np.argmax(spectrum)])


def test_resample_keeps_pitch_and_duration() -> None:
    pcm16k = tone(1000, 0.5, 16000)
    pcm8k = resample(pcm16k, 16000, 8000)
    assert len(pcm8k) == len(pcm16k) // 2
    assert dominant_frequency(pcm8k, 8000) == pytest.approx(1000, abs=5)
    back = resample(pcm8k, 8000, 16000)
    assert len(back) == len(pcm16k)
    a, b = (np.frombuffer(x, "<i2").astype(float)[800:-800] for x in (pcm16k, back))
    assert np.corrcoef(a, b)[0, 1] > 0.99
    assert resample(pcm16k, 16000, 16000) is pcm16k


def test_streaming_resampler_matches_whole_buffer_length() -> None:
    pcm8k = tone(500, 1.0, 8000)
    stream = Resampler(8000, 16000)
    pieces = [stream(pcm8k[i : i + 320]) for i in range(0, len(pcm8k), 320)]
    pieces.append(stream(b"", last=True))
    out = b"".join(pieces)
    assert abs(len(out) - 2 * len(pcm8k)) <= 4
    assert dominant_frequency(out, 16000) == pytest.approx(500, abs=5)


def test_twilio_frame_conversions() -> None:
    payload = mulaw_encode(tone(440, 0.02, 8000))  # one 20 ms Twilio media frame
    assert len(payload) == 160
    assert len(mulaw8k_to_pcm16k(payload)) == 640
    outbound = pcm_to_mulaw8k(tone(440, 0.5, 16000))
    assert len(outbound) == 4000
    level = rms(mulaw_decode(outbound))
    assert 6000 < level < 8000  # 10000 / sqrt(2) survives resampling and mu-law


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(0.0, 40000.0, allow_nan=False) | st.sampled_from([0.0, 12.5, 300.0]), max_size=120),
    st.integers(1, 50),
    st.sampled_from([10.0, 25.0, 50.0, 90.0, 33.3]),
)
def test_a_rolling_percentile_is_numpys_over_the_window(
    values: list[float], size: int, percentile: float
) -> None:
    # The denoiser's floor, kept sorted as frames come, must be the very number numpy gives
    # (its engagement compares it with a threshold).
    rolling = audio.RollingPercentile(size, percentile)
    for k, value in enumerate(values):
        rolling.append(value)
        window = values[max(0, k + 1 - size) : k + 1]
        assert len(rolling) == len(window)
        assert rolling.value == audio.noise_floor(window, percentile)
    assert audio.RollingPercentile(size, percentile).value == audio.noise_floor([], percentile) == 0.0
