"""What a recogniser heard, whichever engine: the values both engines hand the end-pointer.

A recogniser run gives a :class:`Segment` (its N-best :class:`Alternative` readings, with
:class:`WordTiming` words); the end-pointer joins the segments of one utterance
(:func:`combine`) and turns them into a :class:`Hearing` (:func:`make_hearing`), which is
what the listener reads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from host.speech.model import UNK


@dataclass(frozen=True)
class WordTiming:
    """One recognised word; times are seconds on the stream fed to the recogniser."""

    word: str
    start: float
    end: float
    #: Posterior probability (0..1) from vosk's MBR decoding, when word confidences are on
    #: and the MBR words agree with the best alternative; otherwise None.
    confidence: float | None = None


@dataclass(frozen=True)
class Hearing:
    """What was heard in one utterance.

    ``alternatives`` are ``(text, share)`` pairs, best first. Vosk's per-alternative
    "confidence" is the total lattice score of that path (acoustic log-likelihood plus
    grammar log-probability); only differences between alternatives of the same utterance
    mean anything (exp(difference) ~ likelihood ratio). ``share`` is the softmax of those
    scores over the N-best list, i.e. an approximate posterior *among the alternatives
    returned*: it sums to 1, is overconfident (the list is truncated) and says nothing about
    whether the speech was in the grammar at all. ``scores`` keeps the raw values.
    """

    alternatives: tuple[tuple[str, float], ...]
    scores: tuple[float, ...]
    words: tuple[WordTiming, ...]  # of the best alternative
    start: float  # first word start (or first speech frame), stream seconds
    end: float  # last word end (or last speech frame), stream seconds
    unknown: bool  # "[unk]"/nothing holds at least half of the share
    speech_end: float  # stream time the voice activity detector last heard speech
    emitted_at: float  # stream time at which the end of the utterance was decided
    forced: bool = False  # ended by the maximum utterance length, not by silence
    #: What a recogniser with a talk loop (pocketsphinx) made of the utterance when it was
    #: table talk rather than one whole phrase ("" if it was a phrase, or no loop ran).
    talk: str = ""
    #: The talk loop's words when the phrase was kept only by a lenient talk prior (see
    #: :data:`host.speech.sphinx.LENIENT_TALK_WEIGHT`): a doubtful hearing of the phrase.
    near_talk: str = ""
    #: The talk a doubting twin heard in a lone word the gate kept in a room that rings (see
    #: :data:`host.speech.sphinx.RINGING_DOUBT_WEIGHT`).
    doubted: str = ""
    #: How far the utterance's speech stood above the noise floor of the audio the
    #: recogniser heard, in dB (:func:`~host.speech.audio.speech_to_noise_db`): about 70 in
    #: digital silence, 23-29 with white or fan noise 20 dB below a voice, 13-19 at 10 dB.
    snr_db: float = math.inf
    #: Others were talking around it (:class:`~host.speech.foreground.Foreground`): their
    #: words may be in what was heard.
    crowded: bool = False
    #: Decoded with an acoustic model adapted to a ringing room (sphinx.RINGING_MEANS),
    #: which hears an echoing room well enough to trust a sure hearing there.
    room_adapted: bool = False
    #: The utterance's audio as the recogniser heard it (16 kHz pcm16, from ``audio_start``,
    #: a little lead-in included), for whoever needs the voice itself (who said it).
    audio: bytes = field(default=b"", repr=False, compare=False)
    audio_start: float = 0.0
    #: Stream time the voice activity detector first heard speech (None: not known).
    speech_start: float | None = None

    @property
    def text(self) -> str:
        return self.alternatives[0][0] if self.alternatives else ""

    @property
    def confidence(self) -> float:
        """Share of the best alternative (see class docstring for what it means)."""
        return self.alternatives[0][1] if self.alternatives else 0.0

    @property
    def speech_before_words(self) -> float:
        """Seconds of speech before the first word began: speech the words do not explain (a
        phrase fitted to the last syllables of a word). 0 without words or a known start."""
        return self.start - self.speech_start if self.words and self.speech_start is not None else 0.0

    @property
    def speech_after_words(self) -> float:
        """Seconds of speech after the last word ended: speech the words do not explain (a
        phrase fitted to the first words of a sentence). 0 without words."""
        return self.speech_end - self.end if self.words else 0.0

    @property
    def word_after_speech(self) -> float:
        """Seconds after the speech ended that the last word began (> 0: a word fitted to
        a reverberant tail or to silence, not to speech). 0 without words."""
        return self.words[-1].start - self.speech_end if self.words else 0.0

    @property
    def word_before_speech(self) -> float:
        """Seconds before the speech began that the first word ended (> 0: a word fitted to
        the silence or noise before the voice). 0 without words or a known start."""
        return self.speech_start - self.words[0].end if self.words and self.speech_start is not None else 0.0

    @property
    def longest_inner_word(self) -> float:
        """Seconds of the longest word but the last (0 with fewer than two words): a room's
        tail stretches only the last, so a long one before it covers sound not its own."""
        return max((w.end - w.start for w in self.words[:-1]), default=0.0)

    @property
    def longest_pause(self) -> float:
        """Seconds of the longest silence between two of the best path's words (0 with fewer
        than two words)."""
        return max((b.start - a.end for a, b in pairwise(self.words)), default=0.0)

    @property
    def weakest_word(self) -> float | None:
        """The lowest confidence of the best path's words (None: none given)."""
        return min((w.confidence for w in self.words if w.confidence is not None), default=None)

    @property
    def weakest_inner_word(self) -> float | None:
        """The lowest confidence of the words but the last (None with fewer than two words or
        none given): a room's tail weakens the last word, not those before it."""
        return min((w.confidence for w in self.words[:-1] if w.confidence is not None), default=None)

    @property
    def latency(self) -> float:
        """Seconds from the end of speech to the decision (stream time, not wall time)."""
        return self.emitted_at - self.speech_end


