"""PCM16 audio plumbing: WAV files, chunked sources, microphone, mu-law and resampling.

All audio inside gamehost is mono signed 16-bit little-endian PCM ("pcm16") as ``bytes``;
the recogniser runs at 16 kHz. Telephony (Twilio Media Streams) uses 8 kHz G.711 mu-law.
"""

from __future__ import annotations

import bisect
import logging
import math
import os
import queue
import time
import wave
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt
import soxr

log = logging.getLogger(__name__)

SAMPLE_RATE = 16000
TELEPHONY_RATE = 8000
SAMPLE_WIDTH = 2  # bytes per pcm16 sample
CONVERT_HINT = "convert it with: sox in.wav -r 16000 -c 1 -b 16 out.wav"


class AudioFormatError(ValueError):
    """Audio that gamehost cannot use; the message says what is wrong and how to fix it."""


class AudioDeviceError(RuntimeError):
    """No usable sound device (PortAudio missing, no input/output device, ...)."""


# --- WAV --------------------------------------------------------------------------------


def read_wav(path: str | os.PathLike[str], rate: int | None = SAMPLE_RATE) -> tuple[bytes, int]:
    """Read a mono 16-bit PCM WAV file; return ``(pcm16, sample_rate)``.

    ``rate`` is the sample rate required (default 16 kHz, what the recogniser wants);
    pass None to accept any rate. We refuse rather than silently resample so that a
    wrongly recorded test file is noticed instead of degrading recognition.
    """
    name = os.fspath(path)
    channels, width, framerate, pcm = _read_pcm_wav(name)
    if channels != 1:
        raise AudioFormatError(f"{name}: has {channels} channels, need mono; {CONVERT_HINT}")
    if width != SAMPLE_WIDTH:
        raise AudioFormatError(f"{name}: has {8 * width}-bit samples, need 16-bit; {CONVERT_HINT}")
    if rate is not None and framerate != rate:
        raise AudioFormatError(f"{name}: sample rate is {framerate} Hz, need {rate} Hz; {CONVERT_HINT}")
    if len(pcm) % SAMPLE_WIDTH:
        pcm = pcm[: len(pcm) - len(pcm) % SAMPLE_WIDTH]  # drop a torn last sample
    return pcm, framerate


def read_recording(path: str | os.PathLike[str]) -> tuple[bytes, str | None]:
    """Read a recording of a game as the recogniser wants it: any PCM WAV (mono or more
    channels, 8- to 32-bit, any rate) mixed down to mono, 16-bit, resampled once with soxr
    to 16 kHz, as a microphone's input is (:func:`microphone_chunks`). Returns the pcm16
    and what was converted (None: nothing; else e.g. "44100 Hz, 2 channels" for the user to
    see). Unreadable files raise :class:`AudioFormatError` as :func:`read_wav` does; test
    audio keeps using :func:`read_wav`, which refuses rather than converts."""
    name = os.fspath(path)
    channels, width, framerate, raw = _read_pcm_wav(name)
    if channels < 1 or width not in (1, 2, 3, 4) or framerate <= 0:
        raise AudioFormatError(f"{name}: {channels} channels of {8 * width}-bit samples; {CONVERT_HINT}")
    frame = channels * width
    samples = _pcm_as_float(raw[: len(raw) - len(raw) % frame], width).reshape(-1, channels).mean(axis=1)
    pcm = np.clip(np.rint(samples * 32768), -32768, 32767).astype("<i2").tobytes()
    pcm = resample(pcm, framerate, SAMPLE_RATE)
    changed = [
        f"{framerate} Hz" if framerate != SAMPLE_RATE else "",
        f"{channels} channels" if channels != 1 else "",
        f"{8 * width}-bit" if width != SAMPLE_WIDTH else "",
    ]
    return pcm, ", ".join(c for c in changed if c) or None


