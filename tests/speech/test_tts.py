from __future__ import annotations

import time
import types
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

from host.speech import tts
from host.speech.audio import rms
from host.speech.endpointer import Endpointer
from host.speech.model import SpeechModel
from host.speech.recognizer import GrammarRecognizer
from host.speech.tts import (
    Speaker,
    TTSError,
    duration,
    espeak_synthesize,
    is_silent,
    load_piper_voice,
    piper_synthesize,
    synthesize,
)
from tests.speech.conftest import NUMBERS, requires_espeak


@pytest.fixture(scope="module")
def piper_pcm() -> dict[int, bytes]:
    text = "Fifty three is too high. Try again."
    return {rate: piper_synthesize(text, rate) for rate in (16000, 8000)}


@pytest.mark.parametrize("rate", [16000, 8000])
def test_piper_speaks_english(piper_pcm: dict[int, bytes], rate: int) -> None:
    pcm = piper_pcm[rate]
    assert len(pcm) % 2 == 0
    assert 1.0 < duration(pcm, rate) < 5.0
    assert not is_silent(pcm) and rms(pcm) > 500


def test_piper_voice_is_loaded_once() -> None:
    # (Piper's durations are random per call, so the two rates are not compared.)
    assert load_piper_voice() is load_piper_voice()


def test_piper_threads_sleep_while_they_wait() -> None:
    """Spinning threads take the CPU the decoders beside them need (tts._unspinning_session)."""
    options = load_piper_voice().session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.intra_op_num_threads == 0  # one per core, as Piper's own: the same audio


@requires_espeak
def test_espeak_speaks_korean() -> None:
    pcm = espeak_synthesize("오십삼", "ko", 16000)
    assert 0.3 < duration(pcm, 16000) < 3.0 and not is_silent(pcm)
    pcm8k = synthesize("오십삼", "ko", 8000)
    assert duration(pcm8k, 8000) == pytest.approx(duration(pcm, 16000), abs=0.01)


@requires_espeak
def test_espeak_errors() -> None:
    with pytest.raises(TTSError, match="espeak-ng -v xx failed"):
        espeak_synthesize("hello", "xx")


@requires_espeak
def test_english_falls_back_to_espeak(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise TTSError("cannot load the Piper voice: test")

    monkeypatch.setattr(tts, "load_piper_voice", broken)
    pcm = synthesize("twenty three", "en-US", 16000)
    assert not is_silent(pcm)


@requires_espeak
def test_speaker_mutes_the_recogniser(ko_model: SpeechModel) -> None:
    endpointer = Endpointer(GrammarRecognizer(ko_model, 16000, NUMBERS))
    seen: list[tuple[int, int, bool]] = []

    def player(pcm: bytes, rate: int) -> None:
        seen.append((len(pcm), rate, endpointer.muted))

    speaker = Speaker("ko", 8000, endpointer, player=player, tail_s=0.01)
    pcm = speaker.say("다시 말해 주세요")
    assert seen == [(len(pcm), 8000, True)]
    assert not endpointer.muted


def test_play_uses_sounddevice(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    fake = types.SimpleNamespace(
        play=lambda data, samplerate, device, blocking: calls.append(
            (data.dtype, data.size, samplerate, blocking)
        )
    )
    monkeypatch.setattr(tts, "load_sounddevice", lambda: fake)
    tts.play(np.zeros(800, "<i2").tobytes(), 8000)
    assert calls == [(np.dtype("<i2"), 800, 8000, True)]


def test_announcements_are_cached_and_streamed() -> None:
    text = "Bob is out. Ann, your turn."
    pieces = list(tts.synthesize_stream(text, "en", 16000))
    assert len(pieces) == 2  # one per sentence: playing starts after the first
    assert all(not is_silent(p) for p in pieces)
    started = time.perf_counter()
    again = synthesize(text, "en", 16000)
    assert time.perf_counter() - started < 0.01  # from the cache, no synthesis
    assert again == b"".join(pieces)
    assert list(tts.synthesize_stream(text, "en", 16000)) == [again]


def test_speaker_plays_sentence_by_sentence() -> None:
    played: list[int] = []
    speaker = Speaker("en", 16000, player=lambda pcm, rate: played.append(len(pcm)))
    pcm = speaker.say("Cy wins. Say new game to play again.")
    assert len(played) >= 1 and sum(played) == len(pcm)


@requires_espeak
def test_fixed_announcements_are_made_ahead_once(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = tts.fixed_phrases("ko")
    assert "취소하기엔 너무 늦었어요." in texts and all("{" not in t for t in texts)
    monkeypatch.setattr(tts, "_prepared", set())  # a stream test may have prepared them already
    thread = tts.prepare_in_background("ko", 8000)
    assert thread is not None
    thread.join(timeout=60)
    assert tts.prepare_in_background("ko", 8000) is None  # once per process

    def no_synthesis(*args: Any) -> bytes:
        raise AssertionError("synthesised again")

    monkeypatch.setattr(tts, "espeak_synthesize", no_synthesis)
    assert tts.synthesize("취소하기엔 너무 늦었어요.", "ko", 8000)  # from the cache, at once


@requires_espeak
def test_preparing_stops_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    # What the table command does before it exits (and atexit for everyone else): a thread
    # still synthesising when the interpreter exits aborts the process.
    monkeypatch.setattr(tts, "_prepared", set())
    monkeypatch.setattr(tts, "_cache", OrderedDict())  # nothing made yet
    texts = tts.fixed_phrases("ko")
    thread = tts.prepare_in_background("ko", 8000)
    assert thread is not None
    tts.stop_preparing()
    assert not thread.is_alive()
    assert len(tts._cache) < len(texts)  # stopped between two announcements, not at the end
    again = tts.prepare_in_background("ko", 8000)  # unfinished, so a later call goes on
    assert again is not None
    again.join(timeout=60)
    assert all((" ".join(t.split()), "ko", 8000) in tts._cache for t in texts)
