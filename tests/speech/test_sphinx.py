"""The pocketsphinx engine on real English speech from Piper (joe) and espeak-ng."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from grammars import Grammar, load
from host.confirm import MOVE_SHARE
from host.listening.phrases import phrase_settles
from host.speech import sphinx
from host.speech.audio import SAMPLE_RATE, pcm_chunks
from host.speech.endpointer import Endpointer
from host.speech.engines import recognizer_for
from host.speech.hearing import Hearing
from host.speech.model import SpeechModel, load_model
from host.speech.sphinx import SphinxRecognizer, jsgf
from tests import voices
from tests.speech.conftest import silence, trim
from tests.speech.english import NUMBERS_EN, parse_english

COMMANDS = ["yes", "no", "undo", "pass", "higher", "lower", "repeat that"]
Say = Callable[[str], bytes]


@pytest.fixture(scope="session")
def en_model() -> SpeechModel:
    return load_model(lang="en", engine="pocketsphinx", download=False)


@pytest.fixture(scope="session")
def piper() -> Say:
    # Without noise Piper says a text the same way every run: tests that cannot flake.
    return lambda text: trim(voices.piper(text))


@pytest.fixture(scope="session")
def espeak() -> Say:
    if shutil.which("espeak-ng") is None:
        pytest.skip("needs espeak-ng")
    return lambda text: trim(voices.espeak(text, "en-us"))


def hear(endpointer: Endpointer, pcm: bytes) -> list[Hearing]:
    return list(endpointer.hearings(pcm_chunks(pcm, SAMPLE_RATE, 20)))


def test_jsgf_is_one_rule_of_whole_phrases(en_model: SpeechModel) -> None:
    grammar = jsgf(["fifty three", "don't", "a|b", "yes"])
    assert grammar.splitlines()[-1] == 'public <phrases> = fifty three | don\'t | "a|b" | yes;'
    recognizer_for(en_model, SAMPLE_RATE, ["don't", "yes"])  # pocketsphinx parses it


def test_grammar_recognizer_dispatches_on_the_engine(en_model: SpeechModel) -> None:
    recognizer = recognizer_for(en_model, SAMPLE_RATE, ["fifty three", "zzyzx"])
    assert isinstance(recognizer, SphinxRecognizer)
    assert recognizer.phrases == ("fifty three",) and recognizer.dropped == ("zzyzx",)
    with pytest.raises(ValueError, match="vocabulary"):
        recognizer.set_phrases(["zzyzx"])


@pytest.mark.parametrize("number", [53, 90, 17, 25, 100, 8])
def test_piper_numbers(en_model: SpeechModel, piper: Say, number: int) -> None:
    endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, NUMBERS_EN))
    (hearing,) = hear(endpointer, silence(0.5) + piper(NUMBERS_EN[number - 1]) + silence(1.0))
    assert parse_english(hearing.text) == number
    assert hearing.alternatives == tuple(sorted(hearing.alternatives, key=lambda a: -a[1]))
    assert sum(share for _, share in hearing.alternatives) == pytest.approx(1.0)
    assert len(hearing.scores) == len(hearing.alternatives)
    assert not hearing.unknown
    assert [w.word for w in hearing.words] == hearing.text.split()
    assert all(w.confidence is not None and 0 <= w.confidence <= 1 for w in hearing.words)
    # times are on the stream: speech starts after the 0.5 s of silence
    assert 0.3 <= hearing.start <= 0.8 and hearing.start < hearing.end <= hearing.emitted_at


@pytest.mark.parametrize("number", [53, 25, 42, 64])
def test_espeak_numbers(en_model: SpeechModel, espeak: Say, number: int) -> None:
    endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, NUMBERS_EN))
    (hearing,) = hear(endpointer, silence(0.5) + espeak(NUMBERS_EN[number - 1]) + silence(1.0))
    assert number in [parse_english(text) for text, _ in hearing.alternatives[:3]]


def test_commands_and_grammar_switch(en_model: SpeechModel, piper: Say) -> None:
    endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, COMMANDS))
    stream = b"".join(silence(1.0) + piper(c) for c in ("undo", "repeat that", "higher")) + silence(1.0)
    assert [h.text for h in hear(endpointer, stream)] == ["undo", "repeat that", "higher"]
    started = time.process_time()  # CPU time: other jobs on the machine do not count
    endpointer.set_phrases(NUMBERS_EN)
    assert time.process_time() - started < 0.05  # switching grammar is cheap
    (hearing,) = hear(endpointer, silence(0.5) + piper("seventy one") + silence(1.0))
    assert hearing.text == "seventy one"
    endpointer.set_phrases(COMMANDS)  # a grammar seen before is reused
    (hearing,) = hear(endpointer, silence(0.5) + piper("lower") + silence(1.0))
    assert hearing.text == "lower"


def test_words_the_dictionary_lacks_are_heard_through_the_added_pronunciations(
    en_model: SpeechModel, piper: Say
) -> None:
    # "whos" ("who's turn" as the phrase lists spell it) and "clovers" are not in the
    # bundled cmudict-en-us.dict: grammars/en/pronunciations.yaml gives them.
    assert {"whos", "clovers"} <= set(en_model.pronunciations)
    phrases = ["whos turn", "four clovers", "four clubs", "repeat", *NUMBERS_EN[:20]]
    endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, phrases))
    for said, heard in (("who's turn", "whos turn"), ("four clovers", "four clovers")):
        (hearing,) = hear(endpointer, silence(0.5) + piper(said) + silence(1.0))
        assert hearing.text == heard


def test_eight_khz_front_end_decodes(en_model: SpeechModel, piper: Say) -> None:
    # The 8 kHz front end works (nfft 256, edited filter bank) but decodes worse than
    # upsampling to 16 kHz (see tests/bench/bench_english.py); it must still run.
    from host.speech.audio import resample

    endpointer = Endpointer(recognizer_for(en_model, 8000, ["yes", "no", "seventeen"]))
    pcm = resample(silence(0.5) + piper("seventeen") + silence(1.0), SAMPLE_RATE, 8000)
    (hearing,) = endpointer.hearings(pcm_chunks(pcm, 8000, 20))
    assert hearing.text in ("yes", "no", "seventeen") and 0.3 <= hearing.start <= 0.8


def test_a_lattice_that_disagrees_with_the_search_makes_a_toss_up(en_model: SpeechModel, espeak: Say) -> None:
    # espeak-ng's numbers one after another, as at a table: where the grammar search and the
    # lattice's N-best disagree ("ninety seven": the search ninety seven, the lattice
    # "ninety"), the hearing was the lattice's number with a share up to 0.99, a wrong
    # number ruled at once (16 of 100). Tied, it is a question. Left: both agree on the
    # wrong number (espeak's "eighty" is pocketsphinx's "ninety").
    endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, NUMBERS_EN))
    wrong, right = [], 0
    for text in NUMBERS_EN:
        for hearing in hear(endpointer, silence(0.5) + espeak(text) + silence(1.0)):
            if hearing.confidence >= MOVE_SHARE:
                right += hearing.text == text
                wrong += [(text, hearing.text)] if hearing.text != text else []
    assert not {("twenty eight", "twenty"), ("ninety two", "one"), ("ninety seven", "ninety")} & set(wrong)
    assert len(wrong) <= 9 and right >= 65, (right, wrong)


def test_an_english_round_number_ends_after_the_phrase_silence(en_model: SpeechModel, piper: Say) -> None:
    # "ninety" may begin "ninety one": the grammar's phrase silence (not the full 0.7 s) ends
    # it, while a pause inside "ninety ... one" still keeps one utterance.
    settle = load("en").phrase_silence_s
    assert settle is not None

    def endpointer() -> Endpointer:
        recognizer = recognizer_for(en_model, SAMPLE_RATE, NUMBERS_EN)
        return Endpointer(recognizer, phrase_silence_s=settle, settles=phrase_settles(load("en")))

    (hearing,) = hear(endpointer(), silence(0.5) + piper("ninety") + silence(1.5))
    assert hearing.text == "ninety"
    assert settle <= hearing.latency < endpointer().silence_s
    pause = silence(0.5) + piper("ninety") + silence(0.35) + piper("one") + silence(1.5)
    (joined,) = hear(endpointer(), pause)
    assert joined.text == "ninety one"


def test_an_english_card_play_a_longer_phrase_extends_ends_after_the_phrase_silence(
    en_model: SpeechModel, piper: Say
) -> None:
    # English settles any phrase a longer one extends, not only numbers: "plays gift" then
    # silence is the play (it waited the full 0.7 s and set the p99 of rulings); Korean still
    # waits for a card's rank after its suit (tests/speech/test_recognizer.py).
    english, korean = load("en"), load("ko")
    assert phrase_settles(english) is None and phrase_settles(korean) is not None
    assert english.phrase_silence_s is not None
    phrases = ["plays gift", "plays gift turned", "draw", "draw a card"]

    def endpointer(grammar: Grammar) -> Endpointer:
        recognizer = recognizer_for(en_model, SAMPLE_RATE, phrases)
        settle = english.phrase_silence_s
        return Endpointer(recognizer, phrase_silence_s=settle, settles=phrase_settles(grammar))

    said = silence(0.5) + piper("plays gift") + silence(1.5)
    (hearing,) = hear(endpointer(english), said)
    assert hearing.text == "plays gift"
    assert english.phrase_silence_s <= hearing.latency < endpointer(english).silence_s
    # without the phrase silence: the full silence
    (waited,) = hear(Endpointer(recognizer_for(en_model, SAMPLE_RATE, phrases)), said)
    assert waited.text == "plays gift" and waited.latency >= endpointer(english).silence_s


def test_a_partial_that_flickers_in_silence_does_not_hold_the_utterance_open(
    en_model: SpeechModel, piper: Say
) -> None:
    # After "eight" the partial may flicker between readings ("eight", "take") while the
    # VAD hears silence: that is not the speaker going on, so the early end still comes
    # (it waited the full 0.7 s, or, flickering for good, for ever).
    class Flickering(SphinxRecognizer):
        calls = 0

        def partial(self) -> str:
            self.calls += 1
            return "take" if self.calls % 2 else super().partial()

    recognizer = Flickering(en_model, SAMPLE_RATE, NUMBERS_EN)
    endpointer = Endpointer(recognizer)
    (hearing,) = hear(endpointer, silence(0.5) + piper("eight") + silence(1.5))
    assert hearing.text == "eight"
    assert hearing.latency < endpointer.silence_s


@pytest.mark.parametrize(("talk_partial", "early"), [("take", True), ("to take", False)])
def test_a_talk_partial_no_longer_than_the_move_does_not_hold_the_utterance_open(
    en_model: SpeechModel, piper: Say, talk_partial: str, early: bool
) -> None:
    # Both partials may stay "take" through the silence after "eight": the gate's a talk
    # word, the phrase decoder's a path inside "take back" (the final decoding of both is
    # "eight"). The phrase decoder's final reading, asked for in the pause, ends the
    # utterance early. A talk reading longer than the phrase is a sentence going on: it waits.
    class StuckPartials(SphinxRecognizer):
        def partial(self) -> str:
            return talk_partial if super().partial() else ""

        def phrase_partial(self) -> str:
            return "take" if super().phrase_partial() else ""

    grammar = load("en")
    recognizer = StuckPartials(
        en_model, SAMPLE_RATE, [*NUMBERS_EN, "take back"], talk=[*grammar.decoys, *grammar.talk]
    )
    endpointer = Endpointer(recognizer)
    (hearing,) = hear(endpointer, silence(0.5) + piper("eight") + silence(1.5))
    assert hearing.text == "eight"
    assert (hearing.latency < endpointer.silence_s) is early, hearing.latency


def test_the_gate_keeps_espeak_moves_and_still_drops_talk(
    en_model: SpeechModel, espeak: Say, piper: Say
) -> None:
    # espeak-ng's numbers fit a run of short everyday words ("forty nine" as "far the our i
    # in", "ninety four" as "went the call were oh"): the gate's word insertion penalty
    # makes the run pay for each of its extra words (every third number, in a row as at a
    # table: 11 of 34 were dropped as talk, 6 now). Sentences of talk still decode as words.
    grammar = load("en")
    recognizer = recognizer_for(en_model, SAMPLE_RATE, NUMBERS_EN, talk=[*grammar.decoys, *grammar.talk])
    endpointer = Endpointer(recognizer)
    talk = []
    for number in NUMBERS_EN[::3]:
        hearings = hear(endpointer, silence(0.5) + espeak(number) + silence(1.0))
        talk += [number for h in hearings if h.talk]
    assert not {"nineteen", "forty nine", "seventy nine", "ninety four"} & set(talk)
    assert len(talk) <= 7, talk
    for sentence in (
        "could you pass me the salt",
        "I think we should order some food",
        "where did you put it",
    ):
        for voice in (espeak, piper):
            hearings = hear(endpointer, silence(0.5) + voice(sentence) + silence(1.0))
            assert all(h.talk for h in hearings), (sentence, hearings)


def test_a_second_pronunciation_lets_a_voice_the_dictionary_does_not_expect_be_heard(
    en_model: SpeechModel, espeak: Say, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The model hears espeak-ng's "spades" as S .. EH IY D and its "diamonds" with three
    # syllables: without grammars/en/variants.yaml the gate lost most of these cards as
    # talk ("five of spades" as "side once any on"). Four ranks: 8 of 8 with them, 1
    # without (eight ranks, twice the decoding: 12 of 16 and 3).
    grammar = load("en")
    ranks = ("one", "two", "three", "five")
    cards = [f"{rank} of {suit}" for rank in ranks for suit in ("spades", "diamonds")]
    phrases = [*cards, "whose turn", "score", "undo", "help"]
    talk = [w for w in (*grammar.decoys, *grammar.talk) if w not in grammar.card_lookalikes]

    def heard() -> list[str]:
        endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, phrases, talk=talk))
        out = []
        for card in cards:
            hearings = hear(endpointer, silence(0.5) + espeak(card) + silence(1.0))
            assert all(h.talk or h.text in (card, "") for h in hearings), (card, hearings)
            out += [card for h in hearings if h.text == card and not h.talk and not h.near_talk]
        return out

    with_variants = heard()
    monkeypatch.setattr(en_model, "variants", {})
    without = heard()
    assert len(with_variants) >= len(without) + 4, (without, with_variants)
    assert set(without) <= set(with_variants), (without, with_variants)


def test_a_challenge_said_with_a_short_second_vowel_passes_the_gate(
    en_model: SpeechModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # espeak-ng says "challenge" as "chal-inj" (IH where the dictionary has AH): the gate
    # heard it as the talk words "tell each" and dropped the Blófa challenge. With the
    # second pronunciation (grammars/en/variants.yaml) it passes: 4 of 4, 1 without.
    if shutil.which("espeak-ng") is None:
        pytest.skip("needs espeak-ng")
    grammar = load("en")
    talk = [*grammar.decoys, *grammar.talk]
    phrases = ["challenge", "pass", "pass blue", "pass yellow", "keep blue", "keep yellow",
               "status", "score", "standings", "undo", "help", "repeat"]  # fmt: skip
    said = [voices.espeak("challenge", voice) for voice in ("en-us", "en-us+m3")] * 2

    def kept() -> int:
        endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, phrases, talk=talk))
        hearings = [h for pcm in said for h in hear(endpointer, silence(0.5) + trim(pcm) + silence(1.0))]
        return sum(1 for h in hearings if h.text == "challenge" and not h.talk)

    assert "challenge" in en_model.variants
    with_it = kept()
    others = {word: phones for word, phones in en_model.variants.items() if word != "challenge"}
    monkeypatch.setattr(en_model, "variants", others)
    without = kept()
    assert with_it == 4 and without <= 2, (with_it, without)


def _lenient_gate_words(en_model: SpeechModel, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], ...]:
    """The lenient gate's tests: the cards said, the phrases listened for, the talk words.
    Without the second pronunciations (grammars/en/variants.yaml): this is about a voice
    the dictionary fits poorly, and they make espeak-ng's spades fit."""
    monkeypatch.setattr(en_model, "variants", {})
    grammar = load("en")
    ranks = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    cards = [f"{rank} of {suit}" for rank in ranks for suit in ("hearts", "spades")]
    phrases = [*cards, "whose turn", "score", "undo", "help"]
    talk = [w for w in (*grammar.decoys, *grammar.talk) if w not in grammar.card_lookalikes]
    return cards, phrases, talk


