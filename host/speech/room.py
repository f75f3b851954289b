"""What a table's room sounds like, measured from what the players say in it.

A word said in a room rings on after the mouth stops: its level falls in a straight line in
dB, at 60 dB per RT60, until it meets the room's noise floor. :func:`decay_rt60` reads that
slope from the frame levels after an utterance ends; :class:`RoomMeter` keeps the noise
floor of the audio, each utterance's speech level and its decay, and gives the room as
measured so far (:class:`RoomSound`): the host sets its hearing up from it (the
dereverberator's RT60, host/speech/dereverb.py) and ``gamehost table --check`` reports it.

The decay after a word is the room's, slowed by the word's own fading end (a long vowel),
never faster: the room's RT60 is near the fastest decays measured, so the estimate is the
lower quartile of the utterances' decays, not their mean. The room is measured, not the
noise: the floor's power is taken out of the decay, and a word that stops dead into the
floor is no decay at all (:data:`FLOOR_MARGIN_DB`, :data:`CLIFF_SHARE`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from host.speech.audio import SAMPLE_RATE, as_int16, frame_levels, noise_floor

FRAME_S = 0.01
#: The decay is fitted from this far below the end of the word's level (the first 10 dB
#: are the voice's own fade: from 5 dB, espeak-ng's dry words measured 0.31 s, a ringing
#: room's; from 10 dB, 0.13 s) ...
FIT_FROM_DB = 10.0
#: ... down to this far below it (or to the floor, whichever comes first) ...
FIT_TO_DB = 30.0
#: ... and a decay spanning less than this many dB is not read (the floor is too close).
MIN_SPAN_DB = 12.0
#: The noise floor's power is taken out of each frame before the fit: a decay that meets
#: the floor bends into it, so with white noise 20 dB below the speech the benches' den
#: (RT60 0.3 s) measured 0.44 s and their living room (0.6 s) 0.77 s, against 0.37 and
#: 0.74 s in quiet; with it taken out, 0.35 and 0.64 s (0.35 and 0.72 s in quiet). What is
#: left this near the floor is the noise's own flicker: the fit stops there.
FLOOR_MARGIN_DB = 3.0
#: A word that stops dead in noise (the last frames of a fricative or a nasal) leaves a
#: plateau a few dB above the floor, then a cliff into it: fitted, a "decay" of 1-2 s at a
#: dry table. A room's decay goes on falling at its own slope, so a fit that ends at the
#: floor is the room's only if the level then takes at least this share of the time that
#: slope needs to fall :data:`CLIFF_DB` below the floor (noise taken out). At a dry table
#: with white or fan noise 20 dB below, this leaves 75 of 105 and 94 of 123 decays, and
#: their slowest tenth 0.60 s rather than 1.8 and 1.1 s; in quiet rooms it leaves 115 of
#: 117 (den), 107 of 109 (living room) and all 104 (kitchen) (docs/speech.md "Hearing in
#: a room").
CLIFF_SHARE = 0.33
CLIFF_DB = 3.0
#: How long after an utterance its decay is read: 25 dB of a 1.2 s RT60.
TAIL_S = 0.6
#: A rise of this much in a decay is the next sound, not the room.
RISE_DB = 6.0
#: The room is measured from this many of the latest utterances (a long game's first
#: words, said before the party moved to the kitchen, stop counting).
KEEP_UTTERANCES = 40
#: The room's RT60 is read from at least this many decays: one word's slow fade is not a
#: room, two players' names are (a table of two is measured in its name round; with 3, the
#: bench's rooms went unmeasured into the game whenever one name of three gave no decay).
MIN_DECAYS = 2
#: An RT60 outside this range is not a room's (a word fading slowly, a door closing).
RT60_RANGE = (0.1, 2.5)


def dbfs(level: float) -> float:
    """A pcm16 RMS level in dBFS (-120 for silence)."""
    return 20 * math.log10(max(level, 1e-6) / 32768)


def decay_rt60(levels_db: Sequence[float], floor_db: float) -> float | None:
    """The RT60 (s) that the decay of ``levels_db`` (10 ms frame levels in dBFS from the
    last loud frame of an utterance on) shows, or None when it shows none (too close to the
    floor, or not a decay)."""
    if len(levels_db) < 5:
        return None
    levels = np.asarray(levels_db, dtype=np.float64)
    floor_power = 10 ** (floor_db / 10)
    levels = 10 * np.log10(np.maximum(10 ** (levels / 10) - floor_power, floor_power / 1000))
    top = float(levels[: max(1, min(5, levels.size))].max())
    stop = max(top - FIT_TO_DB, floor_db + FLOOR_MARGIN_DB)
    if top - stop < MIN_SPAN_DB:
        return None
    start_at = int(np.argmax(levels <= top - FIT_FROM_DB))
    below = np.nonzero(levels <= stop)[0]
    if not below.size or below[0] <= start_at + 2 or levels[start_at] > top - FIT_FROM_DB:
        return None
    end_at = int(below[0])
    t = np.arange(start_at, end_at + 1) * FRAME_S
    slope = float(np.polyfit(t, levels[start_at : end_at + 1], 1)[0])  # dB per second
    if slope >= 0:
        return None
    rt60 = 60 / -slope
    if not RT60_RANGE[0] <= rt60 <= RT60_RANGE[1]:
        return None
    if stop > top - FIT_TO_DB and _falls_off_a_cliff(levels[end_at:], stop, floor_db, slope):
        return None
    return rt60


def _falls_off_a_cliff(rest: npt.NDArray[np.float64], stop: float, floor_db: float, slope: float) -> bool:
    """Whether the level after a fit that ended at ``stop`` near the floor falls
    :data:`CLIFF_DB` below the floor much faster than the fit's ``slope`` (dB per second)
    says a room would (see :data:`CLIFF_SHARE`); unknown when it never gets there."""
    target = floor_db - CLIFF_DB
    reached = np.nonzero(rest <= target)[0]
    if not reached.size:
        return False
    frames_needed = (stop - target) / -slope / FRAME_S
    return int(reached[0]) < CLIFF_SHARE * frames_needed


def _until_rise(levels: Sequence[float]) -> list[float]:
    """``levels`` up to where they rise :data:`RISE_DB` above their lowest so far (the next
    word, a clatter: no longer the decay)."""
    out: list[float] = []
    lowest = math.inf
    for level in levels:
        if level > lowest + RISE_DB:
            break
        lowest = min(lowest, level)
        out.append(level)
    return out


@dataclass(frozen=True)
class Utterance:
    """One utterance as the room delivered it: who said it (if known), its speech level
    (dBFS, the loud part of its frames), its peak (dBFS, sample), and its decay's RT60."""

    who: str | None
    level_db: float
    peak_db: float
    rt60: float | None


