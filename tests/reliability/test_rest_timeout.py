"""Item 9: a hung Twilio API cannot freeze anything. Every REST call has a timeout, and a
call that timed out is retried later instead of being lost."""

from __future__ import annotations

import time
from pathlib import Path

from host.outbound import Outbound
from host.store import Store
from tests.clock import Clock
from tests.sms.conftest import Sms
from tests.twilio_helpers import FakeTwilio, make_settings


def test_the_rest_client_has_the_configured_timeout(tmp_path: Path, fake: FakeTwilio) -> None:
    settings = make_settings(tmp_path / "t.sqlite3", fake, twilio_timeout=2.5)
    client = Outbound(settings, Store(settings.db)).client
    assert client is not None and client.http_client.timeout == 2.5


def test_a_hung_api_times_out_and_the_message_is_sent_later(
    tmp_path: Path, fake: FakeTwilio, clock: Clock
) -> None:
    settings = make_settings(tmp_path / "t.sqlite3", fake, twilio_timeout=1.0, outbox_backoff=1.0)
    out = Outbound(settings, Store(settings.db), clock=clock)
    fake.hang_until = time.monotonic() + 3.0  # well past the timeout (short timeouts fail a busy machine)
    out.send_sms("+15550100001", "your turn")
    assert out.flush() == 1
    item = out.items()[0]
    # No answer: Twilio may have it, so it is looked up before being sent again.
    assert item.status == "unknown" and "imeout" in (item.detail or ""), item.detail
    fake.hang_until = 0.0
    clock.advance(1.0)
    assert out.flush() == 1  # looked up: not there, but Twilio may still be making it
    assert [method for method, _ in fake.requests] == ["GET"] and out.items()[0].status == "unknown"
    clock.advance(out.settle)
    assert out.flush() == 1
    assert [method for method, _ in fake.requests] == ["GET", "GET", "POST"]  # looked up, then sent
    assert [m["Body"] for m in fake.messages] == ["your turn"]
    assert out.items()[0].status == "sent" and out.items()[0].attempts == 2


def test_a_webhook_never_waits_for_the_rest_api(sms: Sms, fake: FakeTwilio) -> None:
    ann, bob = sms.new_game(2)
    fake.unavailable = True  # would fail any send made on the request's path
    from tests.reliability.test_outbox import _text

    _text(sms, ann, "50")
    assert fake.refused == 0  # nothing was sent during the request
    assert [i.status for i in sms.app.state.outbound.items(to=bob)][-1] == "pending"
