"""Fixtures for table mode: the real Korean Vosk model and espeak-ng speech made at test time.

Speech is synthesised once per session into a temporary directory and cached by text;
``script`` joins utterances with silence into one 16 kHz mono WAV file, the way a table
recording would sound.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from games.base import Command, find_game
from host.listening.reading import Reading
from host.referee import Referee
from host.session import Player, SessionConfig, Table
from host.speech.audio import SAMPLE_RATE, write_wav
from host.speech.hearing import Hearing
from host.speech.model import SpeechModel, load_model
from host.store import Store
from tests import voices
from tests.clock import Clock
from tests.speech.conftest import silence, trim

PLAYERS = ("Ann", "Bob", "Cy")

Say = Callable[[str], bytes]


def hearing(*alternatives: tuple[str, float]) -> Hearing:
    """A recogniser's hearing of 0.5 s with these (text, share) alternatives, best first."""
    return Hearing(
        alternatives=alternatives,
        scores=tuple(0.0 for _ in alternatives),
        words=(),
        start=0.0,
        end=0.5,
        unknown=False,
        speech_end=0.5,
        emitted_at=1.2,
    )


@pytest.fixture(scope="session")
def ko_model() -> SpeechModel:
    return load_model(lang="ko", download=False)


@pytest.fixture(scope="session")
def say() -> Say:
    """pcm16 of espeak-ng saying ``text`` (Korean unless it starts with "en:")."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("needs espeak-ng")

    def speak(text: str) -> bytes:
        voice, words = ("en-us", text[3:]) if text.startswith("en:") else ("ko", text)
        return trim(voices.espeak(words, voice))

    return speak


@pytest.fixture(scope="session")
def script(say: Say, tmp_path_factory: pytest.TempPathFactory) -> Callable[[Sequence[str], float], Path]:
    """A WAV file of utterances separated by ``gap`` seconds of silence."""
    directory = tmp_path_factory.mktemp("table-audio")

    def make(utterances: Sequence[str], gap: float = 1.5) -> Path:
        pcm = silence(1.0) + b"".join(say(u) + silence(gap) for u in utterances)
        path = directory / f"script-{abs(hash((tuple(utterances), gap)))}.wav"
        write_wav(path, pcm)
        return path

    return make


def white_noise(seconds: float, level: float = 1500.0, seed: int = 3) -> bytes:
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, level, round(SAMPLE_RATE * seconds)).clip(-32768, 32767).astype("<i2").tobytes()


@pytest.fixture
def clock() -> Clock:
    return Clock(1000.0)


@pytest.fixture
def referee(tmp_path: Path, clock: Clock) -> Iterator[Referee]:
    store = Store(tmp_path / "table.sqlite3")
    yield Referee(store, clock)
    store.close()


@pytest.fixture
def korean_session(referee: Referee) -> str:
    return referee.create(SessionConfig(lang="ko", undo_grace=30.0), PLAYERS)


def table_for(game: str, state: Any, lang: str = "ko", players: Sequence[str] = PLAYERS) -> Table:
    """A session's table around a game state, for the listener's pure functions."""
    spec = find_game(game)
    options = state.options if state is not None else spec.make_options()
    config = SessionConfig(game=spec.name, lang=lang)
    return Table(config, spec, options, tuple(Player(p) for p in players), state=state)


def said(reading: Reading) -> object:
    """What a reading means, plainly: a number, a card, a command's name, or None."""
    return meant(reading.meaning)


def meant(meaning: object) -> object:
    """A meaning, plainly: a number, a card, a command's name, or None."""
    if isinstance(meaning, Command):
        return meaning.name
    for field in ("number", "card"):
        if hasattr(meaning, field):
            return getattr(meaning, field)
    return meaning
