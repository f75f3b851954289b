"""Who is speaking: a voice's embedding (its voiceprint) and the players' enrolled voices.

The engine is Resemblyzer's trained speaker encoder (a GE2E model: 3 LSTM layers of 256
over 40 mel bands, a 256-number embedding; Apache-2.0, ``voiceprint_weights/NOTICE``),
exported once from its checkpoint to ONNX and run with onnxruntime, which Piper already
brings: no PyTorch, no weights fetched at run time. The audio goes through Resemblyzer's
own preprocessing, reproduced here in numpy: volume raised to -30 dBFS (never lowered),
long silences cut, a power mel spectrogram (25 ms windows every 10 ms, librosa's Slaney
filters), partial windows of 1.6 s at 1.3 a second, each embedded, averaged and
normalised. ``tests/speech/test_voiceprint.py`` holds it to embeddings made by Resemblyzer
with PyTorch (docs/speech.md, "Who spoke").

Privacy: a voiceprint lives in memory only, for one game; nothing here writes one to a file,
the database or a log (a :class:`Voiceprint`'s repr leaves the numbers out).
"""

from __future__ import annotations

import functools
import logging
import math
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from host.speech.audio import (
    SAMPLE_RATE,
    as_int16,
    frame_levels,
    resample,
    speech_threshold,
    speech_to_noise_db,
)

log = logging.getLogger(__name__)

Vector = npt.NDArray[np.float32]

WEIGHTS = Path(__file__).with_name("voiceprint_weights") / "encoder.onnx"

# Resemblyzer's hyperparameters (resemblyzer/hparams.py, voice_encoder.py).
EMBEDDING_SIZE = 256
MEL_WINDOW = 400  # 25 ms
MEL_HOP = 160  # 10 ms
MEL_BANDS = 40
PARTIAL_FRAMES = 160  # 1.6 s
PARTIALS_PER_S = 1.3
MIN_COVERAGE = 0.75  # a last partial less covered than this is dropped (unless it is the only one)
TARGET_DBFS = -30.0
# Silence cutting: 30 ms windows, a moving average of 8, voiced stretches widened by 6.
VAD_WINDOW = SAMPLE_RATE * 30 // 1000
VAD_AVERAGE = 8
VAD_MAX_SILENCE = 6
_INT16_MAX = 2**15 - 1

# Measured with tests/bench/bench_speakers.py (docs/speech.md, "Who spoke").
#: Seconds of speech (10 ms frames above the speech level) below which a voice is not
#: judged: at 0.1 s the encoder is at chance, at 0.2 s right 86 % of the time among four
#: voices; a name as short as "Bob" holds 0.23 s.
MIN_SPEECH_S = 0.2
#: Speech less than this many dB above the utterance's noise floor (as measured here) is too
#: noisy to judge: at 20 dB four voices are told apart 96 % of the time, at 15 dB 74 %.
MIN_SNR_DB = 20.0
#: Below this cosine with every enrolled voice, the speaker is nobody enrolled.
MIN_SCORE = 0.5
#: A voice named instead of the presumed speaker (the player on turn) must score this much
#: above them; with no one presumed, above the runner-up.
MIN_MARGIN = 0.05
#: :meth:`Voices.contrast` takes out this many directions in which the players' own
#: utterances vary most round their voices (the words said, the room's colour on them) ...
NUISANCE_DIRECTIONS = 3
#: ... once this many utterances vary round voices of two or more.
NUISANCE_FROM = 8

# Speech level of a 10 ms frame (as the endpointer's energy detector): 3 x the utterance's
# 10th-percentile frame level, and never below 100 (-50 dBFS).
_FRAME = SAMPLE_RATE // 100
_SPEECH_MIN_RMS = 100.0
_SPEECH_RATIO = 3.0
_FLOOR_PERCENTILE = 10.0


# --- the encoder --------------------------------------------------------------------------


@functools.cache
def _session() -> Any:
    """The encoder, loaded once (about 20 ms) on one thread: it runs beside the decoders."""
    import onnxruntime  # lazy: a native runtime, loaded only where voices are compared

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    log.info("loading the voice encoder %s", WEIGHTS)
    return onnxruntime.InferenceSession(str(WEIGHTS), options, providers=["CPUExecutionProvider"])