@dataclass
class Alternative:
    """One reading of a segment: its words, its score (see :class:`Hearing`), their times."""

    tokens: tuple[str, ...]
    score: float
    words: list[WordTiming]


@dataclass
class Segment:
    """Result of one recogniser run (one vosk "utterance", one pocketsphinx utterance)."""

    alternatives: list[Alternative]
    mbr_words: list[WordTiming] | None = None  # best path with per-word posteriors
    talk: str = ""  # the talk loop's words, when it explained the audio better than a phrase
    near_talk: str = ""  # the talk loop's words, when only a lenient prior kept the phrase
    doubted: str = ""  # the talk a doubting twin heard in a lone word the gate kept
    room_adapted: bool = False  # decoded with an acoustic model adapted to a ringing room

    @property
    def empty(self) -> bool:
        return all(not a.tokens for a in self.alternatives)


def combine(segments: Sequence[Segment], max_alternatives: int) -> list[Alternative]:
    """N-best of a sequence of independent segments (scores add up).

    The best combination is the concatenation of each segment's best alternative, so the
    MBR word confidences of each segment can be attached to it where the words agree.
    """
    combined = [Alternative((), 0.0, [])]
    for segment in segments:
        best_words = _with_confidences(segment)
        options = [
            Alternative(a.tokens, a.score, best_words if i == 0 else a.words)
            for i, a in enumerate(segment.alternatives)
        ]
        combined = sorted(
            (
                Alternative(c.tokens + o.tokens, c.score + o.score, c.words + o.words)
                for c in combined
                for o in options
            ),
            key=lambda a: -a.score,
        )[: max(1, max_alternatives)]
    return combined


def _with_confidences(segment: Segment) -> list[WordTiming]:
    best = segment.alternatives[0].words if segment.alternatives else []
    mbr = segment.mbr_words
    if mbr is not None and [w.word for w in mbr] == [w.word for w in best]:
        return mbr
    return best


def make_hearing(
    alternatives: Sequence[Alternative],
    *,
    speech_start: float,
    speech_end: float,
    emitted_at: float,
    forced: bool = False,
) -> Hearing | None:
    """Turn combined alternatives into a :class:`Hearing`; None if nothing was decoded."""
    if not alternatives or all(not a.tokens for a in alternatives):
        return None
    top = max(a.score for a in alternatives)
    # Merge alternatives that differ only in timing: their probability mass adds up.
    mass: dict[str, float] = {}
    scores: dict[str, float] = {}
    for a in alternatives:
        text = " ".join(a.tokens)
        mass[text] = mass.get(text, 0.0) + math.exp(a.score - top)
        scores.setdefault(text, a.score)
    total = sum(mass.values())
    ranked = sorted(mass, key=lambda t: -mass[t])
    best_words = tuple(next(a.words for a in alternatives if " ".join(a.tokens) == ranked[0]))
    unknown_share = sum(mass[t] for t in ranked if all(tok == UNK for tok in t.split())) / total
    return Hearing(
        alternatives=tuple((t, mass[t] / total) for t in ranked),
        scores=tuple(scores[t] for t in ranked),
        words=best_words,
        start=best_words[0].start if best_words else speech_start,
        end=best_words[-1].end if best_words else speech_end,
        unknown=unknown_share >= 0.5,
        speech_end=speech_end,
        emitted_at=emitted_at,
        forced=forced,
        speech_start=speech_start,
    )
