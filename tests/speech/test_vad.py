"""Voice activity detection and the early end of complete phrases, on real speech."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from host.speech import vad as vad_module
from host.speech.audio import SAMPLE_RATE, as_int16, pcm_chunks
from host.speech.endpointer import EARLY_END_SILENCE_S, Endpointer
from host.speech.engines import recognizer_for
from host.speech.model import SpeechModel
from host.speech.phrase_index import complete_phrases, ending
from host.speech.vad import EnergyVad, SileroVad, load_vad
from tests.speech.conftest import silence
from tests.speech.english import NUMBERS_EN
from tests.speech.reverb import said_in_kitchen, said_in_room
from tests.speech.test_sphinx import Say, en_model, piper  # noqa: F401  (fixtures)


def test_complete_phrases_are_those_nothing_extends() -> None:
    phrases = ("ninety", "ninety one", "fifty three", "yes", "new game", "new", "a b c", "a")
    assert complete_phrases(phrases) == {"ninety one", "fifty three", "yes", "new game", "a b c"}
    assert complete_phrases(tuple(NUMBERS_EN)) >= {"fifty three", "seventeen", "one hundred"}
    assert "ninety" not in complete_phrases(tuple(NUMBERS_EN))
    assert "one" not in complete_phrases(tuple(NUMBERS_EN))  # "one hundred"
    assert complete_phrases(None) == frozenset() and complete_phrases(()) == frozenset()


def test_a_text_is_judged_by_its_last_phrase() -> None:
    phrases = ("오십", "오십 삼", "삼십", "삼십 이", "사", "이", "ninety", "ninety one")
    assert ending("오십 삼", phrases) == "complete"
    assert ending("사 삼십 이", phrases) == "complete"  # any phrases in a row, last one complete
    assert ending("오십", phrases) == ending("사 오십", phrases) == "phrase"  # "오십 삼" may follow
    assert ending("ninety", phrases) == "phrase"
    assert ending("오십 칠", phrases) is None  # not a phrase at the end
    assert ending("", phrases) is None and ending("오십", None) is None
    # A whole phrase is judged as one: "one" beginning "one hundred" does not hold "forty one" open.
    english = ("forty", "forty one", "one", "one hundred", "fifty three")
    assert ending("forty one", english) == "complete"
    assert ending("one", english) == ending("forty", english) == "phrase"
    assert ending("fifty three one", english) == "phrase"  # a run of phrases: by its last one


def test_complete_phrase_ends_sooner_than_a_prefix(en_model: SpeechModel, piper: Say) -> None:  # noqa: F811
    endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, NUMBERS_EN))
    pcm = silence(0.5) + piper("fifty three") + silence(1.5) + piper("ninety") + silence(1.5)
    complete, prefix = endpointer.hearings(pcm_chunks(pcm, SAMPLE_RATE, 20))
    assert (complete.text, prefix.text) == ("fifty three", "ninety")
    assert EARLY_END_SILENCE_S <= complete.latency <= EARLY_END_SILENCE_S + 0.15
    assert prefix.latency >= endpointer.silence_s
    # switched off, the complete phrase waits for the full silence too
    late = Endpointer(recognizer_for(en_model, SAMPLE_RATE, NUMBERS_EN), early_silence_s=None)
    pcm = silence(0.5) + piper("fifty three") + silence(1.5)
    (hearing,) = late.hearings(pcm_chunks(pcm, SAMPLE_RATE, 20))
    assert hearing.latency >= late.silence_s


def test_a_pause_after_a_prefix_keeps_one_utterance(en_model: SpeechModel, piper: Say) -> None:  # noqa: F811
    endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, NUMBERS_EN))
    pcm = silence(0.5) + piper("ninety") + silence(0.35) + piper("one") + silence(1.5)
    (hearing,) = endpointer.hearings(pcm_chunks(pcm, SAMPLE_RATE, 20))
    assert hearing.text == "ninety one"


def fan(seconds: float, rms: float, seed: int = 4) -> np.ndarray:
    """Low-passed noise, like a fan or an air conditioner."""
    rng = np.random.default_rng(seed)
    white = rng.normal(0, 1, round(SAMPLE_RATE * seconds))
    smooth = np.convolve(white, np.ones(40) / 40, mode="same")
    return smooth * rms / np.sqrt(np.mean(smooth**2))


def test_silero_finds_speech_in_fan_noise(en_model: SpeechModel, piper: Say) -> None:  # noqa: F811
    speech = as_int16(silence(1.0) + piper("forty two") + silence(1.5)).astype(np.float64)
    level = np.sqrt(np.mean(as_int16(piper("forty two")).astype(np.float64) ** 2))
    noisy = np.clip(speech + fan(speech.size / SAMPLE_RATE, level / 10 ** (5 / 20)), -32768, 32767)
    pcm = noisy.astype("<i2").tobytes()
    endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, NUMBERS_EN), vad="silero")
    assert isinstance(endpointer.vad, SileroVad)
    (hearing,) = endpointer.hearings(pcm_chunks(pcm, SAMPLE_RATE, 20))
    # one utterance where the speech is (what is decoded from 5 dB noise is not the point)
    assert 0.8 <= hearing.start <= 1.3 and hearing.end <= 2.2


def test_silero_spans_at_eight_khz() -> None:
    detector = SileroVad(8000)
    quiet = detector.speech(as_int16(bytes(16000)), 0.0)
    assert quiet == []


def test_energy_fallback_when_silero_cannot_load(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    en_model: SpeechModel,  # noqa: F811
    piper: Say,  # noqa: F811
) -> None:
    def broken(rate: int, **kwargs: float) -> SileroVad:
        raise OSError("libggml.so: cannot open shared object file")

    monkeypatch.setattr(vad_module, "SileroVad", broken)
    with caplog.at_level(logging.WARNING):
        endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, NUMBERS_EN))
    assert isinstance(endpointer.vad, EnergyVad)
    assert "Silero VAD unavailable" in caplog.text
    pcm = silence(0.5) + piper("twelve") + silence(1.0)
    (hearing,) = endpointer.hearings(pcm_chunks(pcm, SAMPLE_RATE, 20))
    assert hearing.text == "twelve"
    with pytest.raises(OSError):
        load_vad("silero", SAMPLE_RATE)
    with pytest.raises(ValueError):
        load_vad("webrtc", SAMPLE_RATE)


def test_in_a_kitchen_every_number_of_a_stream_is_found(en_model: SpeechModel, piper: Say) -> None:  # noqa: F811
    # Numbers said one after another, 1.2 s apart, no host speaking between: with the
    # detector's state carried from one utterance to the next, its speech probability in
    # this kitchen (RT60 0.9 s) sank below the threshold and 4 of these 12 went unheard. In
    # a room that rings it starts afresh for each utterance.
    words = ["ninety", "seventeen", "ninety one", "seventy eight", "thirty", "fifty nine"]
    words += ["sixteen", "eighty four", "forty six", "sixty one", "nineteen", "forty"]
    audio = said_in_kitchen([piper(w) for w in words])
    endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, list(NUMBERS_EN)), vad="silero")
    # As the table's listener tells it once the room is measured: a kitchen echoes. Had
    # speech ended at the bar it begins at (endpointer.RINGING_VAD_HOLD, for rooms that
    # ring less), "ninety" would have ended after its "nine" here.
    endpointer.room_rings(True, echoing=True)
    hearings = list(endpointer.hearings(pcm_chunks(audio)))
    assert len(hearings) == len(words), [h.text for h in hearings]


def _speech_frames(spans: list[tuple[float, float]]) -> set[int]:
    return {round(a / 0.032) for a, _ in spans}


def test_afresh_hears_with_both_a_fresh_network_and_the_stream_so_far(piper: Say) -> None:  # noqa: F811
    # In a room that rings the end-pointer starts the detector afresh after each utterance
    # (the kitchen test above). A network reset alone right at the onset of more speech
    # missed it (the rest of a sentence whose first words ended early); afresh, speech is
    # what the fresh network or the one that heard the stream so far calls speech.
    audio = as_int16(said_in_kitchen([piper(w) for w in ("ninety one", "seventy eight", "sixty one")]))
    cut = 62 * SileroVad.WINDOW  # 1.98 s: in the pause after the first number, on a window
    rest = audio[cut:]
    carried, both = SileroVad(SAMPLE_RATE), SileroVad(SAMPLE_RATE)
    carried.speech(audio[:cut], 0.0)
    both.speech(audio[:cut], 0.0)
    both.afresh()
    found = {
        "carried": _speech_frames(carried.speech(rest, cut / SAMPLE_RATE)),
        "fresh": _speech_frames(SileroVad(SAMPLE_RATE).speech(rest, cut / SAMPLE_RATE)),
        "both": _speech_frames(both.speech(rest, cut / SAMPLE_RATE)),
    }
    assert found["carried"] != found["fresh"]  # the two networks differ here
    assert found["both"] >= found["carried"] | found["fresh"]
    # A reset forgets the second network too.
    both.afresh()
    both.reset()
    assert both.speech(rest, cut / SAMPLE_RATE) == SileroVad(SAMPLE_RATE).speech(rest, cut / SAMPLE_RATE)


def test_in_a_room_that_rings_speech_ends_where_it_began(en_model: SpeechModel, piper: Say) -> None:  # noqa: F811
    # A word's reverberant tail holds Silero's probability between its two bars (the start
    # bar and its hysteresis 0.15 below) after the dry speech ended, and the early end waits
    # on it. In a room that rings but does not echo speech ends where it would begin
    # (endpointer.RINGING_VAD_HOLD): the same numbers heard, each ruled no later, and
    # sooner in all. In one that echoes the detector keeps its own hysteresis.
    words = ["ninety one", "seventy eight", "forty six", "twelve", "sixty one"]
    audio, spans = said_in_room([piper(w) for w in words], 0.6)
    ends: dict[bool, list[float]] = {}
    for echoing in (False, True):
        endpointer = Endpointer(recognizer_for(en_model, SAMPLE_RATE, list(NUMBERS_EN)), vad="silero")
        endpointer.room_rings(True, echoing=echoing)
        hearings = list(endpointer.hearings(pcm_chunks(audio)))
        assert [h.text for h in hearings] == words
        ends[echoing] = [h.emitted_at - end for h, (_, end) in zip(hearings, spans, strict=True)]
    assert all(held <= loose + 1e-9 for held, loose in zip(ends[False], ends[True], strict=True))
    assert sum(ends[True]) - sum(ends[False]) >= 0.1, ends


def test_the_hold_is_the_detectors_own_again_when_the_room_is_quiet(piper: Say) -> None:  # noqa: F811
    words = ["ninety one", "seventy eight", "forty six", "twelve", "sixty one"]
    audio = as_int16(said_in_room([piper(w) for w in words], 0.6)[0])
    held, loose = SileroVad(SAMPLE_RATE), SileroVad(SAMPLE_RATE)
    held.hold(0.35)
    found = {"held": set(held.speech(audio, 0.0)), "loose": set(loose.speech(audio, 0.0))}
    assert found["held"] < found["loose"], found  # tails between the bars are no longer speech
    held.hold(None)
    held.reset()
    loose.reset()
    assert held.speech(audio, 0.0) == loose.speech(audio, 0.0)


def test_digital_silence_is_not_run_through_silero_once_it_has_settled(
    piper: Say,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Silero costs 1.7 ms a 32 ms window; a muted input or a test's pause is digital zeros,
    # where after vad.SETTLED_ZEROS windows its probability is below 0.01. The speech found
    # around a long pause is the same as when every window is run.
    words = [np.frombuffer(piper(w), dtype="<i2") for w in ("ninety one", "seventy eight")]
    pause = np.frombuffer(silence(2.0), dtype="<i2")
    audio = np.concatenate([pause[:8000], words[0], pause, words[1], pause])

    def heard(settled: int | None) -> tuple[list[int], int]:
        monkeypatch.setattr(vad_module, "SETTLED_ZEROS", settled)
        detector = SileroVad(SAMPLE_RATE)
        network, runs = detector._detector, [0]

        def counted(samples: list[float]) -> float:
            runs[0] += 1
            return float(network.process_samples(samples))

        monkeypatch.setattr(
            detector, "_detector", type("Counted", (), {"process_samples": staticmethod(counted)})
        )
        return sorted(_speech_frames(detector.speech(audio, 0.0))), runs[0]

    settles = vad_module.SETTLED_ZEROS
    (every, all_runs), (settled, settled_runs) = heard(None), heard(settles)
    windows = audio.size // SileroVad.WINDOW
    assert all_runs == windows and settled_runs < windows - 100, (all_runs, settled_runs)
    assert settled == every and every
