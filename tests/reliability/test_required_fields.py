"""Item 3: a signed form with a field renamed keeps its signature; it must change nothing,
so a captured move cannot be replayed past MessageSid de-duplication."""

from __future__ import annotations

from pathlib import Path

from tests.sms.conftest import HOST_NUMBER, Sms, build, messages_of, new_sid
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, post_signed
from tests.voice.conftest import BASE


def _inputs(sms: Sms) -> int:
    return int(sms.app.state.store.execute("SELECT COUNT(*) AS n FROM inputs")[0]["n"])


def test_a_text_without_its_message_sid_changes_nothing(sms: Sms) -> None:
    ann, _bob = sms.new_game(2)
    before = _inputs(sms)
    # Signed as posted: only the name of the SID field is wrong.
    params = {"From": ann, "To": HOST_NUMBER, "Body": "50", "MessageSi": new_sid()}
    params["AccountSid"] = TEST_ACCOUNT_SID
    for _ in range(2):  # the capture, replayed
        assert messages_of(post_signed(sms.client, "/twilio/sms", params, TEST_AUTH_TOKEN)) == []
    assert _inputs(sms) == before
    table = sms.table(ann)
    assert table.state is not None and table.state.turn == 1


def test_every_field_twilio_always_sends_is_required(sms: Sms) -> None:
    full = {
        "From": "+15550100001",
        "To": HOST_NUMBER,
        "Body": "NEW Ann",
        "MessageSid": new_sid(),
        "AccountSid": TEST_ACCOUNT_SID,
    }
    for missing in ("MessageSid", "AccountSid", "From", "To"):
        params = {k: v for k, v in full.items() if k != missing}
        assert messages_of(post_signed(sms.client, "/twilio/sms", params, TEST_AUTH_TOKEN)) == []
    assert sms.app.state.store.execute("SELECT COUNT(*) AS n FROM sessions")[0]["n"] == 0
    # The whole form is answered; an empty Body is a text Twilio really sends.
    assert messages_of(post_signed(sms.client, "/twilio/sms", full, TEST_AUTH_TOKEN))
    assert messages_of(post_signed(sms.client, "/twilio/sms", {**full, "Body": "", "MessageSid": new_sid()}))


def test_a_replayed_message_sid_is_ruled_once(sms: Sms) -> None:
    ann, _bob = sms.new_game(2)
    before = _inputs(sms)
    sid = new_sid()
    first = sms.text(ann, "50", sid=sid)
    assert sms.text(ann, "50", sid=sid) == first
    assert _inputs(sms) == before + 1


def test_a_call_without_account_sid_changes_nothing(tmp_path: Path, clock: object) -> None:
    sms = build(tmp_path, None, clock)  # type: ignore[arg-type]
    params = {"CallSid": "CA" + "1" * 32, "From": "+15550100001", "To": HOST_NUMBER, "CallStatus": "ringing"}
    response = post_signed(sms.client, "/twilio/voice", params, TEST_AUTH_TOKEN, BASE)
    assert response.status_code in (200, 403)
    assert "<Gather" not in response.text and "<Say" not in response.text
    assert sms.app.state.store.execute("SELECT COUNT(*) AS n FROM voice_calls")[0]["n"] == 0
