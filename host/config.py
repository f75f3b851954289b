"""Settings from the environment: ``GAMEHOST_*`` variables and Twilio's own names.

Read through ``get_settings()`` (cached) so FastAPI dependencies and tests can override it.
"""

from __future__ import annotations

import types
import typing
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import platformdirs
from pydantic import AliasChoices, Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, SettingsConfigDict

from grammars import REFERENCE, languages, wording_gaps

#: Tables the referee keeps in memory per process (host/table_cache.py); a few KB each.
DEFAULT_TABLE_CACHE = 10_000


def default_db_path() -> Path:
    return Path(platformdirs.user_data_dir("gamehost")) / "gamehost.sqlite3"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GAMEHOST_", extra="ignore")

    db: Path = Field(default_factory=default_db_path)
    # sqlite:///path or postgresql://user:pass@host/db; unset: the SQLite file ``db``.
    database_url: str | None = None
    # Server processes behind one port (``gamehost serve --workers``). With SQLite they
    # share one file and write one at a time (WAL); PostgreSQL is for real concurrency.
    workers: int = Field(default=1, ge=1)
    # The language of a caller or texter who is not in a game: the one of the number of
    # ours they called or texted (GAMEHOST_NUMBER_LANGS, JSON: {"+15005550006": "ko"}),
    # else GAMEHOST_LANG. Someone who joins a game by its code gets the game's language.
    lang: str = REFERENCE
    number_langs: dict[str, str] = {}  # pydantic copies a default; none is shared
    # Seconds a move can be taken back; None (empty) switches undo off.
    table_undo_grace: float | None = 30.0
    sms_undo_grace: float | None = None
    # Speech hearings that would be a mistake are confirmed below this confidence.
    confirm_below: float = 0.75
    # Seconds a read-back at a table's microphone waits for its answer, then lapses and
    # changes nothing (None, empty: it waits). The table talks on meanwhile.
    confirm_lapse: float | None = 8.0

    public_url: str | None = None  # the address Twilio posts to, for signature checks
    # "production" (the default) checks every webhook's signature and will not serve
    # without TWILIO_AUTH_TOKEN; "development" checks none (warned loudly at start).
    mode: Literal["production", "development"] = "production"
    # The older development switch: false is the same as mode=development.
    validate_signatures: bool = True
    sms_turn_timeout: float | None = 600.0
    # Text budgets (docs/sms.md): texts sent to one number a minute, for one game a minute
    # (numbers in no game share one such budget), and in all an hour. A text that comes in
    # over one is not acted on: its number is told so once, then hears nothing until the
    # window turns (an opt-out word still counts). 0: no limit.
    sms_budget_per_number: int = Field(default=30, ge=0)
    sms_budget_per_game: int = Field(default=120, ge=0)
    sms_budget_per_hour: int = Field(default=2000, ge=0)
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
    # Who a caller is (docs/voice.md). "attested": their number only when Twilio attests
    # the caller ID fully (StirVerstat TN-Validation-Passed-A); any other call is a guest
    # until it keys in the PIN texted to that number when it took its seat. "trust": any
    # caller ID is the number's player (spoofable: for a lab's own phones only).
    voice_caller_id: Literal["trust", "attested"] = "attested"

    # Media Streams (host/channels/media/): a Vosk model folder for streamed calls (else
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
    # The SharedKey secret for webhooks signed with HMAC-SHA256 (the Auth Token otherwise).
    twilio_webhook_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("TWILIO_WEBHOOK_KEY", "GAMEHOST_TWILIO_WEBHOOK_KEY")
    )
    # Tests point the SDK at a local stand-in for Twilio's API.
    twilio_api_base: str | None = None
    # Each REST call to Twilio gives up after this many seconds (then it is retried).
    twilio_timeout: float = 10.0
    # The outbox sender: attempts before an item is dead-lettered, first retry delay.
    outbox_attempts: int = 8
    outbox_backoff: float = 1.0
    # REST calls to Twilio in flight at once, per server process (each on its own thread).
    outbox_concurrency: int = Field(default=8, ge=1)
    # Sessions whose table the referee keeps in memory, per server process (least recently
    # used out first; one not kept is rebuilt from its log when it is next used); 0: none.
    table_cache: int = Field(default=DEFAULT_TABLE_CACHE, ge=0)
    # Live pages (/t/<code>/events) one client may keep open at once, per server process.
    live_streams_per_client: int = Field(default=20, ge=1)
    # Requests as they come in (host/limits/): seconds a request's line and headers may take
    # from its first byte (and a new connection to send one), seconds its body may take once
    # the headers are in, and its largest body (a Twilio form is a few KB); larger is
    # answered 413 before a byte of it is read. A WebSocket message has its own cap.
    header_timeout: float = Field(default=10.0, gt=0)
    body_timeout: float = Field(default=10.0, gt=0)
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    ws_max_bytes: int = Field(default=64 * 1024, ge=1024)
    # Connections one client address may have still sending a request (its headers or its
    # body), per server process; one more closes its oldest. Behind a proxy the address is
    # the one the proxy forwards (trusted from FORWARDED_ALLOW_IPS only).
    connections_per_client: int = Field(default=64, ge=1)
    # Shows the sessions in progress on the home page to whoever sends it (Bearer or
    # ?token=); unset or empty: that list is never shown.
    admin_token: SecretStr | None = None

    @field_validator(
        "twilio_account_sid",
        "twilio_auth_token",
        "twilio_webhook_key",
        "admin_token",
        "public_url",
        "twilio_api_base",
        "database_url",
        "table_undo_grace",
        "confirm_lapse",
        "sms_undo_grace",
        "sms_turn_timeout",
        "voice_turn_timeout",
        "media_model_dir",
        mode="before",
    )
    @classmethod
    def _empty_is_unset(cls, value: Any) -> Any:
        """``VAR=`` means unset: an empty secret is no key at all (signing with "" would
        accept anyone's signature), and an empty limit is the documented "off"."""
        if isinstance(value, SecretStr):
            return None if not value.get_secret_value().strip() else value
        if isinstance(value, str) and not value.strip():
            return None
        return value

    def lang_for(self, number: str | None) -> str:
        """The language of someone who called or texted ``number`` (one of ours)."""
        return self.number_langs.get((number or "").strip(), self.lang)

    def language_problem(self) -> str | None:
        """Why the phone channels cannot start in the languages set: a language that lacks
        a line a channel says would speak a mix (English where its own line is missing), so
        it is refused, naming the file and the keys it lacks."""
        known = languages()
        for lang in dict.fromkeys([self.lang, *self.number_langs.values()]):
            if lang not in known:
                return (
                    f"GAMEHOST_LANG or GAMEHOST_NUMBER_LANGS names {lang!r}, which has no"
                    f" grammars/{lang}/ (have: {', '.join(known)})."
                )
            for channel in ("sms", "voice"):
                gaps = wording_gaps(lang, channel)
                if gaps:
                    return f"The {channel} channel cannot speak {lang!r}: it lacks {'; '.join(gaps)}."
        return None

    @field_validator(
        "header_timeout",
        "body_timeout",
        "max_body_bytes",
        "ws_max_bytes",
        "connections_per_client",
        mode="before",
    )
    @classmethod
    def _empty_is_default(cls, value: Any, info: ValidationInfo) -> Any:
        """A limit has no "off": ``VAR=`` is the same as unset, its default."""
        if isinstance(value, str) and not value.strip() and info.field_name is not None:
            return cls.model_fields[info.field_name].default
        return value

    @property
    def database(self) -> str:
        """What ``Store`` opens: the URL if set, else the SQLite file."""
        return self.database_url or str(self.db)

    @property
    def development(self) -> bool:
        return self.mode == "development" or not self.validate_signatures

    @property
    def check_signatures(self) -> bool:
        return not self.development

    def serve_problem(self) -> str | None:
        """Why a server must not start with these settings, every reason at once; None: it
        may. A language set (GAMEHOST_LANG, GAMEHOST_NUMBER_LANGS) that lacks a line a
        phone channel says is refused (:meth:`language_problem`). In production every
        webhook is checked against the auth token and the public URL: without the token
        every webhook would be refused, and without the URL a signature would be checked
        against the address the request names itself (its Host), so a request Twilio signed
        for another application on the account would pass."""
        language = self.language_problem()
        if language is not None:
            return language
        if not self.check_signatures:
            return None
        missing = []
        if self.twilio_auth_token is None:
            missing.append("TWILIO_AUTH_TOKEN is not set (or empty), so no Twilio webhook could be checked")
        parts = urlsplit(self.public_url or "")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            missing.append(
                "GAMEHOST_PUBLIC_URL is not set (or not an http(s):// address): Twilio's signatures"
                " must be checked against the address Twilio posts to, e.g."
                " GAMEHOST_PUBLIC_URL=https://games.example.org"
            )
        if not missing:
            return None
        dev = " Or run with GAMEHOST_MODE=development for local experiments (no signature checks)."
        return "; ".join(missing) + "." + dev


