"""Item 8: no message is lost. The others' messages are outbox rows written in the move's
own transaction; a sender delivers them, retries with backoff, dead-letters after N tries,
records Twilio's SID, and a restart never sends a row with a SID again."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from host import cli
from host.outbound import Outbound
from tests.clock import Clock
from tests.sms.conftest import HOST_NUMBER, Sms, build, new_sid
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, FakeTwilio, make_settings, post_signed


def _text(sms: Sms, phone: str, body: str) -> None:
    """A signed text, and nothing else: no sender runs here unless the test starts one."""
    params = {"From": phone, "To": HOST_NUMBER, "Body": body, "MessageSid": new_sid()}
    params["AccountSid"] = TEST_ACCOUNT_SID
    assert post_signed(sms.client, "/twilio/sms", params, TEST_AUTH_TOKEN).status_code == 200


def _rows(sms: Sms) -> list[tuple[str, str, str]]:
    return [(i.to, i.status, i.body) for i in sms.app.state.outbound.items(limit=1000)]


def test_the_news_of_a_move_is_in_the_outbox_when_the_answer_goes_out(sms: Sms, fake: FakeTwilio) -> None:
    ann, bob, cy = sms.new_game(3)
    before = len(fake.messages)
    _text(sms, ann, "50")
    # Committed with the move, not yet sent: the request did not wait on Twilio.
    pending = [(to, body) for to, status, body in _rows(sms) if status == "pending"]
    assert sorted(to for to, _ in pending) == sorted([bob, cy])
    assert all(body.startswith("#2 Ann said 50.") for _, body in pending)
    assert len(fake.messages) == before
    sms.app.state.outbound.flush()
    assert [m for m in fake.messages_to(bob) if m.startswith("#2 Ann said 50.")]
    items = sms.app.state.outbound.items(limit=1000)
    sent = [i for i in items if i.to in (bob, cy) and i.body.startswith("#2")]
    assert {i.status for i in sent} == {"sent"} and all(i.sid and i.sid.startswith("SM") for i in sent)


def test_a_move_that_fails_to_commit_tells_nobody(sms: Sms, monkeypatch: pytest.MonkeyPatch) -> None:
    ann, _bob = sms.new_game(2)
    store = sms.app.state.store
    rows = len(_rows(sms))
    inputs = len(store.execute("SELECT * FROM inputs"))

    def broken(*args: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(store, "save_reply", broken)  # the last write of the transaction
    _text(sms, ann, "50")
    assert len(_rows(sms)) == rows  # the news was rolled back with the move
    assert len(store.execute("SELECT * FROM inputs")) == inputs


def test_the_sender_started_with_the_app_delivers_after_a_crash(
    tmp_path: Path, fake: FakeTwilio, clock: Clock
) -> None:
    first = build(tmp_path, fake, clock)
    ann, bob = first.new_game(2)
    before = len(fake.messages_to(bob))
    _text(first, ann, "50")  # committed; the process "dies" before anything is sent
    first.app.state.store.close()

    second = build(tmp_path, fake, clock)  # a new process on the same file
    count = len(fake.messages)
    with TestClient(second.app):  # its lifespan starts the sender thread
        assert fake.wait_for(messages=count + 1, timeout=10)
    told = [m for m in fake.messages_to(bob)[before:] if m.startswith("#2 Ann said 50.")]
    assert len(told) == 1
    second.app.state.store.close()


def _outbound(tmp_path: Path, fake: FakeTwilio, clock: Clock, **overrides: object) -> Outbound:
    from host.store import Store

    settings = make_settings(tmp_path / "o.sqlite3", fake, **overrides)
    return Outbound(settings, Store(settings.db), clock=clock)


def test_failures_back_off_then_go_dead(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> None:
    out = _outbound(tmp_path, fake, clock, outbox_attempts=3, outbox_backoff=10.0)
    fake.unavailable = True
    row = out.send_sms("+15550100001", "hello", from_=HOST_NUMBER)
    assert out.flush() == 1
    item = out.items()[0]
    assert (item.id, item.status, item.attempts) == (row, "pending", 1) and "503" in (item.detail or "")
    assert out.flush() == 0  # not due yet: backing off
    clock.advance(10)
    assert out.flush() == 1 and out.items()[0].attempts == 2
    clock.advance(19)
    assert out.flush() == 0  # the second wait is twice as long
    clock.advance(1)
    assert out.flush() == 1
    assert out.items()[0].status == "dead" and out.items()[0].attempts == 3
    clock.advance(1000)
    assert out.flush() == 0 and fake.messages == []


def test_a_recovered_api_gets_each_message_once(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> None:
    out = _outbound(tmp_path, fake, clock, outbox_backoff=1.0)
    fake.unavailable = True
    for i in range(3):
        out.send_sms(f"+1555010000{i}", f"message {i}")
    out.flush()
    fake.unavailable = False
    clock.advance(1)
    out.flush()
    clock.advance(100)
    out.flush()
    assert sorted(m["Body"] for m in fake.messages) == ["message 0", "message 1", "message 2"]
    assert {i.status for i in out.items()} == {"sent"}


def test_a_restart_resends_only_rows_without_a_sid(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> None:
    out = _outbound(tmp_path, fake, clock, twilio_timeout=5.0)
    sent = out.send_sms("+15550100001", "sent before the crash")
    lost = out.send_sms("+15550100002", "claimed, then the process died")
    claimed = {i.id: i for i in out.claim()}
    out.deliver(claimed[sent])  # Twilio's SID recorded
    # The process dies with ``lost`` marked sending and no SID. A new one starts:
    again = _outbound(tmp_path, fake, clock, twilio_timeout=5.0)
    assert again.flush() == 0  # the claim may still be live: not taken over yet
    clock.advance(5.0 + 5.0 + 0.1)
    assert again.flush() == 1
    assert [m["Body"] for m in fake.messages] == ["sent before the crash", "claimed, then the process died"]
    assert {i.id: i.status for i in again.items()} == {sent: "sent", lost: "sent"}
    assert all(i.sid for i in again.items())


def test_the_outbox_command_shows_what_was_said(tmp_path: Path, fake: FakeTwilio, clock: Clock) -> None:
    out = _outbound(tmp_path, fake, clock)
    twiml = '<?xml version="1.0"?><Response><Say>Ann said 50. Bob, your turn.</Say></Response>'
    out.update_call("CA" + "1" * 32, twiml, summary="Ann said 50. Bob, your turn.")
    fake.fail_to.add("+15550100009")
    out.send_sms("+15550100009", "#2 Ann said 50.")
    out.flush()
    result = CliRunner().invoke(cli.app, ["outbox", "--db", str(tmp_path / "o.sqlite3")])

    assert result.exit_code == 0, result.output
    assert "Ann said 50. Bob, your turn." in result.output
    assert "<Response>" not in result.output and "<Say>" not in result.output
    assert "sent" in result.output and "dead" in result.output and "21610" in result.output


def test_a_message_twilio_took_before_the_crash_is_not_sent_again(
    tmp_path: Path, fake: FakeTwilio, clock: Clock
) -> None:
    out = _outbound(tmp_path, fake, clock, twilio_timeout=5.0)
    row = out.send_sms("+15550100001", "#7 Ann said 50.")
    (item,) = out.claim()
    client = out.client
    assert client is not None
    client.messages.create(to=item.to, from_=item.from_, body=item.body)  # Twilio took it...
    # ...and the process died before the SID was written. The next one asks Twilio first.
    again = _outbound(tmp_path, fake, clock, twilio_timeout=5.0)
    clock.advance(10.1)
    assert again.flush() == 1
    assert [m["Body"] for m in fake.messages] == ["#7 Ann said 50."]
    (done,) = again.items()
    assert (done.id, done.status, done.sid) == (row, "sent", fake.messages[0]["sid"])
