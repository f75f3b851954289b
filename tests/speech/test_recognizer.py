"""Recognition and end-of-utterance tests on the real Korean model and espeak-ng speech."""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np
import pytest

from grammars import load
from host.listening.phrases import waits_for_no_rank
from host.speech.audio import pcm_chunks
from host.speech.endpointer import Endpointer
from host.speech.hearing import Hearing
from host.speech.model import UNK, SpeechModel
from host.speech.recognizer import GrammarRecognizer
from tests.speech.conftest import NUMBERS, silence
from tests.speech.korean import parse_sino

Say = Callable[[str], bytes]


def hear(endpointer: Endpointer, pcm: bytes, chunk_ms: int = 20) -> list[Hearing]:
    return list(endpointer.hearings(pcm_chunks(pcm, 16000, chunk_ms)))


def top_values(hearing: Hearing, n: int = 3) -> list[int | None]:
    return [parse_sino(text) for text, _ in hearing.alternatives[:n]]


@pytest.mark.parametrize(("spoken", "value"), [("오십삼", 53), ("이십오", 25), ("사십삼", 43)])
def test_grammar_recognition_of_numbers(endpointer: Endpointer, say: Say, spoken: str, value: int) -> None:
    (hearing,) = hear(endpointer, silence(0.5) + say(spoken) + silence(1.0))
    assert value in top_values(hearing)
    assert hearing.alternatives == tuple(sorted(hearing.alternatives, key=lambda a: -a[1]))
    assert sum(share for _, share in hearing.alternatives) == pytest.approx(1.0)
    assert len(hearing.scores) == len(hearing.alternatives)
    assert not hearing.unknown
    # word times are on the stream: speech starts after the 0.5 s of silence
    assert hearing.words and 0.3 <= hearing.words[0].start <= 0.7
    assert hearing.start == hearing.words[0].start and hearing.end == hearing.words[-1].end


def test_a_hearing_does_not_depend_on_what_was_decoded_before(ko_model: SpeechModel, say: Say) -> None:
    # Kaldi dithers every frame with noise seeded from libc's process-wide rand(): unless
    # each recogniser reseeds it, the same audio scores differently after other audio (in
    # a long test run, test_table_cli's "이십오" was now and then read as "이").
    pcm = silence(0.5) + say("이십오") + silence(1.0)

    def heard() -> Hearing:
        (hearing,) = hear(Endpointer(GrammarRecognizer(ko_model, 16000, NUMBERS)), pcm)
        return hearing

    first = heard()
    other = silence(0.5) + say("오십삼") + silence(1.0) + say("사십삼") + silence(1.0)
    assert len(hear(Endpointer(GrammarRecognizer(ko_model, 16000, NUMBERS)), other)) == 2
    again = heard()
    assert (again.alternatives, again.scores) == (first.alternatives, first.scores)


def test_word_confidences_when_mbr_agrees(endpointer: Endpointer, say: Say) -> None:
    (hearing,) = hear(endpointer, silence(0.5) + say("오십삼") + silence(1.0))
    assert hearing.text == "오십 삼"
    assert [w.word for w in hearing.words] == ["오십", "삼"]
    assert all(w.confidence is not None and 0 < w.confidence <= 1 for w in hearing.words)


def test_set_phrases_changes_grammar(ko_model: SpeechModel, say: Say) -> None:
    recognizer = GrammarRecognizer(ko_model, 16000, ["칠", "구"])
    endpointer = Endpointer(recognizer)
    pcm = silence(0.5) + say("오십삼") + silence(1.0)
    for hearing in hear(endpointer, pcm):
        assert set(" ".join(t for t, _ in hearing.alternatives).split()) <= {"칠", "구", UNK}
    endpointer.set_phrases(NUMBERS)
    (hearing,) = hear(endpointer, pcm)
    assert 53 in top_values(hearing)


