"""A host app on a real SQLite file, the real Korean Vosk model and espeak-ng speech, and a
websocket client that talks to ``/twilio/media`` the way Twilio does (see ``TwilioStream``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from host.app import create_app
from host.config import Settings
from host.referee import Referee, SessionConfig, Table
from host.store import Store
from tests.speech.conftest import ko_model, ko_wavs, say  # noqa: F401  (shared fixtures)
from tests.twilio_helpers import TEST_AUTH_TOKEN

PUBLIC_URL = "https://gamehost.example"
SIGNED_URL = "wss://gamehost.example/twilio/media"

if shutil.which("espeak-ng") is None:
    pytest.skip("the media-stream tests need espeak-ng", allow_module_level=True)


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
    return Host(app, TestClient(app))


@pytest.fixture
def host(tmp_path: Path, ko_model: Any) -> Iterator[Host]:  # noqa: F811  (ko_model: loaded once)
    built = make_host(tmp_path)
    yield built
    built.app.state.store.close()