def test_the_lenient_gate_keeps_card_names_said_as_a_few_talk_words(
    en_model: SpeechModel, espeak: Say, monkeypatch: pytest.MonkeyPatch
) -> None:
    # espeak-ng's "one of hearts" decodes as the talk words "was on party": as many words
    # as the card, and talk only by the strict gate's prior. The lenient gate hears the
    # card, so it is the card (sentences stay talk: the next test).
    # Twenty cards listened for, the ten of ranks one to five said: strict 4 lost, lenient
    # 2 (all twenty said, twice the decoding: 11 and 9).
    cards, phrases, talk = _lenient_gate_words(en_model, monkeypatch)

    def lost(lenient: float) -> list[str]:
        monkeypatch.setattr(sphinx, "LENIENT_TALK_WEIGHT", lenient)
        endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, phrases, talk=talk))
        out = []
        for card in cards[:10]:
            hearings = hear(endpointer, silence(0.5) + espeak(card) + silence(1.0))
            assert all(h.talk or h.text in (card, "") for h in hearings), (card, hearings)
            out += [card for h in hearings if h.talk]
        return out

    chosen = sphinx.LENIENT_TALK_WEIGHT
    strict, lenient = lost(sphinx.TALK_WEIGHT), lost(chosen)  # off (the gate's own prior), on
    assert len(lenient) <= len(strict) - 2 and set(lenient) < set(strict), (strict, lenient)


