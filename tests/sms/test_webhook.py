"""The webhook itself: signatures, TwiML, and bodies that are not a move."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from host.channels.sms.text import fits_one_segment
from tests.sms.conftest import HOST_NUMBER, PHONES, Clock, Sms, build, messages_of, new_sid
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, FakeTwilio, post_signed, sign


def _count(sms: Sms, table: str) -> int:
    return int(sms.app.state.store.execute(f"SELECT COUNT(*) AS n FROM {table}")[0]["n"])


def test_healthz(sms: Sms) -> None:
    assert sms.client.get("/healthz").json() == {"status": "ok"}


def test_a_forged_signature_gets_403_and_changes_nothing(sms: Sms) -> None:
    params = {"From": PHONES[0], "To": HOST_NUMBER, "Body": "NEW", "MessageSid": new_sid()}
    forged = post_signed(sms.client, "/twilio/sms", params, token="not-the-auth-token")
    missing = sms.client.post("/twilio/sms", data=params)
    # Signed for other parameters than the ones posted.
    other = {**params, "Body": "JOIN 123456"}
    replayed = sms.client.post(
        "/twilio/sms",
        data=other,
        headers={"X-Twilio-Signature": sign("http://testserver/twilio/sms", params)},
    )
    assert [forged.status_code, missing.status_code, replayed.status_code] == [403, 403, 403]
    assert _count(sms, "sessions") == 0 and _count(sms, "members") == 0 and _count(sms, "replies") == 0
    assert sms.fake is not None and sms.fake.messages == []


def test_the_signed_url_comes_from_gamehost_public_url(
    tmp_path: Path, fake: FakeTwilio, clock: Clock
) -> None:
    public = "https://games.example.org/base"
    host = build(tmp_path, fake, clock, public_url=public)
    params = {"From": PHONES[0], "To": HOST_NUMBER, "Body": "HELP", "MessageSid": new_sid()}
    params["AccountSid"] = TEST_ACCOUNT_SID
    # Signed for the tunnel's address, as Twilio sees it: accepted.
    ok = post_signed(host.client, "/twilio/sms", params, base_url=public)
    # Signed for the address the app sees behind the proxy: refused.
    wrong = post_signed(host.client, "/twilio/sms", params, base_url="http://testserver")
    assert "NEW" in messages_of(ok)[0]
    assert wrong.status_code == 403


def test_repeated_form_keys_are_part_of_the_signature(sms: Sms) -> None:
    params = [("From", PHONES[0]), ("To", HOST_NUMBER), ("Body", "HELP"), ("MessageSid", new_sid())]
    params += [("AccountSid", TEST_ACCOUNT_SID)]
    params += [("MediaUrl0", "https://a.example/1"), ("MediaUrl0", "https://a.example/2")]
    assert messages_of(post_signed(sms.client, "/twilio/sms", params))
    # Dropping one of the repeated values breaks it.
    signature = sign("http://testserver/twilio/sms", params)
    data: dict[str, list[str]] = {}
    for k, v in params[:-1]:
        data.setdefault(k, []).append(v)
    response = sms.client.post("/twilio/sms", data=data, headers={"X-Twilio-Signature": signature})
    assert response.status_code == 403


def test_switching_signatures_off_is_explicit_and_warned_about(
    tmp_path: Path, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    host = build(tmp_path, None, clock, validate_signatures=False)
    with caplog.at_level("WARNING"), TestClient(host.app) as client:
        response = client.post("/twilio/sms", data={"From": PHONES[0], "To": HOST_NUMBER, "Body": "HELP"})
    assert "NEW" in messages_of(response)[0]  # unsigned, and still answered
    assert any("VALIDATE_SIGNATURES is off" in r.getMessage() for r in caplog.records)


GARBAGE = [
    "",
    "   ",
    "x" * 10_000,
    "7" * 10_000,
    "\x00\x01\x02\xff\xfe binary \x1b[31m",
    "".join(chr(c) for c in range(0x80, 0x180)),
    "🎲🎲🎲",
    "👍",
    "五十三",
    "пятьдесят три",
    "خمسون",
    "%s %n {} {player} <Response><Message>hi</Message></Response>",
    "JOIN " + "9" * 5000,
    "NEW " + "🎲" * 300,
]


@pytest.mark.parametrize("body", GARBAGE, ids=range(len(GARBAGE)))
def test_garbage_gets_a_polite_single_segment_answer(sms: Sms, body: str) -> None:
    # Once from a stranger, once from a player whose turn it is, once from one waiting.
    ann, bob = sms.new_game(2)
    for phone in (PHONES[5], ann, bob):
        answer = sms.text(phone, body)
        assert answer, f"no answer to {body[:20]!r} from {phone}"
        assert all(fits_one_segment(m) for m in answer), answer
    # Still Ann's turn, nothing ruled: garbage is never a move.
    table = sms.table(ann)
    assert table.running and table.state is not None and table.state.turn == 1


def test_a_post_without_from_is_answered_with_nothing(sms: Sms) -> None:
    params = {"To": HOST_NUMBER, "Body": "NEW", "MessageSid": new_sid(), "AccountSid": TEST_ACCOUNT_SID}
    assert messages_of(post_signed(sms.client, "/twilio/sms", params, TEST_AUTH_TOKEN)) == []


def test_a_failure_inside_is_an_apology_not_a_5xx(sms: Sms, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(sms.app.state.lobby, "create", broken)
    answer = sms.text(PHONES[0], "NEW")
    assert answer == ["Sorry, something went wrong here. Please text that again."]
    assert _count(sms, "replies") == 0  # nothing stored: Twilio's retry will be handled afresh
