"""Moves said in white noise 20 dB below the speech are heard, not dropped as talk: the
noise suppressor and gate in front of the recogniser (host/speech/denoise.py), with real
Piper speech and seeded noise."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from host.confirm import CONFUSED_RIVAL_SHARE, LOUD_SNR_DB, MOVE_SHARE, NOISY_RIVAL_SHARE, RIVAL_SHARE
from host.listening.doubts import BEFORE_QUESTION_S, REPLY_TO_TALK_S
from host.listening.listener import Listener
from host.referee import Referee
from host.session import SessionConfig
from host.speech.audio import SAMPLE_RATE, as_int16, pcm_chunks, rms
from host.speech.denoise import Denoiser
from host.speech.hearing import Hearing
from host.speech.model import SpeechModel, load_model
from tests.speech.conftest import silence
from tests.table.conftest import Say, hearing, white_noise
from tests.table.test_english_table import espeak, piper


def in_white_noise(speech: bytes, snr_db: float, seed: int, lead: float = 0.6, tail: float = 1.2) -> bytes:
    """``speech`` between stretches of silence, all under white noise ``snr_db`` below the
    speech's power (as tests/bench/bench_table_talk.py mixes it)."""
    x = as_int16(silence(lead) + speech + silence(tail)).astype(np.float64)
    power = float(np.mean(as_int16(speech).astype(np.float64) ** 2))
    noise = np.random.default_rng(seed).normal(0.0, np.sqrt(power / 10 ** (snr_db / 10)), x.size)
    return np.clip(x + noise, -32768, 32767).astype("<i2").tobytes()


@pytest.fixture(scope="module")
def en_model() -> SpeechModel:
    return load_model(lang="en", engine="pocketsphinx", download=False)


def test_a_move_in_white_noise_is_heard_not_dropped_as_talk(referee: Referee, en_model: SpeechModel) -> None:
    session = referee.create(SessionConfig(lang="en"), ["Ann", "Bob"])
    referee.handle(session, "fifty three", "Ann")
    audio = in_white_noise(piper("nineteen"), 20.0, seed=1)
    # As the audio comes, the noise around the word fits a run of talk words ("find if",
    # "full he if") better than any number: the move is dropped as talk.
    bare = Listener(referee, session, en_model, report_missing=False, denoise=False)
    (lost,) = bare.hear(pcm_chunks(audio))
    assert lost.reply is None and lost.ignored == "talk"
    # Through the suppressor and gate (on by default at a table) it is the move: ruled or
    # read back, never dropped or ruled as another number.
    listener = Listener(referee, session, en_model, report_missing=False)
    assert listener.denoiser is not None
    (heard,) = listener.hear(pcm_chunks(audio))
    assert heard.hearing.text == "nineteen"
    assert heard.reply is not None
    assert heard.reply.accepted or heard.reply.lines == ["Bob, 19?"]


