"""Grammar-constrained Vosk recognition and our own end-of-utterance detection.

Facts about vosk 0.3.45 this module is built around (checked against the library):

* ``KaldiRecognizer.SetGrammar`` exists, but calling it while audio is being decoded is a
  fatal Kaldi error that aborts the whole process. We never call it: a grammar change
  builds a fresh ``KaldiRecognizer`` (about 1 ms for 100 phrases).
* A "grammar" is compiled into a bigram language model over the phrase words, so vosk can
  return sequences of phrases or even mixes ("오 십삼" from phrases "오" and "십삼"). Callers
  must parse the text, not look it up in the phrase list.
* Word times are wrong (drifting by a few hundred ms) once a recogniser has produced one
  result, so every utterance segment is decoded by a fresh recogniser whose start time
  on the stream we know.
* There is no API to tune vosk's endpointing; the model's rules (0.5 s trailing silence)
  may split "twenty ... three". :class:`Endpointer` therefore decides where an utterance
  ends itself and joins the vosk segments that fall inside one utterance.
* Kaldi dithers every frame (``--dither``, 1.0 unless the model's mfcc.conf says 0, and
  the packaged Korean model does not) with noise seeded from libc's process-wide
  ``rand()``. The same audio then decodes to different scores depending on how much audio
  the process decoded before ("이십오" read as "이" after a few other games in one
  process). :func:`seed_dither` reseeds it for every fresh recogniser.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import math
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from host.speech.audio import (
    SAMPLE_RATE,
    SAMPLE_WIDTH,
    as_int16,
    frame_levels,
    noise_floor,
    speech_to_noise_db,
)
from host.speech.model import UNK, SpeechModel
from host.speech.vad import load_vad

log = logging.getLogger(__name__)


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
    #: How far the utterance's speech stood above the noise floor of the audio the
    #: recogniser heard, in dB (:func:`~host.speech.audio.speech_to_noise_db`): about 70 in
    #: digital silence, 23-29 with white or fan noise 20 dB below a voice, 13-19 at 10 dB.
    snr_db: float = math.inf

    @property
    def text(self) -> str:
        return self.alternatives[0][0] if self.alternatives else ""

    @property
    def confidence(self) -> float:
        """Share of the best alternative (see class docstring for what it means)."""
        return self.alternatives[0][1] if self.alternatives else 0.0

    @property
    def latency(self) -> float:
        """Seconds from the end of speech to the decision (stream time, not wall time)."""
        return self.emitted_at - self.speech_end


# --- vosk wrapper -----------------------------------------------------------------------

#: Seed of Kaldi's dither noise for every recogniser: any fixed value makes the same audio
#: give the same hearing. Not glibc's default 1: with it, espeak-ng's "이십오" in
#: tests/table/test_table_cli.py reads as "이" (as with 3 of 24 values: a thin margin there).
DITHER_SEED = 2


@lru_cache(maxsize=1)
def _libc_srand() -> Callable[[int], None] | None:
    try:
        srand = ctypes.CDLL(None).srand
    except (OSError, AttributeError, TypeError):  # no C library symbols to reach (e.g. Windows)
        return None
    srand.argtypes, srand.restype = [ctypes.c_uint], None
    return srand


def seed_dither(seed: int = DITHER_SEED) -> None:
    """Reseed libc's ``rand()``, from which Kaldi seeds the dither of each frame, so the
    next utterance decodes the same every time. Process-wide: recognisers decoding in other
    threads at the same time (several phone calls) still share one sequence."""
    srand = _libc_srand()
    if srand is not None:
        srand(seed)


@dataclass
class _Alternative:
    tokens: tuple[str, ...]
    score: float
    words: list[WordTiming]


@dataclass
class _Segment:
    """Result of one vosk recogniser run (one vosk "utterance")."""

    alternatives: list[_Alternative]
    mbr_words: list[WordTiming] | None = None  # best path with per-word posteriors
    talk: str = ""  # the talk loop's words, when it explained the audio better than a phrase
    near_talk: str = ""  # the talk loop's words, when only a lenient prior kept the phrase

    @property
    def empty(self) -> bool:
        return all(not a.tokens for a in self.alternatives)


class GrammarRecognizer:
    """A vosk recogniser restricted to a phrase list, with N-best output.

    ``phrases=None`` means unconstrained recognition with the model's full language model
    (slow on large models: ~0.5 x real time for the Korean one). Phrases containing a word
    the model lacks are dropped with a warning (see :attr:`dropped`); the unknown-word
    token is always added, in the model's own spelling, and reported as ``"[unk]"``.

    A pocketsphinx model gets a :class:`host.speech.sphinx.SphinxRecognizer` (same
    interface, a JSGF grammar): build through :func:`host.speech.engines.recognizer_for`.
    """

    def __init__(
        self,
        model: SpeechModel,
        sample_rate: int = SAMPLE_RATE,
        phrases: Iterable[str] | None = (),
        *,
        max_alternatives: int = 5,
        word_confidences: bool = True,
        talk: Iterable[str] = (),
    ) -> None:
        self.model = model
        self.sample_rate = sample_rate
        self.max_alternatives = max_alternatives
        self.word_confidences = word_confidences
        self._phrases: tuple[str, ...] | None = None
        self._talk: tuple[str, ...] = ()
        self._dropped: tuple[str, ...] = ()
        self._grammar: str | None = None
        self._warned: frozenset[str] = frozenset()
        #: Whether partial results trail the audio (vosk: yes), so that the Endpointer must
        #: close a segment to know whether a complete phrase was said.
        self.partial_lags = True
        #: Whether a reading's share of the N-best list is evidence enough to stand for its
        #: probability when the game has no calibration. Vosk's is not: it offers a wrong
        #: card as its only reading, every word at confidence 1.0 (listener.calibrate).
        self.shares_are_confidences = False
        self._main: Any = None
        self._shadow: Any = None
        self._base = 0.0  # stream time of the first sample given to the current recogniser
        self._fed = 0  # samples given to the current recogniser
        self.set_phrases(phrases, talk=talk)

    @property
    def phrases(self) -> tuple[str, ...] | None:
        """Phrases in the active grammar (after dropping unknown words), without [unk]."""
        return self._phrases

    @property
    def dropped(self) -> tuple[str, ...]:
        """Phrases left out of the grammar because the model lacks one of their words."""
        return self._dropped

    @property
    def time(self) -> float:
        """Stream time just after the last sample accepted."""
        return self._base + self._fed / self.sample_rate

    @property
    def talk(self) -> tuple[str, ...]:
        """Words table talk may decode as (the model knows each)."""
        return self._talk

    def set_phrases(
        self, phrases: Iterable[str] | None, at: float | None = None, talk: Iterable[str] = ()
    ) -> None:
        """Switch grammar. Audio not yet turned into a result is discarded; the next sample
        is at stream time ``at`` (default: now). ``talk``: words that are not moves or
        commands (decoys, everyday words), for table talk to decode as instead of the
        nearest phrase."""
        self._talk = tuple(w for w in dict.fromkeys(talk) if w and w != UNK and self.model.has_word(w))
        if phrases is None:
            self._phrases, self._dropped, self._grammar = None, (), None
        else:
            kept: dict[str, None] = {}
            dropped: list[str] = []
            missing: set[str] = set()
            for raw in phrases:
                phrase = " ".join(raw.split())
                if not phrase or phrase == UNK:
                    continue
                lacking = self.model.missing_words([phrase])
                if lacking:
                    dropped.append(phrase)
                    missing.update(lacking)
                else:
                    kept[phrase] = None
            new_missing = frozenset(missing) - self._warned
            if new_missing:
                # Once per word: set_phrases runs on every game-state change.
                log.warning(
                    "speech model %s lacks words %s; dropped phrases %s",
                    self.model.path,
                    sorted(new_missing),
                    dropped,
                )
                self._warned |= new_missing
            self._phrases, self._dropped = tuple(kept), tuple(dropped)
            if not self._phrases and not self._talk and self.model.unk_token is None:
                raise ValueError("no phrase of the grammar is in the model's vocabulary")
            self._grammar = self._compile(list(self._phrases), [w for w in self._talk if w not in kept])
        self.reset(at)

    def _compile(self, phrases: list[str], talk: list[str]) -> str:
        """The grammar in the engine's own format. Vosk: a JSON list of phrases, the talk
        words and its unknown-word token; its "grammar" is a bigram model over these words,
        so talk decodes as any run of them (or ``[unk]``)."""
        entries = [*phrases, *talk]
        if self.model.unk_token is not None:
            entries.append(self.model.unk_token)
        return json.dumps(entries, ensure_ascii=False)

    def reset(self, at: float | None = None) -> None:
        """Discard pending audio; the next sample is at stream time ``at`` (default: now)."""
        self._base = self.time if at is None else at
        self._fed = 0
        seed_dither()  # the new recognisers' audio is dithered from here on
        self._main = self._new_recognizer(self.max_alternatives)
        self._shadow = self._new_recognizer(0) if self.word_confidences else None

    def _new_recognizer(self, alternatives: int) -> Any:
        import vosk

        args: tuple[Any, ...] = (self.model.vosk_model, float(self.sample_rate))
        if self._grammar is not None:
            args = (*args, self._grammar)
        recognizer = vosk.KaldiRecognizer(*args)
        recognizer.SetWords(True)
        if alternatives > 0:
            recognizer.SetMaxAlternatives(alternatives)
        return recognizer

    def accept(self, pcm: bytes) -> _Segment | None:
        """Decode pcm16; return a segment if vosk's own endpointing closed one."""
        if not pcm:
            return None
        ended = bool(self._main.AcceptWaveform(pcm))
        if self._shadow is not None:
            self._shadow.AcceptWaveform(pcm)
        self._fed += len(pcm) // SAMPLE_WIDTH
        if not ended:
            return None
        return self._take(self._main.Result())

    def partial(self) -> str:
        """Current partial hypothesis (best path so far) of the open segment."""
        text = json.loads(self._main.PartialResult()).get("partial", "")
        return " ".join(self._normalise(w) for w in str(text).split())

    def phrase_partial(self) -> str:
        """The phrase decoder's reading so far where :meth:`partial` follows another one
        (the talk gate of :class:`host.speech.sphinx.SphinxRecognizer`); "" when there is
        none (vosk decodes phrases and talk in one)."""
        return ""

    def phrase_final(self) -> str:
        """What the phrase decoder would make of the utterance if it ended now, without
        ending it; "" as for :meth:`phrase_partial`."""
        return ""

    def heard_as_phrase(self, talk: str, phrase: str) -> bool:
        """Whether an utterance read so far as the talk words ``talk`` and as ``phrase`` by
        the phrase decoder would, ending now, be that phrase: when the talk has no more
        words than it (a sentence going on has more)."""
        return len(talk.split()) <= len(phrase.split())

    def finish(self) -> _Segment:
        """Close the open segment and return its result."""
        return self._take(self._main.FinalResult())

    def _take(self, main_json: str) -> _Segment:
        base = self._base
        segment = _Segment(self._parse(json.loads(main_json), base))
        if self._shadow is not None:
            shadow = self._parse(json.loads(self._shadow.FinalResult()), base)
            segment.mbr_words = shadow[0].words if shadow else None
        # A recogniser that has produced a result reports drifting times: start afresh.
        self.reset()
        return segment

    def _normalise(self, word: str) -> str:
        return UNK if word == self.model.unk_token else word

    def _parse(self, result: dict[str, Any], base: float) -> list[_Alternative]:
        raw = result.get("alternatives")
        entries: list[dict[str, Any]] = raw if isinstance(raw, list) else [result]
        alternatives = []
        for entry in entries:
            words = [
                WordTiming(
                    word=self._normalise(str(w["word"])),
                    start=base + float(w["start"]),
                    end=base + float(w["end"]),
                    confidence=float(w["conf"]) if "conf" in w else None,
                )
                for w in entry.get("result", [])
            ]
            tokens = tuple(self._normalise(t) for t in str(entry.get("text", "")).split())
            alternatives.append(_Alternative(tokens, float(entry.get("confidence", 0.0)), words))
        return alternatives