def load() -> None:
    """Load the encoder now rather than on the first utterance."""
    _session()


def _hz_to_mel(hz: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    # Slaney's scale (librosa's default): linear to 1 kHz, logarithmic above.
    log_step = math.log(6.4) / 27.0
    linear = hz / (200.0 / 3)
    logarithmic = 15.0 + np.log(np.maximum(hz, 1e-10) / 1000.0) / log_step
    return np.where(hz >= 1000.0, logarithmic, linear)


def _mel_to_hz(mel: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    log_step = math.log(6.4) / 27.0
    return np.where(mel >= 15.0, 1000.0 * np.exp(log_step * (mel - 15.0)), mel * (200.0 / 3))


@functools.cache
def _mel_filters() -> npt.NDArray[np.float32]:
    """librosa.filters.mel(sr=16000, n_fft=400, n_mels=40): Slaney-normalised triangles."""
    bins = np.fft.rfftfreq(MEL_WINDOW, 1.0 / SAMPLE_RATE)
    edges = _mel_to_hz(np.linspace(0.0, float(_hz_to_mel(np.array(SAMPLE_RATE / 2))), MEL_BANDS + 2))
    widths = np.diff(edges)
    ramps = np.subtract.outer(edges, bins)
    rising = -ramps[:-2] / widths[:-1, None]
    falling = ramps[2:] / widths[1:, None]
    filters = np.maximum(0.0, np.minimum(rising, falling)) * (2.0 / (edges[2:] - edges[:-2]))[:, None]
    out: npt.NDArray[np.float32] = filters.astype(np.float32)
    return out


@functools.cache
def _hann() -> npt.NDArray[np.float32]:
    n = np.arange(MEL_WINDOW)
    return (0.5 - 0.5 * np.cos(2 * np.pi * n / MEL_WINDOW)).astype(np.float32)  # periodic


def mel_spectrogram(wav: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Power mel spectrogram, frames x 40, as librosa.feature.melspectrogram computes it
    (centred frames, zero padded; not logarithmic)."""
    padded = np.pad(wav, MEL_WINDOW // 2)
    count = 1 + (len(padded) - MEL_WINDOW) // MEL_HOP
    index = np.arange(MEL_WINDOW)[None, :] + MEL_HOP * np.arange(count)[:, None]
    power = np.abs(np.fft.rfft(padded[index] * _hann(), axis=1)) ** 2
    mel: npt.NDArray[np.float32] = power.astype(np.float32) @ _mel_filters().T
    return mel


def _partials(samples: int) -> Iterator[int]:
    """First frame of each 1.6 s partial window over ``samples`` (Resemblyzer's
    compute_partial_slices): at least one, the last dropped if it is mostly padding."""
    frames = math.ceil((samples + 1) / MEL_HOP)
    step = round(SAMPLE_RATE / PARTIALS_PER_S / MEL_HOP)
    starts = list(range(0, max(1, frames - PARTIAL_FRAMES + step + 1), step))
    last = starts[-1] * MEL_HOP
    if len(starts) > 1 and (samples - last) / (PARTIAL_FRAMES * MEL_HOP) < MIN_COVERAGE:
        starts.pop()
    yield from starts


def _raise_volume(wav: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    level = float(np.sqrt(np.mean((wav.astype(np.float64) * _INT16_MAX) ** 2)))
    if level <= 0:
        return wav
    change_db = TARGET_DBFS - 20 * math.log10(level / _INT16_MAX)
    return wav if change_db < 0 else (wav * 10 ** (change_db / 20)).astype(np.float32)


def _cut_silences(wav: npt.NDArray[np.float32], voiced: npt.NDArray[np.bool_]) -> npt.NDArray[np.float32]:
    """Resemblyzer's trim_long_silences given each 30 ms window's voice flag: smoothed by a
    moving average of 8, widened by 6 windows each side, the rest cut."""
    width = VAD_AVERAGE
    padded = np.concatenate((np.zeros((width - 1) // 2), voiced.astype(np.float64), np.zeros(width // 2)))
    sums = np.cumsum(padded)
    sums[width:] = sums[width:] - sums[:-width]
    keep = np.round(sums[width - 1 :] / width).astype(bool)
    if keep.any():
        grow = VAD_MAX_SILENCE // 2
        idx = np.flatnonzero(keep)
        spread = (idx[:, None] + np.arange(-grow, grow + 1)[None, :]).ravel()
        keep[spread[(spread >= 0) & (spread < len(keep))]] = True
    kept: npt.NDArray[np.float32] = wav[: len(keep) * VAD_WINDOW][np.repeat(keep, VAD_WINDOW)]
    return kept


def _encode(wav: npt.NDArray[np.float32]) -> Vector:
    """Resemblyzer's embed_utterance: the mean of the partial windows' embeddings, unit length."""
    starts = list(_partials(len(wav)))
    end = (starts[-1] + PARTIAL_FRAMES) * MEL_HOP
    if end >= len(wav):
        wav = np.pad(wav, (0, end - len(wav)))
    mel = mel_spectrogram(wav)
    batch = np.stack([mel[s : s + PARTIAL_FRAMES] for s in starts])
    partial: Vector = _session().run(None, {"mels": batch})[0]
    mean = partial.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    unit: Vector = (mean / norm if norm > 0 else mean).astype(np.float32)
    return unit


# --- an utterance's voiceprint --------------------------------------------------------------


@dataclass(frozen=True)
class Voiceprint:
    """An utterance's voice: its embedding (unit length; None when the utterance is too poor
    to judge, and kept out of repr, so out of logs), how many seconds of it were speech, how
    far the speech stood above its noise, and why it is unsure ("short", "noisy" or "")."""

    vector: Vector | None = field(repr=False)
    speech_s: float
    snr_db: float
    unsure: str = ""


def _measure(samples: npt.NDArray[np.int16]) -> tuple[npt.NDArray[np.bool_], float]:
    """Which 10 ms frames are speech, and the speech's level above the noise floor (dB)."""
    frames = len(samples) // _FRAME
    if frames == 0:
        return np.zeros(0, dtype=bool), -math.inf
    levels = frame_levels(samples[: frames * _FRAME].astype(np.float64), _FRAME)
    threshold = speech_threshold(levels, _SPEECH_MIN_RMS, _SPEECH_RATIO, _FLOOR_PERCENTILE)
    speech = levels > threshold
    floor = float(np.percentile(levels, _FLOOR_PERCENTILE))
    return speech, speech_to_noise_db(levels[speech], floor)


Samples = bytes | npt.NDArray[np.int16]


def voiceprint(samples: Samples, rate: int = SAMPLE_RATE) -> Voiceprint:
    """The voiceprint of an utterance (pcm16 bytes or int16 samples at ``rate``), its vector
    None when it holds less than :data:`MIN_SPEECH_S` of speech or stands less than
    :data:`MIN_SNR_DB` above its noise. Tens of ms of CPU (tests/bench/bench_speakers.py)."""
    pcm = samples if isinstance(samples, bytes) else np.asarray(samples, dtype="<i2").tobytes()
    clip = as_int16(resample(pcm, rate, SAMPLE_RATE))
    speech, snr_db = _measure(clip)
    speech_s = float(speech.sum()) * _FRAME / SAMPLE_RATE
    if speech_s < MIN_SPEECH_S:
        return Voiceprint(None, speech_s, snr_db, "short")
    if snr_db < MIN_SNR_DB:
        return Voiceprint(None, speech_s, snr_db, "noisy")
    wav = _raise_volume(clip.astype(np.float32) / 32768.0)
    # A 30 ms window is voiced when any of its three 10 ms frames is speech.
    windows = len(speech) // 3
    voiced = np.any(speech[: windows * 3].reshape(windows, 3), axis=1)
    return Voiceprint(_encode(_cut_silences(wav, voiced)), speech_s, snr_db)


def embed(samples: Samples, rate: int = SAMPLE_RATE) -> Vector | None:
    """The voice embedding of an utterance (pcm16 bytes or int16 samples at ``rate``): a unit
    vector of 256 numbers, or None when it is too short or too noisy to say whose it is."""
    return voiceprint(samples, rate).vector


# --- the players' voices ----------------------------------------------------------------------


class Identity(NamedTuple):
    """Whose voice an embedding is: ``player`` (None when unsure), the cosine ``score`` with
    the best enrolled voice and its ``margin`` over the presumed speaker's (over the
    runner-up's when the best is the presumed speaker or no one is presumed); ``unsure`` says
    why there is no player ("" when there is one): "unheard" (no embedding), "no voices",
    "nobody" (no voice is close), "close" (too near the presumed speaker or the runner-up).
    ``nearest``: whose voice scored best, named or not (None: no embedding or no voices)."""

    player: str | None
    score: float
    margin: float
    unsure: str = ""
    nearest: str | None = None


class Voices:
    """The players' voices for one game, in memory only (never stored or logged): each the
    mean of its utterances' embeddings (the name, then every move ruled theirs), compared
    by cosine. Safe to call from the listener's threads."""

    def __init__(self, *, min_score: float = MIN_SCORE, min_margin: float = MIN_MARGIN) -> None:
        self.min_score = min_score
        self.min_margin = min_margin
        self._sums: dict[str, npt.NDArray[np.float64]] = {}
        self._counts: dict[str, int] = {}
        #: Each voice's utterances (its name, the moves ruled): what :meth:`contrast` learns
        #: the table's nuisance directions from. In memory, for the game only, as the sums.
        self._heard: dict[str, list[Vector]] = {}
        self._nuisance: npt.NDArray[np.float64] | None = None  # cached; None: not computed
        self._lock = threading.Lock()

    def __contains__(self, player: object) -> bool:
        return player in self._sums

    def __repr__(self) -> str:
        return f"Voices({self.counts()})"  # how many utterances each, never the numbers

    @property
    def players(self) -> list[str]:
        """The players with an enrolled voice, in the order they enrolled."""
        return list(self._sums)

    def counts(self) -> dict[str, int]:
        """How many utterances make up each player's voice."""
        with self._lock:
            return dict(self._counts)

    def enrol(self, player: str, embedding: Vector) -> None:
        """Make ``embedding`` ``player``'s voice, replacing any before (their name said)."""
        with self._lock:
            self._sums[player] = embedding.astype(np.float64)
            self._counts[player] = 1
            self._heard[player] = [embedding]
            self._nuisance = None

    def refine(self, player: str, embedding: Vector) -> None:
        """Add ``embedding`` to ``player``'s voice (a move ruled theirs); enrols a new player."""
        with self._lock:
            if player not in self._sums:
                self._sums[player] = np.zeros(len(embedding))
                self._counts[player] = 0
            self._sums[player] = self._sums[player] + embedding
            self._counts[player] += 1
            self._heard.setdefault(player, []).append(embedding)
            self._nuisance = None

    def ruled(self, player: str, embedding: Vector | None) -> bool:
        """A move was ruled ``player``'s: refine their voice with it when it sounds like them
        (a move ruled theirs in another voice would blur theirs), or enrol them from it when
        they have no voice yet (no name was heard). False when the voice was left as it was."""
        if embedding is None:
            return False
        if player in self and self.identify(embedding, presumed=player).player != player:
            return False
        self.refine(player, embedding)
        return True

    def ready(self, players: Iterable[str]) -> bool:
        """Whether every one of ``players`` has a voice (voices are used only then)."""
        return all(player in self for player in players)

    def forget(self, player: str) -> None:
        """Drop ``player``'s voice (a player who left)."""
        with self._lock:
            self._sums.pop(player, None)
            self._counts.pop(player, None)
            self._heard.pop(player, None)
            self._nuisance = None

    def clear(self) -> None:
        """Drop every voice (the game is over)."""
        with self._lock:
            self._sums.clear()
            self._counts.clear()
            self._heard.clear()
            self._nuisance = None

    def scores(self, embedding: Vector) -> dict[str, float]:
        """Cosine of ``embedding`` with each enrolled voice."""
        vector = embedding.astype(np.float64)
        with self._lock:
            voices = list(self._sums.items())
        return {p: float(vector @ total) / max(float(np.linalg.norm(total)), 1e-12) for p, total in voices}

    def between(self, one: str, other: str) -> float:
        """Cosine between two enrolled voices (how alike they sound here)."""
        with self._lock:
            a, b = self._sums[one], self._sums[other]
        return float(a @ b) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-12)

    def contrast(self, embedding: Vector, presumed: str | None = None) -> tuple[str | None, float]:
        """The other player whose voice ``embedding`` is most like, as the table's voices
        differ from each other, and by how much: the voices and the utterance are taken
        relative to the table (the mean of its voices, which a room draws every voice
        towards, is subtracted) with the directions in which each player's own utterances
        vary most left out (:data:`NUISANCE_DIRECTIONS`), then compared by cosine. Returns
        the best player other than ``presumed`` and their cosine's margin over the
        presumed speaker's (over the runner-up's when no one, or no voice, is presumed);
        (None, 0.0) with fewer than two voices."""
        with self._lock:
            voices = {p: _unit(total) for p, total in self._sums.items()}
            nuisance = self._nuisance
            if nuisance is None:
                nuisance = self._nuisance = _nuisance(self._heard)
        if len(voices) < 2:
            return None, 0.0

        def relative(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
            return x - nuisance.T @ (nuisance @ x)

        centre = relative(np.mean(list(voices.values()), axis=0))
        utterance = _unit(relative(embedding.astype(np.float64)) - centre)
        scores = {p: float(utterance @ _unit(relative(v) - centre)) for p, v in voices.items()}
        ranked = sorted(scores, key=lambda p: -scores[p])
        if presumed in scores:
            best = next(p for p in ranked if p != presumed)
            return best, scores[best] - scores[presumed]
        return ranked[0], scores[ranked[0]] - scores[ranked[1]]

    def identify(self, embedding: Vector | None, presumed: str | None = None) -> Identity:
        """Whose voice ``embedding`` is, or None with the reason when unsure. ``presumed`` is
        who the host takes the speaker to be without voices (the player on turn): they are
        named when theirs is the closest voice, anyone else only when their voice is
        :attr:`min_margin` closer than the presumed speaker's, so a right move is seldom
        refused as out of turn (tests/bench/bench_speakers.py)."""
        if embedding is None:
            return Identity(None, 0.0, 0.0, "unheard")
        ranked = sorted(self.scores(embedding).items(), key=lambda item: -item[1])
        if not ranked:
            return Identity(None, 0.0, 0.0, "no voices")
        (best, score), rest = ranked[0], ranked[1:]
        scores = dict(ranked)
        # The presumed speaker is the rival to beat; else (or when best) the runner-up.
        rival = scores[presumed] if best != presumed and presumed in scores else rest[0][1] if rest else 0.0
        margin = score - rival
        if score < self.min_score:
            return Identity(None, score, margin, "nobody", best)
        if best != presumed and margin < self.min_margin:
            return Identity(None, score, margin, "close", best)
        return Identity(best, score, margin, "", best)


def _unit(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return x / max(float(np.linalg.norm(x)), 1e-12)


def _nuisance(heard: dict[str, list[Vector]]) -> npt.NDArray[np.float64]:
    """The :data:`NUISANCE_DIRECTIONS` directions (rows) in which the players' utterances
    vary most round their own voices; none (0 rows) until :data:`NUISANCE_FROM` do."""
    spread = [u - np.mean(said, axis=0) for said in heard.values() if len(said) >= 2 for u in said]
    if len(spread) < NUISANCE_FROM:
        return np.zeros((0, EMBEDDING_SIZE))
    _, sizes, directions = np.linalg.svd(np.asarray(spread, dtype=np.float64), full_matrices=False)
    # Only directions the utterances do vary in (an SVD fills the rest arbitrarily).
    kept = sizes[:NUISANCE_DIRECTIONS] > 1e-6 * max(float(sizes[0]), 1e-12)
    out: npt.NDArray[np.float64] = directions[:NUISANCE_DIRECTIONS][kept]
    return out