def test_the_denoiser_turns_noise_down_and_keeps_speech() -> None:
    speech = piper("forty two")
    audio = in_white_noise(speech, 20.0, seed=2, lead=2.0, tail=1.0)
    whole = Denoiser()(audio)
    # Any chunking gives the same audio (state carries across chunks; a partial frame waits).
    denoiser = Denoiser()
    chunked = b"".join(denoiser(audio[i : i + 318]) for i in range(0, len(audio), 318))
    assert chunked == whole[: len(chunked)] and len(whole) - len(chunked) < 320
    lead = 2 * round(2.0 * SAMPLE_RATE)
    noise_before, noise_after = rms(audio[lead // 2 : lead]), rms(whole[lead // 2 : lead])
    assert noise_after < noise_before / 100  # more than 40 dB down between words
    said = slice(lead, lead + len(speech))
    assert rms(whole[said]) > rms(audio[said]) / 2  # the words keep their level (within 6 dB)
    assert denoiser.floor < noise_before / 4  # the suppressor alone: more than 12 dB down
    assert denoiser.engaged


def test_quiet_audio_passes_unchanged() -> None:
    clean = silence(0.5) + piper("forty two") + silence(0.5)
    denoiser = Denoiser()
    assert denoiser(clean) == clean[: len(clean) - len(clean) % 320]
    assert not denoiser.engaged


def test_the_denoiser_takes_16_khz_only() -> None:
    with pytest.raises(ValueError, match="16000 Hz"):
        Denoiser(8000)


def test_how_far_speech_stands_above_the_noise_is_measured(
    referee: Referee, ko_model: SpeechModel, say: Say
) -> None:
    # Vosk hears the audio as it comes (no denoiser): what it heard is what is measured.
    session = referee.create(SessionConfig(lang="ko"), ["Ann", "Bob"])
    speech = say("사십 육")

    def snr(audio: bytes) -> float:
        listener = Listener(referee, session, ko_model, report_missing=False)
        (heard,) = listener.hear(pcm_chunks(audio))
        return heard.hearing.snr_db

    clean = silence(0.6) + speech + silence(1.2)
    assert snr(clean) > 40
    assert 20 < snr(in_white_noise(speech, 20.0, seed=1)) < 32
    assert snr(in_white_noise(speech, 10.0, seed=1)) < LOUD_SNR_DB


@pytest.mark.parametrize("snr_db", [12.0, 30.0])
def test_in_a_loud_room_a_move_is_read_back_and_a_reply_to_talk_dropped(
    referee: Referee, ko_model: SpeechModel, snr_db: float
) -> None:
    # espeak-ng in white noise 10 dB below: 0 of 75 Korean moves heard right, and the
    # "맞아요" said after talk heard as 46 and ruled (tests/bench/bench_table_talk.py).
    session = referee.create(SessionConfig(lang="ko", undo_grace=30.0), ["Ann", "Bob", "Cy"])
    listener = Listener(referee, session, ko_model, report_missing=False)
    listener.handle(hearing(("오십 삼", 1.0)))
    loud = snr_db < LOUD_SNR_DB
    move = replace(hearing(("오십 오", 1.0)), start=10.0, end=10.5, snr_db=snr_db)
    heard = listener.handle(move)
    assert heard.reply is not None and bool(heard.reply.confirm) is loud
    listener.handle(hearing(("아니요", 1.0)) if loud else hearing(("오십 칠", 1.0)))  # nothing pending
    talk = replace(hearing(("이 저", 1.0)), start=20.0, end=21.0, talk="이 저")
    assert listener.handle(talk).ignored == "talk"
    reply = replace(hearing(("사십 육", 1.0)), start=21.8, end=22.3, snr_db=snr_db)
    after = listener.handle(reply)
    assert (after.ignored == "a reply to talk") is loud
    late = replace(reply, start=25.0, end=25.5)  # more than REPLY_TO_TALK_S after the last ignored
    assert listener.handle(late).ignored is None


KEPT = replace(hearing(("오십 오", 1.0)), start=10.0, end=10.5, near_talk="오 오")


def asked_on_a_kept_phrase(referee: Referee, ko_model: SpeechModel) -> Listener:
    """A Korean table after 53, where a phrase only the lenient gate kept (55) was read back."""
    session = referee.create(SessionConfig(lang="ko", undo_grace=30.0), ["Ann", "Bob", "Cy"])
    listener = Listener(referee, session, ko_model, report_missing=False)
    listener.handle(hearing(("오십 삼", 1.0)))
    heard = listener.handle(KEPT)
    assert heard.reply is not None and heard.reply.confirm, heard.reply
    return listener


@pytest.mark.parametrize("after", [0.2, 0.7])
def test_an_answer_begun_before_the_question_could_be_asked_is_no_answer(
    referee: Referee, ko_model: SpeechModel, after: float
) -> None:
    # A listener fed without the runner (which drops what the microphone hears while the
    # host speaks) heard piper-up2's "oh my god, stop it" as "nine", read it back, and took
    # "stop it", begun 0.2 s after the ruling, for "yeah": 9 ruled on talk. An unseen
    # espeak-ng voice's "hi everyone" was read back as "Bob, 21?", and the "yes" to the
    # greeting, begun 0.7 s after, put Bob out: no question is said and heard that fast.
    session = referee.create(SessionConfig(lang="ko", undo_grace=30.0), ["Ann", "Bob", "Cy"])
    listener = Listener(referee, session, ko_model, report_missing=False)
    listener.handle(hearing(("오십 삼", 1.0)))
    move = replace(KEPT, speech_end=10.5, emitted_at=10.7)
    assert listener.handle(move).reply.confirm  # type: ignore[union-attr]

    def yes(start: float) -> Hearing:
        return replace(hearing(("네", 1.0)), start=start, end=start + 0.3, speech_end=start + 0.3)

    early = listener.handle(yes(10.7 + after))
    assert early.ignored == "said before the question" and listener.asked is not None
    answered = listener.handle(yes(10.7 + BEFORE_QUESTION_S + 2.5))  # not a reply to the early one
    assert answered.ignored is None and answered.reply is not None and answered.reply.accepted
    assert listener.asked is None


def test_a_phrase_only_the_lenient_gate_kept_is_never_ruled_at_once(
    referee: Referee, ko_model: SpeechModel
) -> None:
    # Piper's "yes" after talk in fan noise was kept by the lenient gate as Blófa's "pass",
    # a move that costs nothing, and ruled: such a hearing is read back, and dropped right
    # after talk.
    listener = asked_on_a_kept_phrase(referee, ko_model)
    listener.handle(hearing(("아니요", 1.0)))
    listener.handle(replace(hearing(("이 저", 1.0)), start=20.0, end=21.0, talk="이 저"))
    after = listener.handle(replace(KEPT, start=21.5, end=22.0))
    assert after.ignored == "a reply to talk"


NOISY_ROOM = white_noise(2.0, level=400.0)  # a noise floor of -38 dBFS; b"": a quiet room
FIFTY = {"en": ("fifty three", "fifty five"), "ko": ("오십 삼", "오십 오")}
TALK = {"en": ("forty", "so what is it"), "ko": ("이 저", "이 저")}


def table_after_53(referee: Referee, model: SpeechModel, lang: str, room: bytes) -> Listener:
    """A table after 53, its microphone having heard ``room`` between moves: English
    through the denoiser, which engages in noise, Korean (Vosk) as it comes."""
    session = referee.create(SessionConfig(lang=lang, undo_grace=30.0), ["Ann", "Bob", "Cy"])
    listener = Listener(referee, session, model, report_missing=False)
    listener.handle(hearing((FIFTY[lang][0], 1.0)))
    listener.feed(room)
    if lang == "en":
        assert listener.denoiser is not None and listener.denoiser.engaged is bool(room)
    else:
        assert listener.denoiser is None and (listener.endpointer.floor >= 100.0) is bool(room)
    return listener


def test_in_a_noisy_room_any_rival_move_makes_a_move_read_back(
    referee: Referee, en_model: SpeechModel
) -> None:
    # espeak-ng's "ten" in fan noise was ruled as "two" with "ten" at 0.05 of its weight: a
    # rival that weak is the word said often enough once the room is noisy, never in quiet.
    def play(room: bytes) -> bool:
        listener = table_after_53(referee, en_model, "en", room)
        heard = listener.handle(hearing(("fifty five", 0.95), ("fifty seven", 0.05)))
        assert heard.reading.rival >= NOISY_RIVAL_SHARE > 0 and heard.reply is not None
        return bool(heard.reply.confirm)

    assert play(NOISY_ROOM)  # read back: "Bob, 55?"
    assert not play(b"")  # ruled at once


@pytest.mark.parametrize(
    ("second", "asked"),
    [
        ("nineteen", True),  # the recogniser often hears one for the other (confusions.yaml)
        ("ninety two", False),  # a good move too, but no likely mix-up: 0.14 is no rival
    ],
)
def test_in_a_quiet_room_a_weak_rival_the_recogniser_often_mixes_up_is_read_back(
    referee: Referee, en_model: SpeechModel, second: str, asked: bool
) -> None:
    # At a dry table espeak-ng's f4 voice said "nineteen" and it was heard as "ninety"
    # (0.86) with "nineteen" at 0.14 of its weight: below RIVAL_SHARE, so Bob was ruled to
    # have said 90. After 50 both are good moves.
    session = referee.create(SessionConfig(lang="en", undo_grace=30.0), ["Ann", "Bob", "Cy"])
    listener = Listener(referee, session, en_model, report_missing=False)
    listener.handle(hearing(("fifty", 1.0)))
    heard = listener.handle(hearing(("ninety", 0.88), (second, 0.12)))
    assert heard.reading is not None and heard.reply is not None
    assert heard.reading.share >= MOVE_SHARE and heard.reading.rival < RIVAL_SHARE
    assert (heard.reading.confused_rival >= CONFUSED_RIVAL_SHARE) is asked
    assert bool(heard.reply.confirm) is asked
    assert heard.reply.accepted is not asked


@pytest.mark.parametrize(
    ("readings", "asked"),
    [
        ((("seventeen", 0.5), ("seven", 0.5)), True),  # a tie: the search and the lattice disagree
        ((("seven", 0.6), ("seventeen", 0.4)), False),  # the sound itself says seven
    ],
)
def test_a_toss_up_won_only_because_the_other_reading_is_a_mistake_is_read_back(
    referee: Referee, en_model: SpeechModel, readings: tuple[tuple[str, float], ...], asked: bool
) -> None:
    # In a living room Piper's "seventy" was heard as "seventeen" and "seven", tied; 17 was
    # a mistake then, so 7 held 0.8 of the weight with no rival, and Ann was ruled to have
    # said 7. After 10, 7 is a good move and 17 a mistake.
    session = referee.create(SessionConfig(lang="en", undo_grace=30.0), ["Ann", "Bob", "Cy"])
    listener = Listener(referee, session, en_model, report_missing=False)
    listener.handle(hearing(("ten", 1.0)))
    heard = listener.handle(hearing(*readings))
    assert heard.reading is not None and heard.reply is not None
    assert heard.reading.share >= MOVE_SHARE and heard.reading.rival == 0
    assert heard.reading.won_by_prior is asked
    assert bool(heard.reply.confirm) is asked
    assert heard.reply.accepted is not asked


@pytest.mark.parametrize("said", ["forty two", "fourteen"])
def test_in_a_noisy_room_a_move_often_heard_for_another_likely_one_is_read_back(
    referee: Referee, en_model: SpeechModel, said: str
) -> None:
    # espeak-ng's "thirteen" in white noise 20 dB below was heard as "thirty five", one path
    # with the whole share: no rival to go by. After 53 both 14 and 42 are good moves.
    def play(room: bytes, adapted: bool = False) -> bool:
        listener = table_after_53(referee, en_model, "en", room)
        heard = listener.handle(replace(hearing((said, 1.0)), room_adapted=adapted))
        assert heard.reading.confused and heard.reading.rival == 0 and heard.reply is not None
        return bool(heard.reply.confirm)

    assert play(NOISY_ROOM)  # read back: "Bob, 42?"
    # Decoders adapted to ringing rooms do not make a noisy room's hearing sure.
    assert play(NOISY_ROOM, adapted=True)
    assert not play(b"")  # ruled at once
    # A move no likely one is confused with is ruled at once in the noisy room too.
    listener = table_after_53(referee, en_model, "en", NOISY_ROOM)
    heard = listener.handle(hearing(("fifty five", 1.0)))
    assert not heard.reading.confused and heard.reply is not None and heard.reply.accepted


def test_espeaks_thirteen_misheard_in_white_noise_is_never_ruled_as_another_number(
    referee: Referee, en_model: SpeechModel
) -> None:
    # With these seeds espeak-ng's "thirteen", 20 dB above white noise, is heard as "thirty
    # five" with no rival reading at all (9, 10) or as itself (8). After 11 both are good
    # moves: the move may be ruled only as said. ("ninety seven" heard as "twenty seven" in
    # the same noise keeps "ninety seven" as a rival reading: a rival is read back already.)
    said, number, misheard = "thirteen", 13, "thirty five"
    speech = espeak(said)
    heard: list[str] = []
    for seed in (8, 9, 10):
        session = referee.create(SessionConfig(lang="en"), ["Ann", "Bob"])
        referee.handle(session, "eleven", "Ann")
        listener = Listener(referee, session, en_model, report_missing=False)
        (move,) = listener.hear(pcm_chunks(in_white_noise(speech, 20.0, seed=seed)))
        heard.append(move.hearing.text)
        assert move.reply is not None
        last = referee.table(session).state.last
        assert (move.reply.confirm and last == 11) or last == number, (seed, move.hearing.text, last)
    assert misheard in heard and said in heard  # both hearings were tried


@pytest.mark.parametrize("sound_end", [21.0, 23.0])
def test_the_reply_window_runs_from_the_end_of_the_talks_sound(
    referee: Referee, ko_model: SpeechModel, sound_end: float
) -> None:
    # An unseen ringing room with fan noise: "evening everybody, what a crowd" was heard as
    # talk whose phrase reading ("eleven") ended at 1.34 s, while the sentence went on to
    # about 2.6 s; the "yes" after it began at 3.42 s, past a window counted from the
    # words, and was answered with the standings.
    listener = table_after_53(referee, ko_model, "ko", NOISY_ROOM)
    talk = replace(hearing(("이 저", 1.0)), start=20.0, end=21.0, speech_end=sound_end, talk="이 저")
    assert listener.handle(talk).ignored == "talk"
    reply = listener.handle(replace(hearing((FIFTY["ko"][1], 1.0)), start=24.5, end=25.0))
    assert (reply.ignored == "a reply to talk") is (24.5 - sound_end <= REPLY_TO_TALK_S)


def test_a_yes_right_after_talk_that_went_on_after_a_question_is_not_its_answer(
    referee: Referee, ko_model: SpeechModel
) -> None:
    # The held-out "hey hey, come on in" in white noise: "hey hey" kept by the lenient gate
    # and read back as 88, "come on in" heard as talk, then someone's "yeah" ruled 88.
    listener = asked_on_a_kept_phrase(referee, ko_model)
    talk = replace(hearing(("이 저", 1.0)), start=10.8, end=11.6, talk="이 저")
    assert listener.handle(talk).ignored == "talk"
    yes = replace(hearing(("네", 1.0)), start=12.6, end=12.9)
    assert listener.handle(yes).ignored == "a reply to talk"
    later = listener.handle(replace(yes, start=14.0, end=14.3))  # the talk is over: an answer
    assert later.ignored is None and later.reply is not None and later.reply.accepted


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_in_a_noisy_room_a_move_right_after_talk_is_a_reply_to_it(
    referee: Referee, request: pytest.FixtureRequest, lang: str
) -> None:
    # Piper's "yes" after talk in fan noise, heard as Blófa's "pass" at share 1.0 and ruled;
    # in Korean, with no denoiser, "네" after talk in white noise 20 dB below was read back
    # as Upside-Out's "주기 일" (the room is noisy by the floor of the audio as it comes).
    model: SpeechModel = request.getfixturevalue(f"{lang}_model")

    def heard_after_talk(room: bytes) -> str | None:
        listener = table_after_53(referee, model, lang, room)
        said, words = TALK[lang]
        talk = replace(hearing((said, 1.0)), start=20.0, end=21.0, talk=words)
        assert listener.handle(talk).ignored == "talk"
        return listener.handle(replace(hearing((FIFTY[lang][1], 1.0)), start=21.5, end=22.0)).ignored

    assert heard_after_talk(NOISY_ROOM) == "a reply to talk"
    assert heard_after_talk(b"") is None  # in quiet, a move said right after talk is ruled