def combine(segments: Sequence[_Segment], max_alternatives: int) -> list[_Alternative]:
    """N-best of a sequence of independent segments (scores add up).

    The best combination is the concatenation of each segment's best alternative, so the
    MBR word confidences of each segment can be attached to it where the words agree.
    """
    combined = [_Alternative((), 0.0, [])]
    for segment in segments:
        best_words = _with_confidences(segment)
        options = [
            _Alternative(a.tokens, a.score, best_words if i == 0 else a.words)
            for i, a in enumerate(segment.alternatives)
        ]
        combined = sorted(
            (
                _Alternative(c.tokens + o.tokens, c.score + o.score, c.words + o.words)
                for c in combined
                for o in options
            ),
            key=lambda a: -a.score,
        )[: max(1, max_alternatives)]
    return combined


def _with_confidences(segment: _Segment) -> list[WordTiming]:
    best = segment.alternatives[0].words if segment.alternatives else []
    mbr = segment.mbr_words
    if mbr is not None and [w.word for w in mbr] == [w.word for w in best]:
        return mbr
    return best


def make_hearing(
    alternatives: Sequence[_Alternative],
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
    )


# --- end of utterance -------------------------------------------------------------------


@dataclass
class _Utterance:
    """Book-keeping for the utterance being heard (or the speech candidate before it)."""

    speech_s: float = 0.0  # seconds of frames the VAD called speech
    first_speech: float | None = None
    last_speech: float | None = None
    confirmed: bool = False  # enough speech to count as an utterance
    segments: list[_Segment] = field(default_factory=list)
    text: str = ""
    phrase_probed: float | None = None  # last_speech when the phrase decoder was probed
    phrase_final: str = ""  # what that probe read
    speech_levels: list[float] = field(default_factory=list)  # RMS of the frames the VAD called speech
    text_changed: float = 0.0
    probed_at: float | None = None  # last_speech when the decoder was last asked to finish


