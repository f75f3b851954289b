"""Grammar-constrained Vosk recognition: :class:`GrammarRecognizer`, also the interface
every engine's recogniser keeps (:class:`host.speech.sphinx.SphinxRecognizer`).

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
  may split "twenty ... three". :class:`host.speech.endpointer.Endpointer` therefore
  decides where an utterance ends itself and joins the vosk segments that fall inside one
  utterance.
* Kaldi dithers every frame with noise seeded from libc's process-wide ``rand()``, so the
  same audio decoded differently after other audio: :func:`host.speech.dither.seed_dither`
  reseeds it for every fresh recogniser.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from host.speech.audio import SAMPLE_RATE, SAMPLE_WIDTH
from host.speech.dither import seed_dither
from host.speech.hearing import Alternative, Hearing, Segment, WordTiming
from host.speech.model import UNK, SpeechModel, import_vosk

# Hearing is what a recogniser's utterances become (host.speech.hearing); callers name it
# ``recognizer.Hearing`` beside the referee's own hearing.
__all__ = ["GrammarRecognizer", "Hearing"]

log = logging.getLogger(__name__)


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
        #: Whether a word's confidence is its posterior in the lattice, comparable across
        #: utterances (pocketsphinx's); Vosk's grammar mode gives a misheard card's every word 1.0.
        self.word_posteriors = False
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

    def room_rings(self, rings: bool, noisy: bool = False) -> None:
        """Hear as the room needs from the next utterance on: ``rings``, a room whose tail
        smears words, and ``noisy`` (host/listening/listener.py). Only pocketsphinx changes
        anything (its talk gate's prior, :data:`host.speech.sphinx.RINGING_TALK_WEIGHT` and
        :data:`~host.speech.sphinx.NOISY_RINGING_TALK_WEIGHT`)."""

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
        vosk = import_vosk()
        args: tuple[Any, ...] = (self.model.vosk_model, float(self.sample_rate))
        if self._grammar is not None:
            args = (*args, self._grammar)
        recognizer = vosk.KaldiRecognizer(*args)
        recognizer.SetWords(True)
        if alternatives > 0:
            recognizer.SetMaxAlternatives(alternatives)
        return recognizer

    def accept(self, pcm: bytes) -> Segment | None:
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

    def paused(self) -> None:
        """Speech has paused in the utterance (the end-pointer waits to see if it ends):
        work a recogniser can do ahead of the end (default: none)."""

    def phrase_final(self) -> str:
        """What the phrase decoder would make of the utterance if it ended now, without
        ending it; "" as for :meth:`phrase_partial`."""
        return ""

    def heard_as_phrase(self, talk: str, phrase: str) -> bool:
        """Whether an utterance read so far as the talk words ``talk`` and as ``phrase`` by
        the phrase decoder would, ending now, be that phrase: when the talk has no more
        words than it (a sentence going on has more)."""
        return len(talk.split()) <= len(phrase.split())

    def finish(self) -> Segment:
        """Close the open segment and return its result."""
        return self._take(self._main.FinalResult())

    def _take(self, main_json: str) -> Segment:
        base = self._base
        segment = Segment(self._parse(json.loads(main_json), base))
        if self._shadow is not None:
            shadow = self._parse(json.loads(self._shadow.FinalResult()), base)
            segment.mbr_words = shadow[0].words if shadow else None
        # A recogniser that has produced a result reports drifting times: start afresh.
        self.reset()
        return segment

    def _normalise(self, word: str) -> str:
        return UNK if word == self.model.unk_token else word

    def _parse(self, result: dict[str, Any], base: float) -> list[Alternative]:
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
            alternatives.append(Alternative(tokens, float(entry.get("confidence", 0.0)), words))
        return alternatives