def _read_pcm_wav(name: str) -> tuple[int, int, int, bytes]:
    """A PCM WAV file's channels, sample width (bytes), rate and frames; what cannot be
    read as one is an :class:`AudioFormatError` that says why."""
    try:
        with wave.open(name, "rb") as w:
            return w.getnchannels(), w.getsampwidth(), w.getframerate(), w.readframes(w.getnframes())
    except FileNotFoundError as exc:
        raise AudioFormatError(f"{name}: no such file") from exc
    except IsADirectoryError as exc:
        raise AudioFormatError(f"{name}: is a directory, not a WAV file") from exc
    except (wave.Error, EOFError) as exc:
        # wave.Error: not RIFF/WAVE, or compressed/extensible format; EOFError: truncated.
        raise AudioFormatError(
            f"{name}: not a readable PCM WAV file ({str(exc) or 'empty or cut short'}); {CONVERT_HINT}"
        ) from exc


def _pcm_as_float(raw: bytes, width: int) -> npt.NDArray[np.float64]:
    """WAV samples of ``width`` bytes (8-bit unsigned, wider signed little-endian) in [-1, 1)."""
    if width == 1:
        return (np.frombuffer(raw, dtype=np.uint8).astype(np.float64) - 128) / 128
    if width == 3:  # no numpy dtype: widen each sample to 4 bytes, low byte zero
        b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3)
        wide = np.zeros((b.shape[0], 4), dtype=np.uint8)
        wide[:, 1:] = b
        ints, width = wide.view("<i4").reshape(-1), 4  # shifted up a byte: a 32-bit sample
    else:
        ints = np.frombuffer(raw, dtype=f"<i{width}")
    return ints.astype(np.float64) / 2.0 ** (8 * width - 1)