@dataclass(frozen=True)
class RoomSound:
    """The room as measured: its noise floor (dBFS), its RT60 (s; None: not measured yet),
    and the utterances it was measured from."""

    floor_db: float
    rt60: float | None
    utterances: tuple[Utterance, ...] = ()

    def level(self, who: str) -> float | None:
        """``who``'s speech level (dBFS, the median of their utterances), None if unheard."""
        said = [u.level_db for u in self.utterances if u.who == who]
        return float(np.median(said)) if said else None

    @property
    def snr_db(self) -> float | None:
        """How far the quietest speaker stands above the floor (dB)."""
        heard = [u.level_db for u in self.utterances]
        return min(heard) - self.floor_db if heard else None


@dataclass
class RoomMeter:
    """Keeps the frame levels of a stream (16 kHz pcm16) and measures utterances in it.

    :meth:`feed` the audio as it comes; :meth:`utterance` after an utterance ended (stream
    seconds of its speech) and enough time after it for its decay (``tail_s``)."""

    rate: int = SAMPLE_RATE
    keep_s: float = 12.0
    levels: list[float] = field(default_factory=list)  # dBFS per 10 ms frame, the last keep_s
    start: float = 0.0  # stream time of levels[0]
    peaks: list[float] = field(default_factory=list)  # per frame: its largest sample
    measured: list[Utterance] = field(default_factory=list)
    _pending: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    _later: list[tuple[float, float, str | None]] = field(default_factory=list)
    #: Called with each utterance measured by :meth:`settle`.
    on_measured: Callable[[Utterance], None] | None = None

    @property
    def time(self) -> float:
        return self.start + len(self.levels) * FRAME_S

    def feed(self, pcm: bytes) -> list[Utterance]:
        """Take the audio as it comes; the utterances measured now that their tails are in."""
        frame = round(self.rate * FRAME_S)
        x = np.concatenate([self._pending, as_int16(pcm).astype(np.float64)])
        usable = x.size - x.size % frame
        self._pending = x[usable:]
        if not usable:
            return []
        frames = x[:usable]
        self.levels += [dbfs(v) for v in frame_levels(frames, frame)]
        self.peaks += np.abs(frames.reshape(-1, frame)).max(axis=1).tolist()
        done = self.settle() if self._later else []
        extra = len(self.levels) - round(self.keep_s / FRAME_S)
        if extra > 0:
            del self.levels[:extra]
            del self.peaks[:extra]
            self.start += extra * FRAME_S
        return done

    def later(self, start: float, end: float, now: float, who: str | None = None) -> None:
        """Measure the utterance of speech ``start``..``end`` once its decay has been heard
        (:data:`TAIL_S` after it: :meth:`settle`). Times are the caller's stream time, whose
        present is ``now`` (a listener's clock may have started after this meter's)."""
        shift = self.time - now
        self._later.append((start + shift, end + shift, who))
        self.settle()

    def settle(self) -> list[Utterance]:
        """Measure the utterances whose decay has been heard by now."""
        done = []
        for start, end, who in list(self._later):
            if self.time >= end + TAIL_S:
                self._later.remove((start, end, who))
                said = self.utterance(start, end, who)
                if said is not None:
                    done.append(said)
                    if self.on_measured is not None:
                        self.on_measured(said)
        return done

    @property
    def floor_db(self) -> float:
        """The noise floor (dBFS): the 10th percentile of the frame levels kept."""
        return noise_floor(self.levels, 10.0) if self.levels else -120.0

    def _at(self, t: float) -> int:
        return min(len(self.levels), max(0, round((t - self.start) / FRAME_S)))

    def utterance(self, start: float, end: float, who: str | None = None) -> Utterance | None:
        """Measure the utterance whose speech ran from ``start`` to ``end`` (stream seconds):
        its level, peak and decay (the frames after ``end`` fed so far)."""
        a, b = self._at(start), self._at(end)
        if b <= a:
            return None
        speech = np.asarray(self.levels[a:b])
        floor = self.floor_db
        level = float(np.percentile(speech, 90))
        peak = dbfs(max(self.peaks[a:b]))
        # The decay from the last loud frame of the word on (within its last 300 ms: the
        # end found may be a little into the tail), until the next sound rises out of it.
        last = max(a, b - 30)
        top = last + int(np.argmax(speech[last - a :]))
        rt60 = decay_rt60(_until_rise(self.levels[top : self._at(end + TAIL_S)]), floor)
        said = Utterance(who, level, peak, rt60)
        self.measured.append(said)
        del self.measured[:-KEEP_UTTERANCES]
        return said

    @property
    def rt60(self) -> float | None:
        """The room's RT60 as measured so far (s; None until enough decays were read): the lower
        quartile of the utterances' decays (see the module notes), once :data:`MIN_DECAYS` are in."""
        decays = [u.rt60 for u in self.measured if u.rt60 is not None]
        return float(np.percentile(decays, 25)) if len(decays) >= MIN_DECAYS else None

    def room(self) -> RoomSound:
        """The room as measured so far."""
        return RoomSound(self.floor_db, self.rt60, tuple(self.measured))
