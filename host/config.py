"""Settings from the environment: ``GAMEHOST_*`` variables and Twilio's own names.

Read through ``get_settings()`` (cached) so FastAPI dependencies and tests can override it.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_db_path() -> Path:
    return Path(platformdirs.user_data_dir("gamehost")) / "gamehost.sqlite3"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GAMEHOST_", extra="ignore")

    db: Path = Field(default_factory=default_db_path)
    lang: str = "en"
    # Seconds a move can be taken back; None (empty) switches undo off.
    table_undo_grace: float | None = 30.0
    sms_undo_grace: float | None = None
    # Speech hearings that would be a mistake are confirmed below this confidence.
    confirm_below: float = 0.75

    public_url: str | None = None  # the address Twilio posts to, for signature checks
    validate_signatures: bool = True  # only a development setting may turn this off
    sms_turn_timeout: float | None = 600.0
    # Voice: the <Gather> speech model for moves (a whole-number speechTimeout goes with
    # it) and the longest quiet stretch, in seconds, a waiting caller hears.
    # Calls are heard by Twilio's recogniser (<Gather>), or with "vosk" by our own over
    # Media Streams when the language's Vosk model is available (else <Gather> again).
    voice_recognizer: Literal["twilio", "vosk"] = "twilio"
    voice_speech_model: str = "numbers_and_commands"
    voice_wait_pause: int = 10
    # Backstop for games of several callers: a turn runs out after this many seconds even if
    # a call vanished without a status callback (a live caller's silence is ruled sooner).
    voice_turn_timeout: float | None = 120.0

    # Media Streams (host/channels/media.py): a Vosk model folder for streamed calls (else
    # the model installed for the call's language), and whether vosk may download one.
    media_model_dir: Path | None = None
    media_model_download: bool = False
    # Speech engine for load_model(engine=...): "auto" is Vosk when a Vosk model for the
    # language is installed, else pocketsphinx (bundled US English model) for English.
    speech_engine: Literal["auto", "vosk", "pocketsphinx"] = "auto"

    twilio_account_sid: str | None = Field(
        default=None, validation_alias=AliasChoices("TWILIO_ACCOUNT_SID", "GAMEHOST_TWILIO_ACCOUNT_SID")
    )
    twilio_auth_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("TWILIO_AUTH_TOKEN", "GAMEHOST_TWILIO_AUTH_TOKEN")
    )
    # Tests point the SDK at a local stand-in for Twilio's API.
    twilio_api_base: str | None = None


@lru_cache
def get_settings() -> Settings:
    return Settings()