def write_wav(path: str | os.PathLike[str], pcm: bytes, rate: int = SAMPLE_RATE) -> None:
    """Write mono pcm16 to a WAV file."""
    with wave.open(os.fspath(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(SAMPLE_WIDTH)
        w.setframerate(rate)
        w.writeframes(pcm)


# --- chunked sources --------------------------------------------------------------------


def chunk_bytes(rate: int, chunk_ms: int) -> int:
    """Size in bytes of a ``chunk_ms`` chunk of pcm16 at ``rate``."""
    return max(1, rate * chunk_ms // 1000) * SAMPLE_WIDTH


def pcm_chunks(
    pcm: bytes, rate: int = SAMPLE_RATE, chunk_ms: int = 20, realtime: bool = False
) -> Iterator[bytes]:
    """Split pcm16 into ``chunk_ms`` chunks (the last may be shorter).

    With ``realtime`` each chunk is released no earlier than it would arrive from a live
    source, so end-of-utterance latency can be measured as a user would feel it.
    """
    size = chunk_bytes(rate, chunk_ms)
    start = time.monotonic()
    for offset in range(0, len(pcm), size):
        chunk = pcm[offset : offset + size]
        if realtime:
            due = start + (offset + len(chunk)) / (SAMPLE_WIDTH * rate)
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        yield chunk


def wav_chunks(
    path: str | os.PathLike[str],
    chunk_ms: int = 20,
    realtime: bool = False,
    rate: int = SAMPLE_RATE,
) -> Iterator[bytes]:
    """pcm16 chunks of a 16 kHz mono WAV file (see :func:`read_wav`, :func:`pcm_chunks`)."""
    pcm, file_rate = read_wav(path, rate)
    yield from pcm_chunks(pcm, file_rate, chunk_ms, realtime)


def load_sounddevice() -> Any:
    try:
        import sounddevice  # lazy: without PortAudio this raises OSError; headless use goes on
    except (ImportError, OSError) as exc:
        raise AudioDeviceError(
            f"sound device support is unavailable ({exc}); install PortAudio "
            "(e.g. 'apt-get install libportaudio2') and the sounddevice package"
        ) from exc
    return sounddevice


#: The first seconds of a microphone in which silence means a problem (muted, the wrong
#: input), not a quiet table: a table says its names or a first move by then.
SILENT_FOR_S = 10.0
#: A sample this close to full scale is clipped; this share of a second's samples clipped
#: means the input level is too high (a word's peaks flattened: the recogniser mishears).
CLIPPED = 32000
CLIPPED_SHARE = 0.001
#: Quieter than this (dBFS RMS) for the whole first :data:`SILENT_FOR_S` is no signal at all
#: (a quiet room through a working phone or laptop microphone is -70 to -55).
SILENT_DBFS = -80.0


class InputWatch:
    """Says once, in words a player can act on, when a microphone's input clips or has been
    silent for its first :data:`SILENT_FOR_S` seconds; ``tell`` gets the message."""

    def __init__(self, rate: int, tell: Callable[[str], None] = log.warning) -> None:
        self.rate = rate
        self.tell = tell
        self.heard_s = 0.0
        self.loudest = 0.0  # RMS of the loudest chunk so far
        self._second: list[int] = [0, 0]  # samples and clipped samples in the current second
        self.clipping = self.silent = False

    def __call__(self, pcm: bytes) -> None:
        x = as_int16(pcm).astype(np.float64)
        if not x.size:
            return
        self.heard_s += x.size / self.rate
        self.loudest = max(self.loudest, float(np.sqrt(np.mean(x**2))))
        if (
            not self.silent
            and self.heard_s >= SILENT_FOR_S
            and 20 * math.log10(max(self.loudest, 1e-3) / 32768) < SILENT_DBFS
        ):
            self.silent = True
            self.tell(
                f"The microphone has heard nothing for {SILENT_FOR_S:.0f} s: is it muted, or is "
                "another input the system's default? Choose the microphone in the system's sound settings."
            )
        self._second[0] += x.size
        self._second[1] += int(np.count_nonzero(np.abs(x) >= CLIPPED))
        if self._second[0] >= self.rate:
            if not self.clipping and self._second[1] > CLIPPED_SHARE * self._second[0]:
                self.clipping = True
                self.tell(
                    "The microphone is too loud: its input clips and words get misheard. Turn its input "
                    "level down in the system's sound settings, or move it away from the loudest player."
                )
            self._second = [0, 0]


def input_rate(sd: Any, device: int | str | None) -> int:
    """The input device's own sample rate (PortAudio's default for it)."""
    return round(float(sd.query_devices(device, "input")["default_samplerate"]))


def microphone_chunks(
    rate: int = SAMPLE_RATE,
    chunk_ms: int = 20,
    device: int | str | None = None,
    stop_after_s: float | None = None,
    tell: Callable[[str], None] = log.warning,
) -> Iterator[bytes]:
    """pcm16 chunks at ``rate`` from the default (or given) input device until the caller
    stops.

    The device is opened at its own rate (asking PortAudio for 16 kHz makes it or the
    driver resample, some badly, some not at all) and resampled here once, with soxr.
    Audio is captured by PortAudio's callback thread into a queue, so a slow consumer does
    not drop samples (it only falls behind). An :class:`InputWatch` tells ``tell`` when the
    input clips or is silent at first. Closing the generator closes the stream.
    """
    sd = load_sounddevice()
    chunks: queue.Queue[bytes] = queue.Queue()

    def callback(indata: Any, _frames: int, _time: Any, status: Any) -> None:
        if status:
            log.warning("microphone: %s", status)
        chunks.put(bytes(indata))

    try:
        native = input_rate(sd, device)
        stream = sd.RawInputStream(
            samplerate=native,
            blocksize=chunk_bytes(native, chunk_ms) // SAMPLE_WIDTH,
            device=device,
            channels=1,
            dtype="int16",
            callback=callback,
        )
    except Exception as exc:  # sounddevice.PortAudioError and ValueError for bad devices
        raise AudioDeviceError(f"cannot open the microphone: {exc}") from exc
    resampler = None if native == rate else soxr.ResampleStream(native, rate, 1, dtype="int16", quality="HQ")
    watch = InputWatch(native, tell)
    deadline = None if stop_after_s is None else time.monotonic() + stop_after_s
    with stream:
        while deadline is None or time.monotonic() < deadline:
            try:
                pcm = chunks.get(timeout=1.0)
            except queue.Empty:
                log.warning("microphone delivered no audio for 1 s")
                continue
            watch(pcm)
            if resampler is not None:
                pcm = resampler.resample_chunk(as_int16(pcm)).astype("<i2").tobytes()
            if pcm:
                yield pcm


# --- conversions ------------------------------------------------------------------------


def as_int16(pcm: bytes) -> npt.NDArray[np.int16]:
    """View pcm16 bytes as an int16 array (no copy)."""
    return np.frombuffer(pcm, dtype="<i2")


def frame_levels(samples: npt.NDArray[np.float64], frame: int) -> npt.NDArray[np.float64]:
    """RMS of each ``frame``-sample frame of ``samples`` (a whole number of frames)."""
    levels: npt.NDArray[np.float64] = np.sqrt(np.mean(samples.reshape(-1, frame) ** 2, axis=1))
    return levels


def noise_floor(levels: Iterable[float], percentile: float) -> float:
    """The noise floor of recent frame ``levels``: their ``percentile`` (0 for none)."""
    window = np.fromiter(levels, dtype=np.float64)
    return float(np.percentile(window, percentile)) if window.size else 0.0


class RollingPercentile:
    """The ``percentile`` of the last ``size`` values appended, as :func:`noise_floor` gives it
    (numpy's linear method, to the last bit), kept sorted as they come: the denoiser asks
    for its floor every 10 ms frame, and sorting the window each time cost a card game
    spoken at the table 5 % of its CPU."""

    def __init__(self, size: int, percentile: float) -> None:
        self.fraction = float(np.true_divide(percentile, 100))
        self._window: deque[float] = deque()
        self._sorted: list[float] = []
        self.size = size

    def __len__(self) -> int:
        return len(self._window)

    def append(self, value: float) -> None:
        self._window.append(value)
        bisect.insort(self._sorted, value)
        if len(self._window) > self.size:
            del self._sorted[bisect.bisect_left(self._sorted, self._window.popleft())]

    @property
    def value(self) -> float:
        """The percentile now (0 for no values)."""
        n = len(self._sorted)
        if not n:
            return 0.0
        at = self.fraction * (n - 1)
        below = math.floor(at)
        a, b = self._sorted[below], self._sorted[min(below + 1, n - 1)]
        t = at - below
        # numpy's _lerp: from the nearer end, so that the result is exact at both.
        return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def speech_to_noise_db(speech: Iterable[float], floor: float, percentile: float = 90.0) -> float:
    """How far speech frames' levels stand above the noise ``floor``, in dB: their
    ``percentile`` (the loud part of the words) against it. Digital silence counts as a
    floor of 1 (of 32768), so clean audio gives about 70 dB; no speech gives -inf."""
    loud = np.fromiter(speech, dtype=np.float64)
    if not loud.size:
        return -math.inf
    return 20 * math.log10(max(float(np.percentile(loud, percentile)), 1.0) / max(floor, 1.0))


def speech_threshold(levels: Iterable[float], min_rms: float, ratio: float, percentile: float) -> float:
    """Level above which a frame is speech: ``ratio`` times the noise floor (the
    ``percentile`` of recent frame ``levels``, so steady noise is not speech), at least
    ``min_rms``."""
    return threshold_over(noise_floor(levels, percentile), min_rms, ratio)


def threshold_over(floor: float, min_rms: float, ratio: float) -> float:
    """:func:`speech_threshold` over a noise ``floor`` already measured (a
    :class:`RollingPercentile`'s value)."""
    return max(min_rms, ratio * floor)


def rms(pcm: bytes) -> float:
    """Root-mean-square level of pcm16 (0..32768)."""
    samples = as_int16(pcm)
    if samples.size == 0:
        return 0.0
    return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2)))