def test_the_lenient_gate_still_hears_sentences_as_talk(
    en_model: SpeechModel, espeak: Say, piper: Say, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Sentences, more words than any card, stay talk with the lenient gate listening
    # (LENIENT_TALK_WEIGHT as chosen).
    _, phrases, talk = _lenient_gate_words(en_model, monkeypatch)
    endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, phrases, talk=talk))
    for sentence in ("could you pass me the salt", "my brother turns thirty next month", "hold on a second"):
        for voice in (espeak, piper):
            hearings = hear(endpointer, silence(0.5) + voice(sentence) + silence(1.0))
            assert all(h.talk for h in hearings), (sentence, hearings)  # nothing heard: fine too


def test_decoders_learn_the_words_each_grammar_brings(en_model: SpeechModel, piper: Say) -> None:
    # Decoders start from an empty dictionary (reading the model's 134,000 words took most of
    # the time to make one) and are taught a grammar's words when it comes: a word of a later
    # grammar is heard, with the dictionary's second pronunciations; with no grammar at all
    # the language model hears everyday words from the whole dictionary.
    endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, ["fifty three", "seven"]))
    assert [h.text for h in hear(endpointer, silence(0.5) + piper("seven") + silence(1.0))] == ["seven"]
    endpointer.recognizer.set_phrases(["forty two", "either way"], talk=["the", "way"])
    heard = hear(endpointer, silence(0.5) + piper("either way") + silence(1.0))
    assert [h.text for h in heard] == ["either way"]
    assert heard[0].words[0].word == "either"  # "either(2)" read as the word
    free = Endpointer(recognizer_for(en_model, SAMPLE_RATE, None))
    heard = hear(free, silence(0.5) + piper("good morning everyone") + silence(1.0))
    assert "morning" in " ".join(h.text for h in heard)