def test_phrases_with_unknown_words_are_dropped(
    ko_model: SpeechModel, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        recognizer = GrammarRecognizer(ko_model, 16000, ["오십삼", "오십 삼", "[unk]", " 삼  "])
    assert recognizer.phrases == ("오십 삼", "삼")
    assert recognizer.dropped == ("오십삼",)
    assert "오십삼" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        recognizer.set_phrases(["오십삼", "사"])  # same missing word: not warned again
    assert caplog.text == ""


def test_two_utterances_are_two_hearings(endpointer: Endpointer, say: Say) -> None:
    pcm = silence(0.5) + say("오십삼") + silence(1.5) + say("이십오") + silence(1.0)
    first, second = hear(endpointer, pcm)
    assert 53 in top_values(first) and 25 in top_values(second)
    assert first.end < second.start
    assert endpointer.early_silence_s is not None
    for hearing in (first, second):
        # both are complete numbers: decided after early_silence_s, not silence_s, of quiet
        assert endpointer.early_silence_s <= hearing.latency <= endpointer.early_silence_s + 0.2
        assert hearing.speech_end <= hearing.emitted_at


def test_a_patient_phrase_waits_for_the_whole_silence(ko_model: SpeechModel, say: Say) -> None:
    # The listener's commands that end something are patient in a room that rings: "I'm
    # leaving" of "I'm thinking, give me a second" was ended 0.17 s into a pause and asked about.
    pcm = silence(0.5) + say("오십삼") + silence(1.5) + say("이십오") + silence(1.0)
    hurried = hear(Endpointer(GrammarRecognizer(ko_model, 16000, NUMBERS)), pcm)
    endpointer = Endpointer(GrammarRecognizer(ko_model, 16000, NUMBERS), patient=[hurried[0].text])
    assert [h.latency < endpointer.silence_s for h in hear(endpointer, pcm)] == [True, True]  # a dry table
    endpointer.room_rings(True)
    first, second = hear(endpointer, pcm)
    assert first.text == hurried[0].text and 53 in top_values(first)
    assert hurried[0].latency < endpointer.silence_s <= first.latency
    assert second.latency < endpointer.silence_s  # the others still end early


def test_short_pause_inside_a_number_keeps_one_utterance(endpointer: Endpointer, say: Say) -> None:
    pcm = silence(0.5) + say("오십") + silence(0.25) + say("삼") + silence(1.0)
    (hearing,) = hear(endpointer, pcm)
    assert 53 in top_values(hearing)
    assert hearing.text.startswith("오십")


def test_korean_round_number_ends_after_the_phrase_silence(ko_model: SpeechModel, say: Say) -> None:
    """ "오십" may begin "오십 삼", but in Korean a number is one word: the grammar's shorter
    phrase silence ends it, while a pause inside a number still keeps one utterance."""
    settle = load("ko").phrase_silence_s
    assert settle is not None
    endpointer = Endpointer(
        GrammarRecognizer(ko_model, 16000, NUMBERS), phrase_silence_s=settle, settles=waits_for_no_rank("ko")
    )
    assert settle < endpointer.silence_s
    (hearing,) = hear(endpointer, silence(0.5) + say("오십") + silence(1.5))
    assert hearing.text == "오십"
    assert settle <= hearing.latency < endpointer.silence_s
    pcm = silence(0.5) + say("오십") + silence(0.25) + say("삼") + silence(1.0)
    (joined,) = hear(endpointer, pcm)
    assert 53 in top_values(joined)
    # without it, a phrase a longer one extends waits for the full silence
    plain = Endpointer(GrammarRecognizer(ko_model, 16000, NUMBERS))
    never = Endpointer(
        GrammarRecognizer(ko_model, 16000, NUMBERS), phrase_silence_s=settle, settles=lambda *_: False
    )
    for waits in (plain, never):
        (late,) = hear(waits, silence(0.5) + say("오십") + silence(1.5))
        assert late.text == "오십" and late.latency >= endpointer.silence_s


def test_a_phrase_settles_early_unless_a_rank_may_follow() -> None:
    settles = waits_for_no_rank("ko")
    cards = ("스페이드", "스페이드 이", "스페이드 삼", "낸다 공중제비", "낸다 공중제비 거꾸로", "점수")
    phrases = (*NUMBERS, *cards)
    # by its last number
    assert settles("오십", phrases) and settles("이십", phrases) and settles("사 오십", phrases)
    # a card's name a longer phrase turns over, a command: nothing more to wait for
    assert settles("낸다 공중제비", phrases) and settles("점수", phrases)
    # a suit said first waits for its rank, also after a misheard number
    assert not settles("스페이드", phrases) and not settles("오십 스페이드", phrases)
    assert not settles("", phrases)


def test_one_big_chunk_gives_every_hearing(endpointer: Endpointer, say: Say) -> None:
    pcm = silence(0.5) + say("오십삼") + silence(1.5) + say("이십오") + silence(1.0)
    first = endpointer.feed(pcm)
    second = endpointer.feed(b"") or endpointer.flush()
    assert first is not None and second is not None
    assert 53 in top_values(first) and 25 in top_values(second)


def test_silence_and_noise_give_nothing(ko_model: SpeechModel) -> None:
    rng = np.random.default_rng(1)
    noise = rng.normal(0, 2000, 16000 * 3).astype("<i2").tobytes()
    for pcm in (silence(3.0), noise + silence(0.5)):
        endpointer = Endpointer(GrammarRecognizer(ko_model, 16000, NUMBERS))
        hearings = hear(endpointer, pcm)
        assert all(h.unknown for h in hearings), hearings


def test_speech_in_steady_noise(ko_model: SpeechModel, say: Say) -> None:
    rng = np.random.default_rng(2)
    speech = np.frombuffer(silence(1.0) + say("오십삼") + silence(1.0), "<i2")
    noisy = (speech + rng.normal(0, 300, speech.size)).astype("<i2").tobytes()
    (hearing,) = hear(Endpointer(GrammarRecognizer(ko_model, 16000, NUMBERS)), noisy)
    assert 53 in top_values(hearing)


def test_muted_audio_is_ignored(endpointer: Endpointer, say: Say) -> None:
    with endpointer.muting():
        assert endpointer.muted
        assert hear(endpointer, silence(0.3) + say("오십삼") + silence(1.0)) == []
    assert not endpointer.muted
    # muting half way through an utterance discards what was heard of it
    assert endpointer.feed(silence(0.5) + say("오십")) is None
    assert endpointer.in_utterance
    endpointer.muted = True
    endpointer.feed(say("삼"))
    endpointer.muted = False
    assert not endpointer.in_utterance
    assert hear(endpointer, silence(1.5)) == []
    # and listening resumes normally afterwards, with stream time still counting
    (hearing,) = hear(endpointer, silence(0.5) + say("이십오") + silence(1.0))
    assert 25 in top_values(hearing)
    assert hearing.start > 5.0


def test_grammar_change_waits_for_the_utterance_in_progress(endpointer: Endpointer, say: Say) -> None:
    assert endpointer.feed(silence(0.5) + say("오십")) is None
    endpointer.set_phrases(["칠"])  # e.g. game state changed by another player
    (hearing,) = hear(endpointer, say("삼") + silence(1.0))
    assert "오십" in hearing.text  # decoded with the old grammar
    assert endpointer.recognizer.phrases == ("칠",)


def test_max_utterance_length(ko_model: SpeechModel, say: Say) -> None:
    # early_silence_s=None: each complete number would otherwise end at its 0.2 s pause
    recognizer = GrammarRecognizer(ko_model, 16000, NUMBERS)
    endpointer = Endpointer(recognizer, max_utterance_s=1.5, early_silence_s=None)
    pcm = silence(0.3) + (say("오십삼") + silence(0.2)) * 4 + silence(1.0)
    hearings = hear(endpointer, pcm)
    assert hearings[0].forced
    assert hearings[0].emitted_at - hearings[0].start == pytest.approx(1.5, abs=0.2)
