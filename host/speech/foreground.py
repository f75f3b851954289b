"""Whose speech is the move: the voice near the phone, not the table's chatter behind it.

At a busy table others talk among themselves while someone makes a move. The voice
activity detector rightly calls their talk speech too, so it never finds the pause that
ends the move: the move is decoded inside seconds of chatter and the talk gate hears it
all as talk (tests/bench/bench_room.py ``--noise babble10``: 0 of 40 moves heard).

What the chatter is not is as loud as the speaker: the other players are further from
the phone, and talking to each other, not to it. So while the detector calls most of
the last seconds speech (:data:`BUSY`), speech counts only where its level, smoothed over
a syllable (:data:`SMOOTH_S`), is within :data:`BELOW_DB` of the loudest speech of the
last :data:`TOP_WINDOW_S`: the players' words to the table, not the murmur around them.
At a quiet table nothing changes.
"""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import numpy.typing as npt

FRAME_S = 0.01
#: Seconds the detector's busyness is taken over.
WINDOW_S = 8.0
#: The loudest speech: this percentile of the smoothed frame levels over the last
#: :data:`TOP_WINDOW_S` (the loudest 0.6 s: the speaker's last words, not a slap of cards).
TOP_PERCENTILE = 97.0
TOP_WINDOW_S = 20.0
#: Speech this far below the loudest is the chatter behind the speaker (None: off).
BELOW_DB: float | None = 8.0
#: Frame power is averaged over this long (a syllable) before it is compared.
SMOOTH_S = 0.1
#: The table is busy (someone else is talking) once the detector called at least this
#: share of the window speech, and calm again below :data:`CALM` (a game's moves and talk,
#: with their pauses, measured under 0.6; three others talking among themselves 0.77-0.98).
BUSY = 0.75
CALM = 0.6
#: ... and only once this much has been heard (the window fills at the start of a game).
MIN_HEARD_S = 3.0

Span = tuple[float, float]


class Foreground:
    """Trims the voice activity detector's speech to the speaker's while the table is busy
    (see the module notes). Feed each block's 10 ms frame levels (pcm16 RMS) with the
    stream time of its first frame and the detector's spans for it."""

    def __init__(self) -> None:
        self.below_db = BELOW_DB  # None: the detector's spans as they are
        self._smoothed: deque[float] = deque(maxlen=round(TOP_WINDOW_S / FRAME_S))  # dB per frame
        self._power: deque[float] = deque(maxlen=max(1, round(SMOOTH_S / FRAME_S)))
        # Frame index -> the detector called it speech, for the last WINDOW_S (its spans
        # come late, in windows of its own, so frames are marked as they come).
        self._said: dict[int, bool] = {}
        # Frame index -> near the loudest, for the last second: the detector's spans lag
        # the audio by up to a window of its own.
        self._near: dict[int, bool] = {}
        self._window = round(WINDOW_S / FRAME_S)
        self._next = 0  # the index of the next frame fed
        self.busy = False  # others are talking (see the module notes)

    def _follow(self) -> None:
        heard = len(self._said)
        if heard < round(MIN_HEARD_S / FRAME_S):
            return
        share = sum(self._said.values()) / heard
        self.busy = share >= BUSY or (self.busy and share >= CALM)

    def speech(self, levels: npt.NDArray[np.float64], start: float, spans: list[Span]) -> list[Span]:
        """``spans`` (the detector's, stream seconds) where the speaker is: all of them at a
        quiet table, the frames near the loudest speech when it is busy."""
        # Frames are counted here, not from the stream's clock: a table's next listener
        # may go on with what this one heard (tests/bench/bench_table_talk.py's Microphone).
        first = self._next
        self._next += len(levels)

        def frames(a: float, b: float) -> range:
            return range(first + round((a - start) / FRAME_S), first + round((b - start) / FRAME_S))

        smoothed = []  # the block's frames, dB
        for i, level in enumerate(levels):
            self._said[first + i] = False
            self._power.append(float(level) ** 2)
            smoothed.append(10 * np.log10(max(sum(self._power) / len(self._power), 1e-6)))
        self._smoothed.extend(smoothed)
        for a, b in spans:
            for k in frames(a, b):
                if k in self._said:
                    self._said[k] = True
        for k in list(itertools.takewhile(lambda k: k <= first + len(levels) - self._window, self._said)):
            del self._said[k]
        self._follow()
        if self.below_db is None or not self.busy:
            self._near.clear()
            return spans
        top = float(np.percentile(np.fromiter(self._smoothed, np.float64), TOP_PERCENTILE))
        for i, db in enumerate(smoothed):
            self._near[first + i] = db >= top - self.below_db
        for k in [k for k in self._near if k < first - round(1.0 / FRAME_S)]:
            del self._near[k]
        kept: list[Span] = []
        for a, b in spans:
            for k in frames(a, b):
                if self._near.get(k, True):
                    t = start + (k - first) * FRAME_S
                    if kept and abs(kept[-1][1] - t) < 1e-6:
                        kept[-1] = (kept[-1][0], t + FRAME_S)
                    else:
                        kept.append((t, t + FRAME_S))
        return kept
