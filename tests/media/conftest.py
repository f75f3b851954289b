"""A host app on a real SQLite file, the real Korean Vosk model and espeak-ng speech, and a
websocket client that talks to ``/twilio/media`` the way Twilio does (see ``TwilioStream``)."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from host.app import create_app
from host.config import Settings
from host.referee import Referee
from host.session import SessionConfig, Table
from host.store import Store
from tests import voices
from tests.speech.conftest import ko_model, trim  # noqa: F401  (ko_model: a shared fixture)
from tests.twilio_helpers import TEST_AUTH_TOKEN

PUBLIC_URL = "https://gamehost.example"
SIGNED_URL = "wss://gamehost.example/twilio/media"

if shutil.which("espeak-ng") is None:
    pytest.skip("the media-stream tests need espeak-ng", allow_module_level=True)


# Words the packaged Korean model still gets right from espeak-ng after the phone's 8 kHz
# mu-law: it loses almost everything once the audio has nothing above 4 kHz ("오십삼" comes
# out as "라"; 2 of the numbers 1..100 survive, see docs/media-streams.md).
PHONE_WORDS = ("오", "이")


@pytest.fixture(scope="session")
def say_on_phone() -> dict[str, bytes]:
    """16 kHz pcm16 of each of PHONE_WORDS (the client turns it into Twilio's mu-law)."""
    return {word: trim(voices.espeak(word, "ko")) for word in PHONE_WORDS}


@dataclass
class Host:
    app: FastAPI
    client: TestClient

    @property
    def referee(self) -> Referee:
        referee: Referee = self.app.state.referee
        return referee

    def table(self, session_id: str) -> Table:
        return self.referee.table(session_id)

    def korean_game(self, *players: str) -> str:
        return self.referee.create(SessionConfig(lang="ko"), list(players or ("Ann", "Bob")))


class FastClock:
    """Playout time running ``speed`` times faster than real time: the host paces its audio
    by the same deadlines, the tests just wait less for it."""

    def __init__(self, speed: float = 4.0) -> None:
        self.speed = speed
        self.origin = time.monotonic()

    def __call__(self) -> float:
        return (time.monotonic() - self.origin) * self.speed

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds / self.speed)


def make_host(tmp_path: Path, **overrides: Any) -> Host:
    values: dict[str, Any] = {
        "db": tmp_path / "gamehost.sqlite3",
        "twilio_auth_token": TEST_AUTH_TOKEN,
        "public_url": PUBLIC_URL,
        "validate_signatures": True,
        "lang": "ko",
    }
    values.update(overrides)
    settings = Settings(**values)
    app = create_app(settings, Store(settings.db))
    clock = FastClock()
    app.state.media.clock, app.state.media.sleep = clock, clock.sleep
    return Host(app, TestClient(app))


@pytest.fixture
def host(tmp_path: Path, ko_model: Any) -> Iterator[Host]:  # noqa: F811  (ko_model: loaded once)
    built = make_host(tmp_path)
    yield built
    built.app.state.store.close()
