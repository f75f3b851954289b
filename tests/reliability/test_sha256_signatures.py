"""Item 5: webhooks signed with HMAC-SHA256 (named in X-Twilio-Webhooks-Signature-Settings)
are accepted as well as the Auth Token's HMAC-SHA1; a wrong signature of either kind is not."""

from __future__ import annotations

from pathlib import Path

from twilio.request_validator import RequestValidator

from tests.sms.conftest import HOST_NUMBER, PHONES, Sms, build, messages_of, new_sid
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN

URL = "http://testserver/twilio/sms"
SETTINGS = "X-Twilio-Webhooks-Signature-Settings"


def _params(body: str = "HELP") -> dict[str, str]:
    params = {"From": PHONES[0], "To": HOST_NUMBER, "Body": body, "MessageSid": new_sid()}
    return {**params, "AccountSid": TEST_ACCOUNT_SID}


def _post(sms: Sms, params: dict[str, str], key: str, algorithm: str | None) -> int:
    signature = RequestValidator(key).compute_signature(URL, params, algorithm)
    headers = {"X-Twilio-Signature": signature}
    if algorithm is not None:
        headers[SETTINGS] = f"key=webhooks_sharedkey_test,algorithm={algorithm}"
    response = sms.client.post("/twilio/sms", data=params, headers=headers)
    if response.status_code == 200:
        assert messages_of(response), response.text
    return int(response.status_code)


def test_sha256_and_sha1_signatures_are_both_accepted(sms: Sms) -> None:
    assert _post(sms, _params(), TEST_AUTH_TOKEN, "HMAC_SHA256") == 200
    assert _post(sms, _params(), TEST_AUTH_TOKEN, None) == 200
    assert _post(sms, _params(), TEST_AUTH_TOKEN, "HMAC_SHA1") == 200


def test_wrong_signatures_of_either_kind_are_refused(sms: Sms) -> None:
    assert _post(sms, _params("NEW"), "not-the-key", "HMAC_SHA256") == 403
    assert _post(sms, _params("NEW"), "not-the-key", None) == 403
    # A SHA-1 signature presented as SHA-256 (and the reverse) is wrong too.
    params = _params("NEW")
    sha1 = RequestValidator(TEST_AUTH_TOKEN).compute_signature(URL, params)
    response = sms.client.post(
        "/twilio/sms", data=params, headers={"X-Twilio-Signature": sha1, SETTINGS: "algorithm=HMAC_SHA256"}
    )
    assert response.status_code == 403
    # An algorithm we do not know is refused, whatever the signature.
    response = sms.client.post(
        "/twilio/sms", data=params, headers={"X-Twilio-Signature": sha1, SETTINGS: "algorithm=HMAC_MD5"}
    )
    assert response.status_code == 403
    assert sms.app.state.store.execute("SELECT COUNT(*) AS n FROM sessions")[0]["n"] == 0


def test_a_shared_key_signs_sha256_webhooks(tmp_path: Path, clock: object) -> None:
    sms = build(tmp_path, None, clock, twilio_webhook_key="shared-key-secret")  # type: ignore[arg-type]
    assert _post(sms, _params(), "shared-key-secret", "HMAC_SHA256") == 200
    assert _post(sms, _params(), TEST_AUTH_TOKEN, None) == 200
