"""Where an utterance ends: pcm16 in, one :class:`~host.speech.hearing.Hearing` per
utterance out, whichever engine decodes.

There is no API to tune vosk's endpointing; the model's rules (0.5 s trailing silence) may
split "twenty ... three", and pocketsphinx never ends an utterance by itself. The
:class:`Endpointer` therefore decides where an utterance ends itself, from a voice
activity detector (:mod:`host.speech.vad`), the decoder's text and the phrase list
(:mod:`host.speech.phrase_index`), and joins the decoder's segments that fall inside one
utterance.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from host.speech.audio import SAMPLE_WIDTH, as_int16, frame_levels, noise_floor, speech_to_noise_db
from host.speech.foreground import Foreground
from host.speech.hearing import Hearing, Segment, combine, make_hearing
from host.speech.phrase_index import ending, sound_extended
from host.speech.recognizer import GrammarRecognizer
from host.speech.vad import load_vad

log = logging.getLogger(__name__)


@dataclass
class _Utterance:
    """Book-keeping for the utterance being heard (or the speech candidate before it)."""

    speech_s: float = 0.0  # seconds of frames the VAD called speech
    first_speech: float | None = None
    last_speech: float | None = None
    confirmed: bool = False  # enough speech to count as an utterance
    segments: list[Segment] = field(default_factory=list)
    text: str = ""
    phrase_probed: float | None = None  # last_speech when the phrase decoder was probed
    phrase_final: str = ""  # what that probe read
    speech_levels: list[float] = field(default_factory=list)  # RMS of the frames the VAD called speech
    text_changed: float = 0.0
    probed_at: float | None = None  # last_speech when the decoder was last asked to finish
    peak: float = 0.0  # the loudest frame RMS of its speech so far (Endpointer.tail_db)
    tail_low: float | None = None  # the lowest frame RMS since its last loud frame
    last_speech_before_tail: float | None = None  # last_speech before the block's tail


#: In a room that rings (:meth:`Endpointer.room_rings`), a 10 ms frame this many dB below
#: the loudest of the utterance so far, falling from it, is the word's reverberant tail, not
#: speech (the voice activity detector hears the tail as speech, which holds the end of a
#: move back). Measured and kept off (None: as the detector says): with 15 dB the end of
#: the dry speech to ruling fell from p50 0.44 to 0.29 s in the living room, but short
#: moves ("eight", "ten", "six") were read back more often, decided before the decoder had
#: heard what follows them, and in the kitchen "seventy" was ruled as 7, its quiet "-ty"
#: taken for the tail (bench_room.py ``--chain room,room-tail``; docs/speech.md).
RINGING_TAIL_DB: float | None = None
#: With :data:`RINGING_TAIL_DB`, the tail still counts as speech while the text so far ends
#: in a word a longer word of the phrase list begins (``phrase_index.sound_extended``:
#: "seven" of "seventy", "eight" of "eighteen"): the quiet "-ty" or "-teen" may be in it.
#: Measured and kept off with the tail (bench chain ``room-guard``): the living room's p50
#: 0.24 -> 0.32 s against the tail alone, no move more heard right in the screen, and with
#: all four games 3 fewer of 40 right first try in the den than without the tail.
RINGING_TAIL_GUARD = False
#: A rise of this much (RMS ratio, 6 dB) out of a word's tail is the next sound, not the room.
TAIL_RISE = 2.0
#: An utterance ended before its tail did: sound this long after its end is measured
#: against it (a fricative's tail is no new utterance).
TAIL_KEPT_S = 0.5

#: An utterance with nothing decoded that held at least this much speech (s) was someone
#: speaking, not a click or a knock: where its speech ended is kept
#: (:attr:`Endpointer.unheard_end`). Table talk the gate heard as talk often decodes as
#: nothing at all (in the living room, Piper: 12 of 40 sentences and "yes" replies, 0.6-1.6
#: s of speech each); a reply right after it was then not known to be one.
UNHEARD_SPEECH_S = 0.3

#: Trailing silence that ends an utterance whose text is a complete phrase no other phrase
#: extends ("fifty three"): long enough to bridge a stop consonant's closure, short enough
#: for a ruling at conversational speed.
EARLY_END_SILENCE_S = 0.2
#: :data:`EARLY_END_SILENCE_S` in a room that rings (None: the same): there the room's
#: tail fills a stop consonant's closure itself, and the detector hears the tail as speech
#: on past the word. End of the dry speech to ruling, p50, Piper den / living room /
#: kitchen 0.31 / 0.35 / 0.38 s -> 0.26 / 0.29 / 0.33 s, the same moves right first try
#: (34 / 25 / 14 of 40); at 0.1 s 0.21 / 0.24 / 0.28 s but 33 / 24 / 12: "ten" ended before
#: the decoder had heard enough of it (tests/bench/bench_room.py --early-end).
RINGING_EARLY_END_S: float | None = 0.15
#: In a room that rings but does not echo (``room_rings``), speech lasts while Silero's
#: probability stays at this, the bar it begins at (None: its own hysteresis below that):
#: a word's tail held it between the two for 0.1-0.3 s and the early end waited (espeak-ng,
#: living room: p50 0.38 -> 0.35 s). Off where the room echoes: words dip below the bar
#: inside themselves there (docs/speech.md; bench_vad_hold.py, bench_room.py --vad-hold).
RINGING_VAD_HOLD: float | None = 0.35


class Endpointer:
    """Streaming recogniser: feed pcm16 chunks, get a :class:`Hearing` per utterance.

    An utterance starts when the voice activity detector has heard ``min_speech_s`` of
    speech and ends when, after that, there has been ``silence_s`` without speech *and* the
    decoder's text has not changed for ``stable_s`` (so a soft last syllable the VAD missed
    still holds the utterance open), or after ``max_utterance_s``. ``silence_s`` (default
    0.7 s) is longer than the pause people leave inside "twenty ... three" and shorter than
    the pause before expecting an answer. When the text so far is one of
    :func:`~host.speech.phrase_index.complete_phrases` of the grammar, or ends with one
    (:func:`~host.speech.phrase_index.ending`), ``early_silence_s`` (default
    :data:`EARLY_END_SILENCE_S`) of silence is enough; ``None`` switches that off. When
    it ends with a phrase that a longer one extends
    ("오십" of "오십 삼"), ``phrase_silence_s`` is enough (default: ``silence_s``) if
    ``settles`` (default: any text) accepts the text among the phrases: a language whose
    numbers are one word each ("오십삼") rarely pauses inside one, while "스페이드 ... 이"
    may well pause. In a room that rings (:meth:`room_rings`) a text ending with one of the
    ``patient`` phrases never ends early: the listener's commands that end or take back
    something, read back anyway, whose words begin sentences too ("I'm leaving" of "I'm
    thinking, give me a second", in a living room with white noise, was asked about 0.17 s
    into a pause, the early end there being shorter and the tail filling the pause).

    ``vad`` is "auto" (Silero, or the energy detector if Silero cannot load), "silero" or
    "energy" (see :mod:`host.speech.vad`). The energy detector compares each 10 ms frame's
    RMS with ``ratio`` times the noise floor, taken as the ``floor_percentile`` of frame RMS
    over the last ``floor_window_s`` (so steady noise such as a fan or a phone line is not
    speech), and never below ``min_rms``. The stream should start with a little non-speech
    for the floor to settle.

    While others talk among themselves around the speaker, only speech near the loudest
    counts (:class:`~host.speech.foreground.Foreground`, :attr:`foreground`): their chatter
    would otherwise hold every utterance open; such hearings say they were ``crowded``.

    Time is stream time: seconds of audio passed to :meth:`feed` (muted audio included).
    """

    FRAME_S = 0.01
    #: Lead-in the decoder gets before the first speech the VAD found.
    PREROLL_S = 0.6
    #: ... and while others talk (:class:`~host.speech.foreground.Foreground`): their
    #: chatter before the move is decoded as talk words, which make the move talk.
    BUSY_PREROLL_S = 0.2
    #: With a complete phrase, the text must also have held this long (partials flicker).
    EARLY_STABLE_S = 0.1
    BLOCK_FRAMES = 10  # decode in 100 ms blocks: fine-grained enough for the end decision

    def __init__(
        self,
        recognizer: GrammarRecognizer,
        *,
        silence_s: float = 0.7,
        stable_s: float = 0.3,
        min_speech_s: float = 0.08,
        max_utterance_s: float = 10.0,
        min_rms: float = 200.0,
        ratio: float = 3.0,
        floor_window_s: float = 4.0,
        floor_percentile: float = 10.0,
        early_silence_s: float | None = EARLY_END_SILENCE_S,
        phrase_silence_s: float | None = None,
        settles: Callable[[str, tuple[str, ...] | None], bool] | None = None,
        patient: Iterable[str] = (),
        vad: str = "auto",
    ) -> None:
        self.recognizer = recognizer
        self.rate = recognizer.sample_rate
        self.silence_s = silence_s
        self.early_silence_s = early_silence_s
        self._early_silence_s = early_silence_s  # as configured (room_rings may shorten it)
        self._rings = False  # the room rings (room_rings)
        self.phrase_silence_s = silence_s if phrase_silence_s is None else min(phrase_silence_s, silence_s)
        self.settles = settles
        self.patient = tuple(patient)
        self.vad = load_vad(
            vad,
            self.rate,
            min_rms=min_rms,
            ratio=ratio,
            floor_window_s=floor_window_s,
            floor_percentile=floor_percentile,
        )
        self.stable_s = stable_s
        self.min_speech_s = min_speech_s
        self.max_utterance_s = max_utterance_s
        self._frame_bytes = round(self.rate * self.FRAME_S) * SAMPLE_WIDTH
        # Frame levels of the last floor_window_s, for each utterance's speech to noise ratio.
        self._levels: deque[float] = deque(maxlen=max(1, round(floor_window_s / self.FRAME_S)))
        self._floor_percentile = floor_percentile
        self._lock = threading.RLock()
        self._pending = b""  # less than one frame, waiting for more audio
        self._samples = 0  # stream position in samples
        self._mute_depth = 0
        self._next_phrases: tuple[Iterable[str] | None, tuple[str, ...]] | None = None
        self._ready: deque[Hearing] = deque()
        self._utt = _Utterance()
        # Audio before any speech is held here, not decoded: the decoder starts at the
        # first speech with PREROLL_S of lead-in, so what it hears does not depend on
        # where the previous utterance happened to end, and silence costs no decoding.
        self._preroll: deque[bytes] = deque()
        self._preroll_bytes = 0
        self._heard: list[bytes] = []
        self._heard_from = 0.0
        self._decoding = False
        #: Frames this many dB below the utterance's loudest, falling from it, are its tail,
        #: not speech (None: whatever the voice activity detector says; :meth:`room_rings`).
        self.tail_db: float | None = None
        #: While others talk among themselves, only speech near the loudest is the speaker's.
        self.foreground = Foreground()
        self._tail: tuple[float, float, float] | None = None  # the last utterance's peak, tail low, until
        #: Stream time the speech of the last utterance decoded as nothing ended (None: none yet).
        self.unheard_end: float | None = None

    # --- public API ---

    @property
    def time(self) -> float:
        """Current stream time in seconds."""
        return self._samples / self.rate

    @property
    def in_utterance(self) -> bool:
        return self._utt.confirmed

    @property
    def speech(self) -> tuple[float, float] | None:
        """Stream seconds of the first and last speech of the utterance being heard (None:
        none yet), so its voice can be embedded while the decoder waits for its end."""
        utt = self._utt
        if not utt.confirmed or utt.first_speech is None or utt.last_speech is None:
            return None
        return utt.first_speech, utt.last_speech

    @property
    def floor(self) -> float:
        """The noise floor of the audio fed so far: frame RMS of pcm16, the
        ``floor_percentile`` of the last ``floor_window_s`` (0 before any audio)."""
        return noise_floor(self._levels, self._floor_percentile)

    @property
    def muted(self) -> bool:
        return self._mute_depth > 0

    @muted.setter
    def muted(self, value: bool) -> None:
        with self._lock:
            was = self.muted
            self._mute_depth = 1 if value else 0
            if was != self.muted:
                self._discard()

    @contextlib.contextmanager
    def muting(self) -> Iterator[None]:
        """Ignore input inside the block (the host is speaking); nests."""
        with self._lock:
            self._mute_depth += 1
            if self._mute_depth == 1:
                self._discard()
        try:
            yield
        finally:
            with self._lock:
                self._mute_depth -= 1
                if self._mute_depth == 0:
                    # Anything captured while muted, or half an utterance before it, is
                    # not the player's answer to what the host just said.
                    self._discard()

    def room_rings(self, rings: bool, noisy: bool = False, echoing: bool = False) -> None:
        """Hear as a room that rings needs (``rings``) or not: a complete phrase ends after
        :data:`RINGING_EARLY_END_S`, the voice activity detector starts afresh for each
        utterance, and unless the room is ``echoing`` its speech ends at the bar it begins
        at (:data:`RINGING_VAD_HOLD`), a word's tail is not speech (:data:`RINGING_TAIL_DB`),
        and the recogniser's own (``room_rings``, told whether the room is ``noisy`` too)."""
        self._rings = rings
        self.vad.hold(RINGING_VAD_HOLD if rings and not echoing else None)
        self.tail_db = RINGING_TAIL_DB if rings else None
        early = self._early_silence_s
        if rings and early is not None and RINGING_EARLY_END_S is not None:
            early = RINGING_EARLY_END_S
        self.early_silence_s = early
        self.recognizer.room_rings(rings, noisy)

    def set_phrases(self, phrases: Iterable[str] | None, talk: Iterable[str] = ()) -> None:
        """Change the grammar (and the words talk decodes as) now, or at the end of the
        utterance in progress."""
        with self._lock:
            if self._utt.confirmed:
                self._next_phrases = (tuple(phrases) if phrases is not None else None, tuple(talk))
            else:
                self._next_phrases = None
                self.recognizer.set_phrases(phrases, at=self.time, talk=talk)

    def feed(self, pcm: bytes) -> Hearing | None:
        """Process a chunk of pcm16; return a Hearing if an utterance ended.

        If one chunk completes several utterances (a long chunk), the extra Hearings are
        returned by the following calls to :meth:`feed` or :meth:`flush`.
        """
        with self._lock:
            if self.muted:
                self._advance_muted(pcm)
            else:
                data = self._pending + pcm
                usable = len(data) - len(data) % self._frame_bytes
                self._pending = data[usable:]
                block = self._frame_bytes * self.BLOCK_FRAMES
                for offset in range(0, usable, block):
                    self._process(data[offset : min(offset + block, usable)])
            return self._ready.popleft() if self._ready else None

    def flush(self) -> Hearing | None:
        """End of input: finish the utterance in progress (if any) and return it."""
        with self._lock:
            if self._pending and not self.muted:
                frame = self._pending + bytes(self._frame_bytes - len(self._pending))
                self._pending = b""
                self._process(frame)
            if self._utt.confirmed:
                self._end(forced=False)
            else:
                self._discard()
            return self._ready.popleft() if self._ready else None

    def reset(self) -> None:
        """Forget the utterance in progress and any Hearings not yet returned."""
        with self._lock:
            self._ready.clear()
            self._discard()

    def hearings(self, chunks: Iterable[bytes]) -> Iterator[Hearing]:
        """Feed a whole source and yield every Hearing, flushing at the end."""
        for chunk in chunks:
            hearing = self.feed(chunk)
            if hearing is not None:
                yield hearing
            while self._ready:
                yield self._ready.popleft()
        last = self.flush()
        if last is not None:
            yield last
        while self._ready:
            yield self._ready.popleft()

    # --- internals ---

    def _advance_muted(self, pcm: bytes) -> None:
        self._samples += len(pcm) // SAMPLE_WIDTH

    def _discard(self) -> None:
        self._pending = b""
        self._utt = _Utterance()
        self._idle()
        self.vad.reset()  # the audio it would continue from was skipped or is stale
        self._restart(self.time)

    def _restart(self, at: float) -> None:
        """A fresh recogniser from stream time ``at``, with the grammar held back during the
        utterance (if any): one recogniser build, not one per step."""
        if self._next_phrases is not None:
            phrases, talk = self._next_phrases
            self._next_phrases = None
            self.recognizer.set_phrases(phrases, at=at, talk=talk)
        else:
            self.recognizer.reset(at=at)

    def _idle(self) -> None:
        """Stop decoding until the next speech (see ``_preroll``)."""
        self._decoding = False
        self._preroll.clear()
        self._preroll_bytes = 0
        self._heard = []  # the blocks decoded in this utterance (Hearing.audio)
        self._heard_from = 0.0

    def _process(self, block: bytes) -> None:
        utt = self._utt
        samples = as_int16(block)
        levels = frame_levels(samples.astype(np.float64), self._frame_bytes // SAMPLE_WIDTH)
        spans = self.foreground.speech(levels, self.time, self.vad.speech(samples, self.time))
        for span_start, span_end in spans:
            if utt.first_speech is None:
                utt.first_speech = span_start
            utt.last_speech = span_end
            utt.speech_s += span_end - span_start
        if self.tail_db is not None and spans:
            # The tail counts as speech for how much there was (a short word's own fading end
            # may be as far down), not for where it ended; a tail alone is no utterance.
            if utt.peak == 0.0 and self._tail is not None and spans[0][0] < self._tail[2]:
                utt.peak, utt.tail_low = self._tail[0], self._tail[1]  # the last one's tail
            ended = self._speech_end(levels)
            raw = utt.last_speech
            if not (RINGING_TAIL_GUARD and sound_extended(utt.text, self.recognizer.phrases)):
                utt.last_speech = (
                    min(ended, raw) if ended is not None and raw is not None else utt.last_speech_before_tail
                )
            utt.last_speech_before_tail = utt.last_speech
        self._measure(levels, spans)
        self._samples += len(samples)
        now = self.time

        if not self._decoding:
            self._preroll.append(block)
            self._preroll_bytes += len(block)
            lead = self.BUSY_PREROLL_S if self.foreground.busy else self.PREROLL_S
            limit = round(lead * self.rate) * SAMPLE_WIDTH
            while self._preroll_bytes - len(self._preroll[0]) >= limit:
                self._preroll_bytes -= len(self._preroll.popleft())
            if utt.first_speech is None:
                return
            block = b"".join(self._preroll)
            self._idle()
            self._decoding = True
            self.recognizer.reset(at=now - len(block) / (SAMPLE_WIDTH * self.rate))

        if utt.speech_s >= self.min_speech_s and not utt.confirmed and utt.last_speech is not None:
            utt.confirmed = True
            log.debug("speech started at %.2f s", utt.first_speech)

        if not self._heard:
            self._heard_from = now - len(block) / (SAMPLE_WIDTH * self.rate)
        self._heard.append(block)
        segment = self.recognizer.accept(block)
        closed = segment is not None
        if segment is not None and not segment.empty:
            utt.segments.append(segment)
        text = " ".join(
            [" ".join(s.alternatives[0].tokens) for s in utt.segments if s.alternatives]
            + [self.recognizer.partial()]
        ).strip()
        silent_for = now - (utt.last_speech if utt.last_speech is not None else -math.inf)
        if text != utt.text:
            # vosk closing a segment may rewrite the words (lattice rescoring) long after
            # speech stopped; only new partial words mean the speaker is still going. In
            # silence the partial may also flicker between readings of what was said
            # ("eight", "take", "they"): only a longer text (a soft syllable the VAD missed)
            # holds the utterance open then, or the early end never came.
            grew = len(text.split()) > len(utt.text.split())
            speaking = self.early_silence_s is None or silent_for < self.early_silence_s
            # While others talk, the decoder's words grow from their chatter: only the
            # speaker's own speech holds the utterance open.
            if not closed and (speaking or (grew and not self.foreground.busy)):
                utt.text_changed = now
            utt.text = text

        if not utt.confirmed:
            if silent_for >= self.silence_s and (utt.text or utt.speech_s):
                # A click or a burst of noise too short to be speech: drop whatever the
                # decoder made of it so it does not prefix the next real utterance.
                self._utt = _Utterance()
                self._idle()
            return
        assert utt.first_speech is not None
        if now - utt.first_speech >= self.max_utterance_s:
            log.info("utterance reached the %.1f s limit", self.max_utterance_s)
            self._end(forced=True)
        elif silent_for >= self.silence_s and now - utt.text_changed >= self.stable_s:
            self._end(forced=False)
        elif self.early_silence_s is not None and silent_for >= self.early_silence_s:
            self.recognizer.paused()
            how = ending(utt.text, phrases := self.recognizer.phrases)
            if how != "complete" and self.recognizer.partial_lags and utt.probed_at != utt.last_speech:
                self._probe()
                how = ending(utt.text, phrases)  # the probe's final text
            said = utt.text
            if how is None:
                said = self._phrase_reading(utt)
                how = ending(said, phrases)
            if how == "phrase":
                enough = silent_for >= self.phrase_silence_s and (
                    self.settles is None or self.settles(said, phrases)
                )
            else:
                enough = how == "complete"
            if enough and now - utt.text_changed >= self.EARLY_STABLE_S and not self._waits(said):
                self._end(forced=False)

    def _waits(self, text: str) -> bool:
        """Whether ``text`` ends with a phrase never ended early in a room that rings (``patient``)."""
        return self._rings and ending(" ".join(text.split()), self.patient) is not None

    def _speech_end(self, levels: npt.NDArray[np.float64]) -> float | None:
        """The end of the block's last frame (``levels``: the block's frame RMS) that is not
        a word's tail (None: all of it is): a frame :attr:`tail_db` or more below the
        loudest of the utterance so far, falling from it, is the tail; a rise of
        :data:`TAIL_RISE` out of it the next sound. In a room that rings the voice activity
        detector hears the tail as speech, which held the end of the utterance back."""
        utt = self._utt
        below = 10 ** (-(self.tail_db or 0.0) / 20)
        end = None
        for i, level in enumerate(levels):
            utt.peak = max(utt.peak, level)
            if level >= utt.peak * below:
                utt.tail_low = None  # loud: the word itself
            elif utt.tail_low is None or level <= utt.tail_low * TAIL_RISE:
                utt.tail_low = level if utt.tail_low is None else min(utt.tail_low, level)
                continue  # falling from the word: its tail
            end = self.time + (i + 1) * self.FRAME_S
        return end

    def _measure(self, block_levels: npt.NDArray[np.float64], spans: list[tuple[float, float]]) -> None:
        """Keep the block's frame levels for the noise floor, and those inside speech for the
        utterance's speech to noise ratio."""
        levels = block_levels.tolist()
        self._levels.extend(levels)
        if spans:
            start = self.time
            for i, level in enumerate(levels):
                middle = start + (i + 0.5) * self.FRAME_S
                if any(a <= middle < b for a, b in spans):
                    self._utt.speech_levels.append(level)

    def _phrase_reading(self, utt: _Utterance) -> str:
        """The phrase decoder's reading, when the utterance would be heard as it
        (:meth:`GrammarRecognizer.heard_as_phrase`; else ""). Pocketsphinx's gate partial
        may stay a talk word through the silence after a move ("take" for "eight", finally
        decoded as "eight"), and so may the phrase decoder's, a path not yet at a phrase's
        end ("take" of "take back"): waiting the full silence for them set the p99 of end
        of speech to ruling. So in a pause the phrase decoder's final reading is asked for,
        once per pause. The gate still judges the final decoding, so ending early only
        splits talk at a pause: a sentence heard as more talk words than the phrase
        ("hello everyone, pass" beside "eleven") still waits."""
        heard_as = self.recognizer.heard_as_phrase
        if utt.phrase_probed == utt.last_speech:
            said = utt.phrase_final
        else:
            said = self.recognizer.phrase_partial()
            if ending(said, self.recognizer.phrases) is None and heard_as(utt.text, said):
                said = self.recognizer.phrase_final()
                utt.phrase_probed, utt.phrase_final = utt.last_speech, said
        return said if heard_as(utt.text, said) else ""

    def _probe(self) -> None:
        """Close the decoder's segment to read its final text now: vosk's partial result
        lags the audio by up to ~0.4 s. The utterance goes on if more speech follows (its
        segments are joined as for vosk's own segment ends)."""
        utt = self._utt
        utt.probed_at = utt.last_speech
        segment = self.recognizer.finish()
        if not segment.empty:
            utt.segments.append(segment)
        # A closed segment's text is final: not a sign the speaker is still going.
        utt.text = " ".join(" ".join(s.alternatives[0].tokens) for s in utt.segments if s.alternatives)

    def _end(self, forced: bool) -> None:
        utt = self._utt
        now = self.time
        segments = [*utt.segments, self.recognizer.finish()]
        segments = [s for s in segments if not s.empty]
        hearing = make_hearing(
            combine(segments, self.recognizer.max_alternatives),
            speech_start=utt.first_speech if utt.first_speech is not None else now,
            speech_end=utt.last_speech if utt.last_speech is not None else now,
            emitted_at=now,
            forced=forced,
        )
        talk = " ".join(s.talk for s in segments if s.talk)
        near_talk = " ".join(s.near_talk for s in segments if s.near_talk)
        if hearing is not None:
            snr = speech_to_noise_db(utt.speech_levels, self.floor)
            audio = b"".join(self._heard)
            hearing = replace(
                hearing,
                talk=talk,
                near_talk=near_talk,
                doubted=" ".join(s.doubted for s in segments if s.doubted),
                snr_db=snr,
                crowded=self.foreground.busy,
                room_adapted=all(s.room_adapted for s in segments),
                audio=audio,
                audio_start=self._heard_from,
            )
        # What rings on after an utterance ended early is still its tail, not a new one.
        self._tail = (utt.peak, utt.tail_low if utt.tail_low is not None else utt.peak, now + TAIL_KEPT_S)
        self._utt = _Utterance()
        self._idle()
        # In a room that rings each utterance is found afresh: Silero's recurrent state,
        # carried on from the last one, held the speech probability of the next down to
        # 0.02-0.4 in a kitchen of RT60 0.9 s (a fresh detector: 0.6-1.0), and a move said
        # without the host speaking between (which resets it) went unheard: 8 of 12 numbers
        # found, 12 after. Not elsewhere: in white noise 20 dB below, Piper's moves right
        # first try 67 -> 65 of 82 with it (near talk, a rival moved). Afresh, not reset: the
        # network that heard the stream hears on beside the fresh one (SileroVad.afresh).
        if self._rings:
            self.vad.afresh()
        self._restart(now)
        if hearing is None:
            log.debug("utterance ended with nothing decoded")
            if utt.speech_s >= UNHEARD_SPEECH_S and utt.last_speech is not None:
                self.unheard_end = utt.last_speech
            return
        log.debug(
            "heard %r (%.2f) in %.2f-%.2f s, decided %.0f ms after speech ended",
            hearing.text,
            hearing.confidence,
            hearing.start,
            hearing.end,
            1000 * hearing.latency,
        )
        self._ready.append(hearing)