_MULAW_BIAS = 0x84
_MULAW_CLIP14 = 8159
_MULAW_SEGMENT_ENDS = np.array([0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF])


def _build_mulaw_decode_table() -> npt.NDArray[np.int16]:
    codes = ~np.arange(256, dtype=np.int32) & 0xFF
    exponent = (codes >> 4) & 0x07
    mantissa = codes & 0x0F
    magnitude = (((mantissa << 3) + _MULAW_BIAS) << exponent) - _MULAW_BIAS
    return np.where(codes & 0x80, -magnitude, magnitude).astype(np.int16)


_MULAW_DECODE = _build_mulaw_decode_table()


def mulaw_decode(data: bytes) -> bytes:
    """G.711 mu-law bytes -> pcm16 at the same sample rate (same values as audioop.ulaw2lin)."""
    codes = np.frombuffer(data, dtype=np.uint8)
    return _MULAW_DECODE[codes].astype("<i2").tobytes()


def mulaw_encode(pcm: bytes) -> bytes:
    """pcm16 -> G.711 mu-law bytes at the same sample rate (bit-exact with audioop.lin2ulaw).

    Follows the reference 14-bit algorithm (shift right by 2 before taking the magnitude)
    so that results match the stdlib and Twilio's own codec sample for sample.
    """
    samples = as_int16(pcm).astype(np.int32) >> 2
    mask = np.where(samples < 0, 0x7F, 0xFF)
    magnitude = np.minimum(np.abs(samples), _MULAW_CLIP14) + (_MULAW_BIAS >> 2)
    segment = np.searchsorted(_MULAW_SEGMENT_ENDS, magnitude)  # as the C search(): 0..8
    codes = np.where(
        segment >= 8,
        0x7F ^ mask,
        ((segment << 4) | ((magnitude >> (segment + 1)) & 0x0F)) ^ mask,
    )
    return codes.astype(np.uint8).tobytes()


