"""The voice webhooks as plain Starlette routes: each checks the signature before anything
else, reads its query values as FastAPI did, and answers a signed form without a CallSid
with empty TwiML."""

from __future__ import annotations

import pytest

from host.channels.voice import ROUTES
from host.channels.voice.steps import MENU_TRIES
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, post_signed, sign
from tests.voice.conftest import BASE, HOST_NUMBER, Host, new_call_sid, parse_twiml, says

PATHS = [f"/twilio/voice{path}" for path, _ in ROUTES]


def _calls(host: Host) -> int:
    return int(host.app.state.store.execute("SELECT COUNT(*) AS n FROM voice_calls")[0]["n"])


def _params(**extra: str) -> dict[str, str]:
    return {
        "CallSid": new_call_sid(),
        "AccountSid": TEST_ACCOUNT_SID,
        "From": "+15550100009",
        "To": HOST_NUMBER,
        "CallStatus": "completed",
        **extra,
    }


@pytest.mark.parametrize("path", PATHS)
def test_every_voice_route_refuses_an_unsigned_or_forged_post(host: Host, path: str) -> None:
    params = _params()
    assert host.client.post(path, data=params).status_code == 403
    forged = host.client.post(path, data=params, headers={"X-Twilio-Signature": "bm90IGEgc2lnbmF0dXJl"})
    assert forged.status_code == 403
    assert post_signed(host.client, path, params, "not-the-token", BASE).status_code == 403
    # Signed for another route (a captured request replayed to this one).
    other = "/twilio/voice/status" if path != "/twilio/voice/status" else "/twilio/voice"
    replayed = host.client.post(path, data=params, headers={"X-Twilio-Signature": sign(BASE + other, params)})
    assert replayed.status_code == 403
    assert _calls(host) == 0


@pytest.mark.parametrize("path", ["/twilio/voice", "/twilio/voice/move?t=x.1.1", "/twilio/voice/status"])
def test_a_signed_form_without_its_call_sid_is_answered_with_empty_twiml(host: Host, path: str) -> None:
    params = {k: v for k, v in _params().items() if k != "CallSid"}
    response = post_signed(host.client, path, params, TEST_AUTH_TOKEN, BASE)
    assert response.status_code == 200
    root = parse_twiml(response.text)
    assert list(root) == []
    assert _calls(host) == 0


@pytest.mark.parametrize("tries", ["2", "2.0", "+2"])
def test_a_query_number_is_read_as_fastapi_read_it(host: Host, tries: str) -> None:
    """``n`` is the menu's tries so far: one more quiet answer and the call is ended."""
    assert int(float(tries)) == MENU_TRIES - 1
    params = _params(CallStatus="in-progress")
    response = post_signed(host.client, f"/twilio/voice/menu?n={tries}", params, TEST_AUTH_TOKEN, BASE)
    root = parse_twiml(response.text)
    assert root.find("Hangup") is not None, response.text
    assert "Goodbye" in says(root)


@pytest.mark.parametrize("query", ["silence?t=x.1.1&end=abc", "wait?g=yes", "room-name?i=", "code?quiet=1.5"])
def test_a_badly_typed_query_value_on_any_route_is_an_apology(host: Host, query: str) -> None:
    params = _params(CallStatus="in-progress")
    response = post_signed(host.client, f"/twilio/voice/{query}", params, TEST_AUTH_TOKEN, BASE)
    assert response.status_code == 200
    root = parse_twiml(response.text)
    assert "went wrong" in says(root)
    assert [e.text for e in root.iter("Redirect")] == [f"{BASE}/twilio/voice?again=1"]
    assert _calls(host) == 0  # refused before the call was looked up


def test_a_status_callback_for_a_call_we_never_saw_changes_nothing(host: Host) -> None:
    for status in ("ringing", "completed"):
        params = _params(CallStatus=status)
        response = post_signed(host.client, "/twilio/voice/status", params, TEST_AUTH_TOKEN, BASE)
        assert response.status_code == 200
        assert list(parse_twiml(response.text)) == []
    assert _calls(host) == 0
