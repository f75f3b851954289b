"""Item 11: input that used to stop the host (a 500, a crash at start, a bare 422)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from host.config import Settings
from tests.sms.conftest import HOST_NUMBER, PHONES, Sms, new_sid
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, post_signed, sign

CALL = "CA" + "7" * 32


def _count(sms: Sms, table: str) -> int:
    return int(sms.app.state.store.execute(f"SELECT COUNT(*) AS n FROM {table}")[0]["n"])


def test_a_multipart_body_is_refused_not_a_500(sms: Sms) -> None:
    params = {"From": PHONES[0], "To": HOST_NUMBER, "Body": "NEW", "MessageSid": new_sid()}
    params["AccountSid"] = TEST_ACCOUNT_SID
    signature = sign("http://testserver/twilio/sms", params)
    response = sms.client.post(
        "/twilio/sms",
        data=params,
        files={"MediaUrl0": ("x.txt", b"not a form field", "text/plain")},
        headers={"X-Twilio-Signature": signature},
    )
    assert response.status_code == 403
    assert _count(sms, "sessions") == 0


def _voice(sms: Sms, path: str, **extra: str) -> ET.Element:
    params = {"CallSid": CALL, "AccountSid": TEST_ACCOUNT_SID, "From": PHONES[3], "To": HOST_NUMBER, **extra}
    response = post_signed(sms.client, path, params, TEST_AUTH_TOKEN)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/xml")
    return ET.fromstring(response.text)


def _said(root: ET.Element) -> str:
    return " ".join(e.text or "" for e in root.iter("Say"))


@pytest.mark.parametrize("digits", ["7" * 5000, "\u00b2", "3" * 40])
def test_absurd_keys_for_a_head_count_are_not_understood(sms: Sms, digits: str) -> None:
    root = _voice(sms, "/twilio/voice/room", Digits=digits)
    assert "went wrong" not in _said(root)
    assert list(root.iter("Gather")), "asked again"


def test_empty_limits_in_the_environment_mean_off(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in (
        "GAMEHOST_SMS_TURN_TIMEOUT",
        "GAMEHOST_UNDO_GRACE",
        "GAMEHOST_TABLE_UNDO_GRACE",
        "GAMEHOST_SMS_UNDO_GRACE",
        "GAMEHOST_VOICE_TURN_TIMEOUT",
        "GAMEHOST_PUBLIC_URL",
    ):
        monkeypatch.setenv(name, "")
    settings = Settings(db=tmp_path / "db.sqlite3")
    assert settings.sms_turn_timeout is None
    assert settings.table_undo_grace is None and settings.sms_undo_grace is None
    assert settings.voice_turn_timeout is None and settings.public_url is None


def test_a_badly_typed_signed_query_value_gets_a_spoken_apology(sms: Sms) -> None:
    root = _voice(sms, "/twilio/voice/menu?n=abc")
    assert "went wrong" in _said(root)
    redirect = [e.text for e in root.iter("Redirect")]
    assert redirect and redirect[0] is not None and redirect[0].endswith("/twilio/voice?again=1")
    # Unsigned, the same request is still refused before anything else.
    unsigned = {"CallSid": CALL, "AccountSid": TEST_ACCOUNT_SID}
    response = sms.client.post("/twilio/voice/menu?n=abc", data=unsigned)
    assert response.status_code == 403


def test_a_huge_query_number_is_an_apology_not_a_crash(sms: Sms) -> None:
    root = _voice(sms, "/twilio/voice/room-name?i=" + "9" * 5000)
    assert _said(root)
    assert list(root.iter("Gather")) or list(root.iter("Redirect"))