class SettingsError(ValueError):
    """Settings the environment got wrong, said in one line: each variable, its value and
    what it may be (``GAMEHOST_MODE=dev: must be production or development``)."""

    @classmethod
    def of(cls, exc: ValidationError) -> SettingsError:
        return cls("; ".join(dict.fromkeys(_wrong(error) for error in exc.errors())))


def variable(name: str) -> str:
    """The environment variable a setting is read from (Twilio's own name where it has one)."""
    field = Settings.model_fields.get(name)
    if field is None:  # an alias is its own name
        return name
    if isinstance(field.validation_alias, AliasChoices):
        return str(field.validation_alias.choices[0])
    return f"GAMEHOST_{name.upper()}"


def _wrong(error: ErrorDetails) -> str:
    name = str(error["loc"][0]) if error["loc"] else ""
    field = Settings.model_fields.get(name)
    kind = field.annotation if field is not None else None
    union = typing.get_origin(kind) in (typing.Union, types.UnionType)
    optional = union and type(None) in typing.get_args(kind)
    if optional:
        kind = next(a for a in typing.get_args(kind) if a is not type(None))
    value = error["input"]
    if kind is SecretStr:
        shown = "(a secret)"  # never echoed
    else:
        shown = str(value) if isinstance(value, str | int | float) else repr(value)
        shown = shown if len(shown) <= 40 else shown[:40] + "..."
    return f"{variable(name)}={shown}: {_allowed(error, kind)}" + (", or empty" if optional else "")


def _allowed(error: ErrorDetails, kind: Any) -> str:
    """What a value may be, from the error pydantic found and the setting's type."""
    ctx = error.get("ctx") or {}
    if typing.get_origin(kind) is Literal:
        return "must be " + " or ".join(str(a) for a in typing.get_args(kind))
    if error["type"] in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {"ge": "at least", "gt": "more than", "le": "at most", "lt": "less than"}
        return "must be " + ", ".join(f"{words[k]} {v}" for k, v in ctx.items() if k in words)
    if kind is bool:
        return "must be true or false"
    if kind is int:
        return "must be a whole number"
    if kind is float:
        return "must be a number"
    message = error["msg"].removeprefix("Input should be ").removeprefix("Value error, ")
    return f"must be {message}" if error["msg"].startswith("Input should be") else message


def load_settings(**given: Any) -> Settings:
    """The settings from the environment (``given`` overrides); :class:`SettingsError` says
    in one line what the environment got wrong."""
    try:
        return Settings(**given)
    except ValidationError as exc:
        raise SettingsError.of(exc) from None


@lru_cache
def get_settings() -> Settings:
    return load_settings()