def resample(pcm: bytes, from_rate: int, to_rate: int) -> bytes:
    """Resample a whole pcm16 buffer (use :class:`Resampler` for a stream of chunks)."""
    if from_rate == to_rate or not pcm:
        return pcm
    out = soxr.resample(as_int16(pcm), from_rate, to_rate, quality="HQ")
    return np.asarray(out, dtype="<i2").tobytes()


class Resampler:
    """Streaming pcm16 resampler; keeps filter state across chunks (no clicks at joins)."""

    def __init__(self, from_rate: int, to_rate: int) -> None:
        self.from_rate = from_rate
        self.to_rate = to_rate
        self._stream = (
            None
            if from_rate == to_rate
            else soxr.ResampleStream(from_rate, to_rate, 1, dtype="int16", quality="HQ")
        )

    def __call__(self, pcm: bytes, last: bool = False) -> bytes:
        """Resample the next chunk; pass ``last=True`` on the final one to drain the filter."""
        if self._stream is None:
            return pcm
        out = self._stream.resample_chunk(as_int16(pcm), last=last)
        return np.asarray(out, dtype="<i2").tobytes()


def mulaw8k_to_pcm16k(data: bytes, resampler: Resampler | None = None) -> bytes:
    """Twilio inbound media payload (8 kHz mu-law) -> pcm16 at 16 kHz for the recogniser."""
    pcm8k = mulaw_decode(data)
    return resampler(pcm8k) if resampler else resample(pcm8k, TELEPHONY_RATE, SAMPLE_RATE)


def pcm_to_mulaw8k(pcm: bytes, rate: int = SAMPLE_RATE) -> bytes:
    """pcm16 at ``rate`` -> 8 kHz mu-law, the format Twilio accepts on a media stream."""
    return mulaw_encode(resample(pcm, rate, TELEPHONY_RATE))
