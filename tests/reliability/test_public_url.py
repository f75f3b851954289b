"""Issue 25, hole 4: in production ``gamehost serve`` refuses to start without
GAMEHOST_PUBLIC_URL. Without it a webhook's signature is checked against the URL the request
names itself (its Host header), so a request Twilio signed for another application on the
same account is accepted when replayed with that Host, as the last test shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from host.app import app_from_env, create_app
from host.config import Settings
from host.store import Store
from tests.reliability.test_empty_secrets import _serve
from tests.sms.conftest import HOST_NUMBER, PHONES, new_sid
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, post_signed


@pytest.mark.parametrize("url", [None, "", "   ", "games.example.org", "ftp://games.example.org", "https://"])
def test_production_serve_refuses_without_a_public_url(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str | None
) -> None:
    env = {"TWILIO_AUTH_TOKEN": TEST_AUTH_TOKEN}
    if url is not None:
        env["GAMEHOST_PUBLIC_URL"] = url
    result, started = _serve(monkeypatch, tmp_path, **env)
    assert result.exit_code == 2, result.output
    assert started == []
    assert "GAMEHOST_PUBLIC_URL is not set" in result.output


def test_production_serve_starts_with_a_public_url(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    result, started = _serve(
        monkeypatch,
        tmp_path,
        TWILIO_AUTH_TOKEN=TEST_AUTH_TOKEN,
        GAMEHOST_PUBLIC_URL="https://games.example.org",
    )
    assert result.exit_code == 0, result.output
    assert len(started) == 1
    assert "https://games.example.org/twilio/sms" in result.output


def test_development_serve_needs_no_public_url(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    result, started = _serve(monkeypatch, tmp_path, GAMEHOST_MODE="development")
    assert result.exit_code == 0, result.output
    assert len(started) == 1


def test_each_worker_refuses_the_same(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``serve --workers N`` and uvicorn run by hand build the app with ``app_from_env``."""
    from host.config import get_settings

    monkeypatch.setenv("GAMEHOST_DB", str(tmp_path / "w.sqlite3"))
    monkeypatch.setenv("TWILIO_AUTH_TOKEN", TEST_AUTH_TOKEN)
    monkeypatch.delenv("GAMEHOST_PUBLIC_URL", raising=False)
    monkeypatch.delenv("GAMEHOST_MODE", raising=False)
    monkeypatch.delenv("GAMEHOST_VALIDATE_SIGNATURES", raising=False)
    get_settings.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="GAMEHOST_PUBLIC_URL"):
            app_from_env()
    finally:
        get_settings.cache_clear()


def test_what_the_public_url_stops(tmp_path: Path) -> None:
    """A text Twilio signed for another application (``other.example.org``) replayed to us with
    that Host: accepted when signatures follow the Host, refused against the public URL."""
    params = {
        "From": PHONES[0],
        "To": HOST_NUMBER,
        "Body": "NEW",
        "MessageSid": new_sid(),
        "AccountSid": TEST_ACCOUNT_SID,
    }
    for public, status in ((None, 200), ("https://games.example.org", 403)):
        db = tmp_path / f"{status}.sqlite3"
        settings = Settings(db=db, twilio_auth_token=TEST_AUTH_TOKEN, public_url=public)
        client = TestClient(create_app(settings, Store(settings.db)), base_url="https://other.example.org")
        answer = post_signed(client, "/twilio/sms", params, base_url="https://other.example.org")
        assert answer.status_code == status, (public, answer.text)
        client.app.state.store.close()  # type: ignore[attr-defined]