#: Trailing silence that ends an utterance whose text is a complete phrase no other phrase
#: extends ("fifty three"): long enough to bridge a stop consonant's closure, short enough
#: for a ruling at conversational speed.
EARLY_END_SILENCE_S = 0.2


def complete_phrases(phrases: tuple[str, ...] | None) -> frozenset[str]:
    """Phrases that no other phrase of the list extends word by word.

    Hearing one of these, nothing the speaker could add would make another phrase, so the
    utterance can end after a short silence: "fifty three" is complete among the numbers,
    "ninety" is not ("ninety one").
    """
    if not phrases:
        return frozenset()
    whole, prefixes = _phrase_index(phrases)
    return whole - prefixes


@lru_cache(maxsize=64)
def _phrase_index(phrases: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The phrases, and the word sequences that begin a longer phrase."""
    return frozenset(" ".join(p.split()) for p in phrases), frozenset(_followers(phrases))


def next_words(text: str, phrases: tuple[str, ...] | None) -> frozenset[str]:
    """The words a longer phrase may go on with after ``text`` (judged by its last words, as
    :func:`ending` does): "이" and the other ranks after "스페이드", "거꾸로" after "낸다 공중제비"."""
    if not phrases or not text:
        return frozenset()
    follows = _followers(phrases)
    words = text.split()
    return frozenset().union(*(follows.get(" ".join(words[i:]), ()) for i in range(len(words))))


@lru_cache(maxsize=64)
def _followers(phrases: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """Each word sequence that begins a longer phrase, and the words that may come next."""
    found: dict[str, set[str]] = {}
    for phrase in {" ".join(p.split()) for p in phrases}:
        words = phrase.split()
        for i in range(1, len(words)):
            found.setdefault(" ".join(words[:i]), set()).add(words[i])
    return {k: frozenset(v) for k, v in found.items()}


def ending(text: str, phrases: tuple[str, ...] | None) -> str | None:
    """How ``text`` ends in the phrase list: "complete" when its last words are a phrase and
    no ending of it begins a longer one (nothing the speaker adds extends a phrase: what
    follows would be a new phrase), "phrase" when it ends with a phrase a longer one
    extends ("fifty" of "fifty three"), else None.

    A phrase-list decoder may put any phrases in a row ("사 삼십 이" for a misheard 31),
    so a text is judged by its last phrase, not only as a whole.
    """
    if not phrases or not text:
        return None
    whole, prefixes = _phrase_index(phrases)
    if text in whole:
        # One phrase: only it can be extended ("forty one" is complete although "one"
        # begins "one hundred"; a grammar of single phrases, like JSGF, has nothing else).
        return "phrase" if text in prefixes else "complete"
    words = text.split()
    tails = [" ".join(words[i:]) for i in range(len(words))]
    if not any(t in whole for t in tails):
        return None
    return "phrase" if any(t in prefixes for t in tails) else "complete"


class Endpointer:
    """Streaming recogniser: feed pcm16 chunks, get a :class:`Hearing` per utterance.

    An utterance starts when the voice activity detector has heard ``min_speech_s`` of
    speech and ends when, after that, there has been ``silence_s`` without speech *and* the
    decoder's text has not changed for ``stable_s`` (so a soft last syllable the VAD missed
    still holds the utterance open), or after ``max_utterance_s``. ``silence_s`` (default
    0.7 s) is longer than the pause people leave inside "twenty ... three" and shorter than
    the pause before expecting an answer. When the text so far is one of
    :func:`complete_phrases` of the grammar, or ends with one (:func:`ending`),
    ``early_silence_s`` (default :data:`EARLY_END_SILENCE_S`) of silence is enough;
    ``None`` switches that off. When it ends with a phrase that a longer one extends
    ("오십" of "오십 삼"), ``phrase_silence_s`` is enough (default: ``silence_s``) if
    ``settles`` (default: any text) accepts the text among the phrases: a language whose
    numbers are one word each ("오십삼") rarely pauses inside one, while "스페이드 ... 이"
    may well pause.

    ``vad`` is "auto" (Silero, or the energy detector if Silero cannot load), "silero" or
    "energy" (see :mod:`host.speech.vad`). The energy detector compares each 10 ms frame's
    RMS with ``ratio`` times the noise floor, taken as the ``floor_percentile`` of frame RMS
    over the last ``floor_window_s`` (so steady noise such as a fan or a phone line is not
    speech), and never below ``min_rms``. The stream should start with a little non-speech
    for the floor to settle.

    Time is stream time: seconds of audio passed to :meth:`feed` (muted audio included).
    """

    FRAME_S = 0.01
    #: Lead-in the decoder gets before the first speech the VAD found.
    PREROLL_S = 0.6
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
        vad: str = "auto",
    ) -> None:
        self.recognizer = recognizer
        self.rate = recognizer.sample_rate
        self.silence_s = silence_s
        self.early_silence_s = early_silence_s
        self.phrase_silence_s = silence_s if phrase_silence_s is None else min(phrase_silence_s, silence_s)
        self.settles = settles
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
        self._decoding = False

    # --- public API ---

    @property
    def time(self) -> float:
        """Current stream time in seconds."""
        return self._samples / self.rate

    @property
    def in_utterance(self) -> bool:
        return self._utt.confirmed

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

    def _process(self, block: bytes) -> None:
        utt = self._utt
        samples = as_int16(block)
        spans = self.vad.speech(samples, self.time)
        for span_start, span_end in spans:
            if utt.first_speech is None:
                utt.first_speech = span_start
            utt.last_speech = span_end
            utt.speech_s += span_end - span_start
        self._measure(samples, spans)
        self._samples += len(samples)
        now = self.time

        if not self._decoding:
            self._preroll.append(block)
            self._preroll_bytes += len(block)
            limit = round(self.PREROLL_S * self.rate) * SAMPLE_WIDTH
            while self._preroll_bytes - len(self._preroll[0]) >= limit:
                self._preroll_bytes -= len(self._preroll.popleft())
            if utt.first_speech is None:
                return
            block = b"".join(self._preroll)
            self._idle()
            self._decoding = True
            self.recognizer.reset(at=now - len(block) / (SAMPLE_WIDTH * self.rate))

        if utt.speech_s >= self.min_speech_s and not utt.confirmed:
            utt.confirmed = True
            log.debug("speech started at %.2f s", utt.first_speech)

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
            if not closed and (speaking or grew):
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
            phrases = self.recognizer.phrases
            how = ending(utt.text, phrases)
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
            if enough and now - utt.text_changed >= self.EARLY_STABLE_S:
                self._end(forced=False)

    def _measure(self, samples: npt.NDArray[np.int16], spans: list[tuple[float, float]]) -> None:
        """Keep the block's frame levels for the noise floor, and those inside speech for the
        utterance's speech to noise ratio."""
        frame = self._frame_bytes // SAMPLE_WIDTH
        levels = frame_levels(samples.astype(np.float64), frame).tolist()
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
            hearing = replace(hearing, talk=talk, near_talk=near_talk, snr_db=snr)
        self._utt = _Utterance()
        self._idle()
        self._restart(now)
        if hearing is None:
            log.debug("utterance ended with nothing decoded")
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
