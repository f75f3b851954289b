"""Twilio's webhooks take a shorter way into the app (``GameHost``) than other requests;
what FastAPI's way did for them it still does: a crash is answered 500 and raised on to
the server (uvicorn logs it), the
app's exception handlers answer, a wrong signature is refused, and everything else (other
methods, other paths, a path with a slash too many) goes FastAPI's way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI, Request, Response
from fastapi.testclient import TestClient

from host.app import create_app
from host.twilio_security import Unanswered, signed_form
from tests.twilio_helpers import TEST_ACCOUNT_SID, make_settings, post_signed

SMS = {
    "From": "+15550100001",
    "To": "+15005550006",
    "Body": "HELP",
    "MessageSid": "SM" + "1" * 32,
    "AccountSid": TEST_ACCOUNT_SID,
}


async def _crash(request: Request) -> Response:
    await signed_form(request, request.app.state.settings)
    raise RuntimeError("a bug in a webhook")


async def _unanswered(request: Request) -> Response:
    raise Unanswered(request.url.path)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[FastAPI]:
    app = create_app(make_settings(tmp_path / "way-in.sqlite3", None))
    app.add_route("/twilio/crash", _crash, methods=["POST"])
    app.add_route("/twilio/unanswered", _unanswered, methods=["POST"])
    yield app
    app.state.store.close()


def test_a_crash_is_answered_500(app: FastAPI) -> None:
    with TestClient(app, raise_server_exceptions=False) as client:
        response = post_signed(client, "/twilio/crash", SMS)
    assert response.status_code == 500
    assert response.text == "Internal Server Error"


def test_the_crash_reaches_the_server_which_logs_it(app: FastAPI) -> None:
    with TestClient(app) as client, pytest.raises(RuntimeError, match="a bug in a webhook"):
        post_signed(client, "/twilio/crash", SMS)


def test_the_apps_exception_handlers_answer(app: FastAPI) -> None:
    with TestClient(app) as client:
        response = client.post("/twilio/unanswered", data=SMS)
    assert response.status_code == 200
    assert response.text == '<?xml version="1.0" encoding="UTF-8"?><Response />'


def test_a_wrong_signature_is_refused(app: FastAPI) -> None:
    with TestClient(app) as client:
        response = client.post("/twilio/sms", data=SMS, headers={"X-Twilio-Signature": "forged"})
    assert response.status_code == 403
    assert response.json() == {"detail": "invalid Twilio signature"}


def test_a_signed_text_is_answered(app: FastAPI) -> None:
    with TestClient(app) as client:
        response = post_signed(client, "/twilio/sms", SMS)
    assert response.status_code == 200
    assert "<Message>" in response.text


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/twilio/sms", 405),
        ("POST", "/twilio/nowhere", 404),
        ("GET", "/docs", 404),
        ("GET", "/openapi.json", 404),
        ("GET", "/healthz", 200),
    ],
)
def test_other_requests_go_fastapis_way(app: FastAPI, method: str, path: str, status: int) -> None:
    with TestClient(app) as client:
        assert client.request(method, path).status_code == status


def test_a_slash_too_many_is_redirected_as_before(app: FastAPI) -> None:
    with TestClient(app) as client:
        response = client.post("/twilio/sms/", data=SMS, follow_redirects=False)
    assert response.status_code == 307
    assert response.headers["location"].endswith("/twilio/sms")
