"""Item 1: ``TWILIO_AUTH_TOKEN=""`` is no key at all, and production will not serve without one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from host import cli
from host.app import create_app
from host.config import Settings, get_settings
from host.store import Store
from tests.sms.conftest import HOST_NUMBER, PHONES, new_sid
from tests.twilio_helpers import TEST_ACCOUNT_SID, post_signed

runner = CliRunner()


def _params() -> dict[str, str]:
    return {
        "From": PHONES[0],
        "To": HOST_NUMBER,
        "Body": "NEW",
        "MessageSid": new_sid(),
        "AccountSid": TEST_ACCOUNT_SID,
    }


def test_empty_credentials_are_unset(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TWILIO_AUTH_TOKEN", "")
    monkeypatch.setenv("TWILIO_ACCOUNT_SID", "  ")
    settings = Settings(db=tmp_path / "db.sqlite3")
    assert settings.twilio_auth_token is None
    assert settings.twilio_account_sid is None


@pytest.mark.parametrize("name", ["TWILIO_WEBHOOK_KEY", "GAMEHOST_TWILIO_WEBHOOK_KEY"])
def test_the_webhook_key_is_read_by_either_name_and_empty_is_unset(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    monkeypatch.setenv(name, "shared-key")
    key = Settings(db=tmp_path / "db.sqlite3").twilio_webhook_key
    assert key is not None and key.get_secret_value() == "shared-key"
    monkeypatch.setenv(name, " ")
    assert Settings(db=tmp_path / "db.sqlite3").twilio_webhook_key is None


def test_a_signature_made_with_the_empty_key_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TWILIO_AUTH_TOKEN", "")
    path = tmp_path / "db.sqlite3"
    app = create_app(Settings(db=path), Store(path))
    with TestClient(app) as client:
        response = post_signed(client, "/twilio/sms", _params(), token="")
        assert response.status_code == 403
        sessions = app.state.store.execute("SELECT COUNT(*) AS n FROM sessions")[0]["n"]
    assert sessions == 0


def _serve(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **env: str) -> tuple[Any, list[Any]]:
    """``gamehost serve`` with ``env``; uvicorn.run is recorded instead of run."""
    import uvicorn

    started: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: started.append(app))
    for name in ("TWILIO_AUTH_TOKEN", "GAMEHOST_MODE", "GAMEHOST_VALIDATE_SIGNATURES", "GAMEHOST_PUBLIC_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GAMEHOST_DB", str(tmp_path / "db.sqlite3"))
    get_settings.cache_clear()
    try:
        result = runner.invoke(cli.app, ["serve", "--port", "9"])
    finally:
        get_settings.cache_clear()
    return result, started


def test_production_refuses_to_serve_without_a_token(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    result, started = _serve(monkeypatch, tmp_path, TWILIO_AUTH_TOKEN="")
    assert result.exit_code != 0
    assert started == []
    assert "TWILIO_AUTH_TOKEN" in result.output


def test_development_mode_serves_and_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for env in ({"GAMEHOST_MODE": "development"}, {"GAMEHOST_VALIDATE_SIGNATURES": "false"}):
        result, started = _serve(monkeypatch, tmp_path, **env)
        assert result.exit_code == 0, result.output
        assert len(started) == 1
        assert "DEVELOPMENT MODE" in result.output


def test_production_with_a_token_serves(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    result, started = _serve(
        monkeypatch,
        tmp_path,
        TWILIO_AUTH_TOKEN="a-real-looking-token",
        GAMEHOST_PUBLIC_URL="https://g.example",
    )
    assert result.exit_code == 0, result.output
    assert len(started) == 1
    assert "DEVELOPMENT" not in result.output
