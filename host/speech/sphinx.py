"""pocketsphinx behind the :class:`GrammarRecognizer` interface: English out of the box.

Facts about pocketsphinx 5.1 this module is built around (checked against the library):

* A phrase list becomes a JSGF grammar with one public rule of whole-phrase alternatives;
  unlike vosk's bigram "grammar" it cannot mix phrases. Grammars are kept in the decoder
  by name, so switching back to a list seen before is only ``activate_search``.
* Frame times restart at 0 with every ``start_utt``, at 100 frames a second.
* The Python binding returns ``Hypothesis.score`` as ``logmath.exp(score)``, where the
  score has already been scaled down by 2**10 (pocketsphinx's SENSCR_SHIFT); the lattice
  posteriors (``Segment.prob``) divide acoustic scores by ``ascale`` (20). N-best shares
  use the same scaling, so they are comparable with the word posteriors.
* There is no garbage word: out-of-grammar speech is heard as the nearest phrase. So a
  second decoder (the *gate*) runs on the same audio with a grammar of "one whole phrase,
  or any run of everyday words" (:func:`gate_jsgf`): table talk decodes as words, a move as
  its phrase. Its N-best list is never read: over a loop of words the lattice is huge and
  ``nbest()`` takes seconds. The phrase decoder gives the alternatives and their shares.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from host.speech import sphinx_gate
from host.speech.audio import SAMPLE_RATE, SAMPLE_WIDTH
from host.speech.hearing import Alternative, Segment, WordTiming
from host.speech.mllr import ROOM_MEANS, ROOM_TRANSFORM, fits
from host.speech.model import SpeechModel, import_pocketsphinx
from host.speech.recognizer import GrammarRecognizer
from host.speech.sphinx_gate import ALT_PRONUNCIATION, Gate, decoder_text, gate_jsgf, search_for, talk_words

log = logging.getLogger(__name__)

_FRAME_S = 0.01  # pocketsphinx's default -frate 100
_SENSCR_SHIFT = 10
_ASCALE = 20.0
#: Natural-log N-best score differences are multiplied by this before the softmax.
NBEST_SCALE = 2**_SENSCR_SHIFT / _ASCALE
# N-best lists repeat a text once per segmentation; this many entries cover 5 texts.
_NBEST_SCAN = 40
VARIANT = 9  # the number of a pronunciation from grammars/<lang>/variants.yaml


def jsgf(phrases: list[str], name: str = "phrases") -> str:
    """A JSGF grammar accepting exactly one of ``phrases`` (lowercase word sequences)."""
    return f"#JSGF V1.0;\ngrammar {name};\npublic <{name}> = {sphinx_gate.alternatives(phrases)};\n"


#: Prior weight of the talk branch of the gate against a whole phrase: a move must not be
#: lost to a run of short words that happens to fit it a little better ("forty" as "or a"),
#: while a sentence still fits words far better than any phrase. Measured in
#: tests/bench/bench_table_talk.py (see docs/speech.md).
TALK_WEIGHT = 1e-12

#: Word insertion penalty of the gate decoder (pocketsphinx's ``-wip``, 0.65 by default):
#: every word of a path costs this much more, so a run of short everyday words stitched
#: over a move ("one of hearts" in espeak-ng's voice as "well on part", "forty nine" as
#: "far be on you") no longer beats the move's own fewer, longer words, while a sentence of
#: talk still fits its words far better than any phrase. Measured in
#: tests/bench/bench_table_talk.py (see docs/speech.md).
GATE_WIP = 0.1

#: The talk prior of a second, lenient gate on the same audio. When the gate hears talk of
#: at most :data:`LENIENT_EXTRA_WORDS` more words than the phrase decoder's whole phrase, and
#: the lenient gate hears that same phrase, the utterance is that phrase: a move said in a
#: voice the model fits poorly (espeak-ng's "twelve" as "where old", "one of hearts" as "was
#: on party") is no longer dropped as talk, while a sentence, heard as more words than any
#: phrase, stays talk whatever the lenient gate makes of it ("hang on, let me just" as 10
#: at 1e-20 on its own). Measured in tests/bench/bench_table_talk.py (docs/speech.md).
#: None: no lenient gate (a third of the CPU less, tests/bench/bench_english.py "speed").
#: Phone calls have none: measured at a table's microphone only.
LENIENT_TALK_WEIGHT: float | None = 1e-20

#: The strict gate's talk prior in a room that rings (host/listening/listener.py,
#: ``RINGS_RT60``): there a move's reverberant tail fits a run of short talk words better
#: than its own phrase ("sixty one" as "said see while up", "eighty five" heard right by
#: the phrase decoder and dropped as talk), so the lenient gate's prior is the strict one.
#: A sentence of talk still fits words far better, and anything right after talk is taken
#: for a reply to it in such a room. Measured in tests/bench/bench_room.py (docs/speech.md).
#: With the adapted means (RINGING_MEANS) it is 1e-18: the screen (bench_room.py --screen
#: 40, den / living room / kitchen) heard "let me think about this" as "one hundred five"
#: at 1e-20, no sentence as a phrase at 1e-18 or 1e-16, and moves heard right and kept 103,
#: 102 and 101 of 120. The transform alone lost moves at 1e-16 (84 -> 77 of 120).
RINGING_TALK_WEIGHT = 1e-18
#: The lenient gate's talk prior in a room that rings (None: the strict gate's, and then it
#: does not listen). Not kept: at 1e-60 it turned dropped moves into read-backs, not moves
#: ruled, and read 4 sentences in 40 back (tests/bench/bench_room.py ``--ringing-lenient``,
#: docs/speech.md "Hearing in a room").
RINGING_LENIENT_WEIGHT: float | None = None
#: In a room that rings, the twin's talk prior when it doubts rather than rescues (None:
#: it does not): a phrase of at most :data:`RINGING_DOUBT_WORDS` words that the gate kept
#: is heard again with this prior, and if that hears talk the hearing is ``doubted`` (a
#: move read back, never ruled at once; dropped at the table with no question waiting:
#: host/confirm.py RINGING_DOUBTED_DROP; a "yes" to a question waiting still answers).
#: An unseen voice's laugh ("hee hee") in unseen rooms of RT60 0.34-0.72 s was heard as
#: "eighty" at 0.85-0.88, the word as sure as lone moves heard right, read back 5 times in
#: 40 and ruled once. At 1e-8 the twin heard 12 of 14 such hearings as talk ("he", "be");
#: another voice's (espeak-ng, fan noise) 4 of 12. It doubted 12 lone moves heard right
#: (five "done", five "eight") of 480 moves in 12 runs of rooms and voices: said again.
RINGING_DOUBT_WEIGHT: float | None = 1e-8
RINGING_DOUBT_WORDS = 1
#: Both gates' talk prior in a room that rings and is noisy too (the listener's
#: ``_noisy``): there the ringing prior let talk through as moves. In an unseen room of
#: RT60 0.74 s with fan noise 20 dB below, Piper's "so what I was saying was" was heard as
#: "draws a card" and ruled, and 6 of 40 sentences were read back; at the dry table's prior
#: none was ruled and 2 were read back, in the living room 1 -> 0 (and 2 answered -> 0), for
#: 3 moves of 40 right first try fewer there (docs/speech.md "Hearing in a room"). None:
#: the ringing prior.
NOISY_RINGING_TALK_WEIGHT: float | None = TALK_WEIGHT
LENIENT_EXTRA_WORDS = 1

#: In a room that rings, keep a phrase the gate heard as talk of at most
#: :data:`LENIENT_EXTRA_WORDS` more words as near talk (read back, never ruled at once)
#: when it has :data:`RINGING_NEAR_WORDS` words or more, each heard by the phrase decoder
#: at :data:`RINGING_NEAR_POSTERIOR` or more: there a long move's ringing tail fits a run
#: of short talk words ("one card yellow one" as "while our oh want up"). For any phrase
#: it read short sentences back too ("no way, really" as "one hundred one", and someone's
#: "yes" put Ann out). The bench dumps held 64 distinct dropped moves over the bar and no
#: sentence heard as a move (closest: weakest word 0.89). Kitchen, Piper: dropped 15 -> 10
#: of 40, read back 9 -> 14, talk read back 0 (docs/speech.md "Hearing in a room").
RINGING_NEAR_TALK = True
RINGING_NEAR_WORDS = 4
RINGING_NEAR_POSTERIOR = 0.9


#: Top of the mel filter bank for 8 kHz input: telephone speech carries nothing above
#: ~3.4 kHz, and the model's own 6800 Hz is above Nyquist.
NARROWBAND_UPPERF = 3500

#: Initial cepstral mean for phone audio upsampled to 16 kHz: the mean the decoder's live
#: CMN settled on after Piper and espeak-ng numbers through an 8 kHz mu-law round trip.
#: The model's own (40,3,-1) suits wideband speech; phone audio has nothing above 4 kHz,
#: so a call's first words were decoded against a far-off mean until the live CMN caught
#: up ("fifty three" heard as "thirty three"). Measured on the first utterance of a fresh
#: decoder (tests/bench/bench_english.py, "phone"): see docs/media-streams.md.
PHONE_CMN_INIT = "31.78,12.37,-29.26,32.83,-18.18,-4.19,2.37,-23.21,10.05,-10.74,0.39,5.09,-12.72"

#: Initial cepstral mean for a table's microphone (16 kHz). The live CMN updates only at
#: the end of an utterance, so the first words are decoded against the initial mean, and
#: the model's (40,3,-1,0...) is far from clear speech at 16 kHz: a fresh decoder heard
#: espeak-ng's numbers 1..100 right 68 times of 100. c1..c12 are the mean the live CMN
#: settled on after 15 moves each by Piper and espeak-ng (their average: the spectral
#: shape of speech, not of one voice); c0, the loudness, is between the model's 40 and the
#: settled 56 so that a quiet microphone is not pushed off either (espeak-ng 1..100, fresh
#: decoder, at -21 / -35 dBFS RMS: 68 / 68 with the model's mean, 95 / 90 with this; Piper
#: 99 / 98 -> 99 / 99). See docs/speech.md.
TABLE_CMN_INIT = "44,1.05,-1.92,18.26,-1.79,-2.98,-3.32,-11.37,-0.45,-3.03,4.17,-2.07,-4.35"

#: The MLLR transform of the model's means for a table's microphone, or None (off).
#: host/speech/mllr.py's ROOM_TRANSFORM (estimated from synthetic speech in simulated
#: rooms) turns moves dropped in a ringing room into moves ruled right and hears dry speech
#: no worse in tests/bench/bench_room.py (``--chain room-mllr,room --mllr PATH``), but on
#: every decoder it changes what the gate tests of dry espeak-ng pin (docs/speech.md).
TABLE_MLLR: Path | None = None

#: The MLLR transform for a table's decoders once the room meter finds the room ringing
#: (SphinxRecognizer.room_rings), or None (off): a dry table hears as without it. All four
#: games in tests/bench/bench_room.py (--quick, Piper, 40 moves a room with talk between):
#: right first try den 33 -> 35, living room 17 -> 20, kitchen 4 -> 6, talk changed and
#: asked no more often (docs/speech.md "Hearing in a room").
RINGING_MLLR: Path | None = ROOM_TRANSFORM

#: At most this many HMMs active a frame in a room that rings or is noisy (``maxhmmpf``;
#: pocketsphinx's own, 30000, where None): others talking in a room that echoes spread the
#: gate's talk loop wide, 0.59-0.75 s of CPU per second of audio, under 0.5 s so (docs/speech.md).
RINGING_MAX_HMMS: int | None = 2000

#: A table's decoders' adaptation to the room: (transform, means, RINGING_MAX_HMMS or None).
Adaptation = tuple[Path | None, Path | None, int | None]

#: The model's means adapted to ringing rooms (MAP over the transform, host/speech/mllr.py),
#: for a table's decoders once the room rings, in place of RINGING_MLLR; or None (off).
#: Used only with the model they were adapted from (mllr.fits; else RINGING_MLLR).
#: Screen of Up-or-Down's words (bench_room.py --screen 40): heard right and kept, den /
#: living room / kitchen, 37 / 29 / 18 of 40 with the transform, 39 / 34 / 29 with these
#: at the talk prior RINGING_TALK_WEIGHT (1e-18; at 1e-20 39 / 34 / 30); no sentence in 60
#: heard as a phrase with either at its prior (with these at 1e-20, one).
RINGING_MEANS: Path | None = ROOM_MEANS


def decoder_config(model: SpeechModel, sample_rate: int, *, phone: bool = False) -> Any:
    pocketsphinx = import_pocketsphinx()
    config = pocketsphinx.Config(hmm=str(model.path), dict=str(model.dictionary), lm=None, loglevel="FATAL")
    config["samprate"] = float(sample_rate)
    # The lattice best-path rescoring pass picks a worse phrase than the grammar search
    # itself: espeak-ng numbers 1..100 read 74 right without it, 63 with it (Piper: 98
    # both); the N-best list comes from the lattice either way.
    config["bestpath"] = False
    # Score 16 Gaussians per codebook instead of 4: espeak-ng numbers 74 -> ~80 of 100,
    # Piper unchanged, for little CPU (the grammar keeps the search small).
    config["topn"] = 16
    if phone:
        config["cmninit"] = PHONE_CMN_INIT
    elif sample_rate == SAMPLE_RATE:
        config["cmninit"] = TABLE_CMN_INIT
        if TABLE_MLLR is not None:
            config["mllr"] = str(TABLE_MLLR)
    front = dict(FRONT_END)
    if sample_rate < SAMPLE_RATE:
        # A 256-point FFT covers the 25.6 ms window at 8 kHz.
        config["nfft"] = 256
        front["upperf"] = str(NARROWBAND_UPPERF)
    if front:
        # The model's feat.params override these given on the config: an edited copy.
        config["featparams"] = str(_feat_params(model.path, tuple(sorted(front.items()))))
    return config


#: Front-end settings over the model's feat.params ({"remove_noise": "no"}), for every
#: decoder made from now on (a bench trying a candidate, ``--front``: without noise removal
#: 4 fewer moves right in 40 in the living room).
FRONT_END: dict[str, str] = {}


@lru_cache(maxsize=8)
def _feat_params(hmm: Path, edits: tuple[tuple[str, str], ...]) -> Path:
    text = (hmm / "feat.params").read_text()
    for key, value in edits:
        line = f"-{key} {value}"
        text, found = re.subn(rf"(?m)^-{key}\s+\S+", line, text)
        text += "" if found else f"\n{line}\n"
    return sphinx_gate.scratch_file("feat.params", text)


def _gate_weights(gates: int, rings: bool, noisy: bool = False) -> list[float]:
    """The talk priors of the strict gate and its twin (if any), in a room that rings or
    not, and is noisy or not. In a room that rings the twin is lenient
    (:data:`RINGING_LENIENT_WEIGHT`), doubting (:data:`RINGING_DOUBT_WEIGHT`, above the
    gate's) or, with neither, the gate's own prior, and then it does not listen."""
    if rings:
        noisy_prior = NOISY_RINGING_TALK_WEIGHT if noisy else None
        strict = noisy_prior if noisy_prior is not None else RINGING_TALK_WEIGHT
        doubt = RINGING_DOUBT_WEIGHT if (RINGING_DOUBT_WEIGHT or 0.0) > strict else None
        lenient = RINGING_LENIENT_WEIGHT if noisy_prior is None else None
        twin = lenient if lenient is not None else doubt
        return [strict, twin if twin is not None else strict][:gates]
    return [TALK_WEIGHT, LENIENT_TALK_WEIGHT or 0.0][:gates]


class SphinxRecognizer(GrammarRecognizer):
    """pocketsphinx decoding one utterance at a time against the current phrase list, with
    a gate decoder on the same audio when there are talk words (see the module notes)."""

    def __init__(
        self,
        model: SpeechModel,
        sample_rate: int = SAMPLE_RATE,
        phrases: Any = (),
        *,
        max_alternatives: int = 5,
        word_confidences: bool = True,
        phone: bool = False,
        talk: Iterable[str] = (),
    ) -> None:
        """``phone``: the audio is a phone call's, upsampled (see :data:`PHONE_CMN_INIT`)."""
        self._config = decoder_config(model, sample_rate, phone=phone)
        self._config["dict"] = str(sphinx_gate.empty_dictionary())  # words come with grammars
        self._decoder: Any = self.new_decoder(model, self._config)
        self._known: set[str] | None = set()  # words taught the phrase decoder (None: all)
        self._vocabulary: tuple[str, ...] = ()  # the words of the grammars now
        # The gate, and its lenient twin (LENIENT_TALK_WEIGHT), which was measured at a
        # table's microphone: a call keeps its CPU.
        lenient = () if LENIENT_TALK_WEIGHT is None or phone else (LENIENT_TALK_WEIGHT,)
        weights = (TALK_WEIGHT, *lenient)
        self._gates = [Gate(self._gate_config(model, sample_rate, phone), w) for w in weights]
        self._searches: dict[str, str] = {}  # grammar text -> search name in the decoder
        self._gate_grammars: list[str | None] = [None] * len(self._gates)  # per gate, now
        self._in_utt = False
        self._active: str | None = None
        self._whole: frozenset[str] | None = None  # the grammar's sentences (None: no grammar)
        self._audio: list[bytes] = []  # the utterance so far, decoded again after a probe
        self._compiled: tuple[list[str], list[str]] | None = None  # what the grammars were made of
        self._rings = self._noisy = False  # the room rings, is noisy (room_rings)
        self._table = not phone and sample_rate == SAMPLE_RATE  # a table's microphone
        self._adaptation: Adaptation = (TABLE_MLLR if self._table else None, None, None)
        self._max_hmms = self._config["maxhmmpf"]  # pocketsphinx's own
        super().__init__(
            model,
            sample_rate,
            phrases,
            max_alternatives=max_alternatives,
            word_confidences=word_confidences,
            talk=talk,
        )
        self.partial_lags = False  # pocketsphinx's hypothesis keeps up with the audio
        # The gate has heard the utterance as a whole phrase, and the lattice's N-best holds
        # its close rivals: no card was ruled wrong in the English benches.
        self.shares_are_confidences = True
        self.word_posteriors = True  # Segment.prob: the lattice's posterior of the word

    @property
    def talk_priors(self) -> tuple[float, ...]:
        """The gates' talk priors now (the strict gate's first)."""
        return tuple(g.weight for g in self._gates)

    @property
    def cepstral_mean(self) -> str:
        """The live cepstral mean ("c0,c1,...") as the audio so far has left it."""
        return str(self._decoder.get_cmn(False))

    @cepstral_mean.setter
    def cepstral_mean(self, value: str) -> None:
        """Start from the mean another decoder on the same microphone settled on."""
        self._decoder.set_cmn(value)
        for gate in self._gates:
            gate.set_cmn(value)

    @property
    def _gate(self) -> Gate | None:
        """The gate, when one listens now (its lenient twin listens with it)."""
        return self._gates[0] if self._gates[0].active is not None else None

    @staticmethod
    def _gate_config(model: SpeechModel, sample_rate: int, phone: bool) -> Any:
        config = decoder_config(model, sample_rate, phone=phone)
        config["wip"] = GATE_WIP
        config["dict"] = str(sphinx_gate.empty_dictionary())
        return config

    @staticmethod
    def new_decoder(model: SpeechModel, config: Any) -> Any:
        decoder = import_pocketsphinx().Decoder(config)
        # Before any grammar is added, so no search needs updating. The dictionary's words
        # and our second pronunciations of them come with the grammars (_teach).
        for word, phones in model.pronunciations.items():
            decoder.add_word(word, phones, False)
        return decoder

    def _teach(self, decoder: Any, known: set[str] | None) -> None:
        """Add the words of the grammars now that a decoder has not been taught yet."""
        sphinx_gate.teach(decoder, known, self._vocabulary, self.model, VARIANT)

    def room_rings(self, rings: bool, noisy: bool = False) -> None:
        # The gates' talk priors, from the next utterance on (reset() activates them).
        self._rings, self._noisy = rings, noisy
        weights = _gate_weights(len(self._gates), rings, noisy)
        if weights == [g.weight for g in self._gates]:
            return
        for gate, weight in zip(self._gates, weights, strict=True):
            gate.weight = weight
        if self._compiled is not None:
            self._compile(*self._compiled)
            if self._fed == 0:  # no audio of this utterance yet: listen so from now
                self.reset(self._base)

    def _compile(self, phrases: list[str], talk: list[str]) -> str:
        self._compiled = (phrases, talk)
        loop = talk_words(talk, phrases, self.model.dictionary)
        self._vocabulary = tuple(dict.fromkeys([w for p in phrases for w in p.split()] + loop))
        # A lenient twin with the strict gate's prior (a room that rings) would hear the
        # same: it does not listen then, a third of the CPU less.
        weights = [g.weight for g in self._gates]
        self._gate_grammars = [
            gate_jsgf(phrases, loop, w) if loop and w not in weights[:i] else None
            for i, w in enumerate(weights)
        ]
        if not phrases:
            # Only talk to listen for: the phrase decoder's grammar must still accept something.
            phrases = loop[:1]
        self._whole = frozenset(" ".join(p.split()) for p in phrases)
        return jsgf(phrases)

    def reset(self, at: float | None = None) -> None:
        self._base = self.time if at is None else at
        self._fed = 0
        self._audio = []
        if self._in_utt:
            self._decoder.end_utt()
            self._end_gates()
            self._in_utt = False
        self._adapt()
        self._activate()
        self._decoder.start_utt()
        for gate in self._gates:
            if gate.active is not None:
                gate.start()
        self._in_utt = True

    def _end_gates(self) -> None:
        """End the gates' utterance. The lenient twin decodes only what its reading was
        wanted for (:meth:`_kept`), a third of the decoding saved; the cepstral mean depends
        on the audio alone, so it takes the strict gate's, as if it had heard it all."""
        for gate in self._gates:
            gate.end()
        strict = self._gates[0].decoder
        for twin in self._gates[1:]:
            if twin.decoder is not None and strict is not None:
                twin.decoder.set_cmn(strict.get_cmn(False))

    def _room_means(self) -> Path | None:
        """The adapted means a table's decoders take once the room rings, if they fit the model."""
        means = RINGING_MEANS
        return means if self._table and means is not None and fits(means, Path(self.model.path)) else None

    def _adapt(self) -> None:
        """Between utterances, remake the decoders with the ringing room's transform, or
        without it (pocketsphinx reads a transform only when a decoder is made), keeping
        the cepstral mean the microphone has settled on."""
        want: tuple[Path | None, Path | None] = (None, None)
        means = self._room_means() if self._rings else None
        if means is not None:
            want = (None, means)
        elif self._table:
            want = ((RINGING_MLLR if self._rings else None) or TABLE_MLLR, None)
        cap = RINGING_MAX_HMMS if (self._rings or self._noisy) and self._table else None
        if (*want, cap) == self._adaptation:
            return
        mean = self.cepstral_mean
        self._adaptation = (*want, cap)
        for config in (self._config, *(gate.config for gate in self._gates)):
            config["mllr"] = str(want[0]) if want[0] is not None else None
            config["mean"] = str(want[1] or Path(self.model.path) / "means")
            config["maxhmmpf"] = cap or self._max_hmms
        self._decoder = self.new_decoder(self.model, self._config)
        self._searches, self._active = {}, None
        self._known = set() if self._known is not None else None
        for gate in self._gates:
            gate.decoder, gate.searches, gate.active, gate.in_utt = None, {}, None, False
        self.cepstral_mean = mean

    def _activate(self) -> None:
        grammar = self._grammar
        if grammar is None:
            name = "_lm"
            if name not in self._searches.values():
                assert self.model.dictionary is not None
                if self._known is not None:  # the language model's words are all of them
                    self._config["dict"], self._known = str(self.model.dictionary), None
                    self._decoder = self.new_decoder(self.model, self._config)
                    self._searches, self._active = {}, None
                    for word, phones in self.model.variants.items():
                        self._decoder.add_word(f"{word}({VARIANT})", phones, False)
                lm = self.model.dictionary.parent / "en-us.lm.bin"
                self._decoder.add_lm_file(name, str(lm))
                self._searches["\0lm"] = name
        else:
            self._teach(self._decoder, self._known)
            name = search_for(self._decoder, self._searches, grammar)
        # Tracked here: Decoder.current_search() crashes before any search is active.
        if self._active != name:
            self._decoder.activate_search(name)
            self._active = name
        for gate, gate_grammar in zip(self._gates, self._gate_grammars, strict=True):
            listening = gate_grammar if grammar is not None else None
            gate.activate(lambda config: self.new_decoder(self.model, config), listening, self._teach)

    def accept(self, pcm: bytes) -> Segment | None:
        # Never closes a segment by itself: the Endpointer decides where utterances end.
        if pcm:
            self._decoder.process_raw(pcm, False, False)
            if (gate := self._gate) is not None:
                gate.decoder.process_raw(pcm, False, False)
                self._audio.append(pcm)
            self._fed += len(pcm) // SAMPLE_WIDTH
        return None

    def partial(self) -> str:
        # The gate's words while talk goes on, so that a pause in "hello everyone, pass the
        # chips" is not taken for the end of a move the phrase decoder guessed ("eleven").
        decoder = self._gate.decoder if self._gate is not None else self._decoder
        hyp = decoder.hyp()
        return str(hyp.hypstr) if hyp is not None else ""

    def phrase_partial(self) -> str:
        return decoder_text(self._decoder) if self._gate is not None else ""

    def paused(self) -> None:
        # On a lone word the doubting twin catches up while the end is waited for, so that
        # the doubt does not hold the ruling back.
        twin = sphinx_gate.doubter(self._gates)
        if twin is None:
            return  # no doubting twin (a dry table): not even the phrase decoder's reading
        said = self.phrase_partial()
        if said and len(said.split()) <= RINGING_DOUBT_WORDS:
            twin.feed(self._audio)

    def heard_as_phrase(self, talk: str, phrase: str) -> bool:
        # As finish() will judge it.
        return super().heard_as_phrase(talk, phrase) or (self._gate is not None and self._kept(talk, phrase))

    def _kept(self, talk: str, phrase: str, *, final: bool = False, posteriors: Sequence[float] = ()) -> bool:
        """Whether the lenient gate keeps ``phrase`` that the gate heard as ``talk``: a move
        said in a voice the model fits poorly, as many words of talk as the phrase (give or
        take), and only the strict prior makes it talk. In a room that rings, as many words
        are enough for a long phrase heard surely (:data:`RINGING_NEAR_TALK`; its words'
        ``posteriors``, known only at the end). ``final``: at the utterance's end (the twin's
        final reading, not its partial one)."""
        if not phrase or len(talk.split()) > len(phrase.split()) + LENIENT_EXTRA_WORDS:
            return False
        words = len(phrase.split())
        sure = len(posteriors) == words and min(posteriors, default=0.0) >= RINGING_NEAR_POSTERIOR
        if self._rings and RINGING_NEAR_TALK and words >= RINGING_NEAR_WORDS and sure:
            return True
        twin = self._gates[1] if len(self._gates) > 1 else None
        if twin is None or twin.active is None or sphinx_gate.doubter(self._gates) is not None:
            return False
        twin.feed(self._audio)
        if final:
            twin.end()
        return twin.text() == phrase

    def phrase_final(self) -> str:
        # pocketsphinx reads a final-state path only at end_utt: end the phrase decoder's
        # utterance, read it, then decode the same audio again from the same cepstral mean
        # (end_utt updates it), so the utterance goes on exactly as if never probed. The
        # phrase decoder costs ~0.02 s of CPU per second of audio.
        if self._gate is None or not self._in_utt:
            return ""
        mean = self._decoder.get_cmn(False)
        self._decoder.end_utt()
        final = decoder_text(self._decoder)
        self._decoder.set_cmn(mean)
        self._decoder.start_utt()
        for pcm in self._audio:
            self._decoder.process_raw(pcm, False, False)
        return final

    def finish(self) -> Segment:
        base = self._base
        self._decoder.end_utt()
        gate = self._gate
        if gate is not None:
            gate.end()
        alternatives = self._alternatives(base)
        talk = near_talk = doubted = ""
        if gate is not None:
            strict = gate.text()
            if strict and strict not in (self._phrases or ()):
                talk = strict
            phrase = " ".join(alternatives[0].tokens) if alternatives else ""
            posteriors = [w.confidence or 0.0 for w in alternatives[0].words] if alternatives else []
            if talk and self._kept(talk, phrase, final=True, posteriors=posteriors):
                talk, near_talk = "", talk
            elif not talk and len(phrase.split()) <= RINGING_DOUBT_WORDS:
                doubted = sphinx_gate.doubted(self._gates, self._audio, phrase, self._phrases or ())
        self._end_gates()
        self._in_utt = False
        adapted = self._adaptation[1] is not None
        segment = Segment(alternatives, talk=talk, near_talk=near_talk, doubted=doubted, room_adapted=adapted)
        self.reset()
        return segment

    def _alternatives(self, base: float) -> list[Alternative]:
        hyp = self._decoder.hyp()
        if hyp is None or not str(hyp.hypstr).strip():
            return []
        words = [
            WordTiming(
                word=ALT_PRONUNCIATION.sub("", str(seg.word)),
                start=base + seg.start_frame * _FRAME_S,
                end=base + (seg.end_frame + 1) * _FRAME_S,
                confidence=min(1.0, max(0.0, float(seg.prob))) if self.word_confidences else None,
            )
            for seg in self._decoder.seg()
            if _is_word(str(seg.word))
        ]
        best_text = " ".join(str(hyp.hypstr).split())
        scores = {best_text: _log_score(hyp.score)}
        if self.max_alternatives > 1:
            for i, entry in enumerate(self._decoder.nbest() or ()):  # None: no lattice
                if i >= _NBEST_SCAN or len(scores) >= self.max_alternatives:
                    break
                if entry is None:  # the iterator yields None for a failed path
                    continue
                text = " ".join(str(entry.hypstr).split())
                # The lattice also holds paths that stop inside a phrase ("six of" beside
                # "six of spades", "take" of "take back" beside "eight"): not sentences of
                # the grammar, they only split the share, so clear moves were read back.
                whole = self._whole is None or self._grammar is None or text in self._whole
                if text and text not in scores and whole:
                    scores[text] = _log_score(entry.score)
        # The search's best path and the lattice's N-best may disagree: then the lattice
        # scores another phrase above it ("six" in espeak-ng's voice: the search says six,
        # the lattice two and three). The search is right more often (see decoder_config),
        # the lattice often enough that neither may be ruled at once: tie them, so the
        # hearing's share says it is a toss-up and the referee asks.
        scores[best_text] = max(scores.values())
        return [
            Alternative(tuple(text.split()), score, words if text == best_text else [])
            for text, score in scores.items()
        ]


def _is_word(word: str) -> bool:
    # <s>, </s>, <sil>, [NOISE], (NULL): fillers, not words anyone said.
    return bool(word) and word[0] not in "<[("


def _log_score(linear: float) -> float:
    """The binding's ``exp(score)`` back to a log score scaled like the word posteriors."""
    return math.log(linear) * NBEST_SCALE if linear > 0 else -1e9  # underflow: never best