def test_in_a_room_that_rings_or_is_noisy_the_search_keeps_fewer_hmms(
    en_model: SpeechModel, piper: Say
) -> None:
    # Babble in a room that echoes spread the gate's search: once the room rings or is noisy a
    # table's decoders are remade with pocketsphinx's maxhmmpf at sphinx.RINGING_MAX_HMMS.
    recognizer = recognizer_for(en_model, SAMPLE_RATE, NUMBERS_EN, talk=load("en").talk)
    assert isinstance(recognizer, SphinxRecognizer)
    own, cap = recognizer._config["maxhmmpf"], sphinx.RINGING_MAX_HMMS
    assert cap is not None and own > cap
    endpointer = Endpointer(recognizer)
    recognizer.room_rings(True)
    recognizer.reset()
    assert {recognizer._config["maxhmmpf"], *(g.config["maxhmmpf"] for g in recognizer._gates)} == {cap}
    said = silence(0.5) + piper("forty two") + silence(1.0)
    assert [h.text for h in hear(endpointer, said)] == ["forty two"]
    recognizer.room_rings(False, noisy=True)  # others talking around a dry table too
    recognizer.reset()
    assert recognizer._config["maxhmmpf"] == cap
    recognizer.room_rings(False)
    recognizer.reset()
    assert recognizer._config["maxhmmpf"] == own


def test_the_files_the_decoders_read_by_path_are_removed_when_the_process_exits(tmp_path: Path) -> None:
    # A process of its own, so its exit is the one that cleans up (a server left one
    # directory in the temp dir each run before).
    script = (
        "from host.speech import sphinx_gate\n"
        "print(sphinx_gate.empty_dictionary())\n"
        "print(sphinx_gate.scratch_file('feat.params', '-remove_noise no'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    made = [Path(line) for line in done.stdout.split()]
    assert len(made) == 2 and all(path.is_relative_to(tmp_path) for path in made)
    assert list(tmp_path.iterdir()) == []
