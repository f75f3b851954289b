"""Issue 25, hole 3: every way into the referee writes the move and the messages telling
the others in ONE transaction, so a crash between two commits cannot keep the move and
lose its news. Each way is driven for real and the database's commits are recorded
(tests/reliability/ledger.py); the media-stream ways are in tests/media/test_one_transaction.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from host.speech.tts import synthesize
from tests.reliability.ledger import Ledger
from tests.sms.conftest import Sms, build
from tests.twilio_helpers import FakeTwilio
from tests.voice.conftest import build as build_voice

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def host(tmp_path: Path, fake: FakeTwilio) -> Iterator[Sms]:
    from tests.clock import Clock

    built = build(tmp_path, fake, Clock())
    yield built
    built.app.state.store.close()


def _ledger(store: object) -> Ledger:
    from host.store import Store

    assert isinstance(store, Store)
    return Ledger(store)


def test_a_texted_move_and_its_news(host: Sms) -> None:
    ann, bob = host.new_game(2)
    ledger = _ledger(host.app.state.store)
    host.text(ann, "50")
    assert [r for r in ledger.news_with_move('"number": 50', bob) if "Ann said 50." in r]


def test_a_move_said_on_a_call_and_its_news(tmp_path: Path, fake: FakeTwilio) -> None:
    from tests.voice.test_many_phones import ANN, BOB, create

    host = build_voice(tmp_path, fake)
    try:
        ann, code = create(host, ANN, "Ann")
        host.text(BOB, f"JOIN {code} Bob")
        ann.say("start")
        ledger = _ledger(host.app.state.store)
        ann.say("fifty three")
        assert [r for r in ledger.news_with_move('"number": 53', BOB) if "Ann said 53." in r]
    finally:
        host.app.state.store.close()


def test_a_turn_that_runs_out_and_its_news(host: Sms) -> None:
    ann, _bob = host.new_game(2)
    host.text(ann, "50")
    ledger = _ledger(host.app.state.store)
    host.clock.advance(host.app.state.settings.sms_turn_timeout + 1)
    host.app.state.turn_timer.tick()
    assert [r for r in ledger.news_with_move('"kind": "timeout"', ann) if "ran out of time" in r]


def test_a_move_heard_by_the_web_table_microphone_and_its_news(host: Sms) -> None:
    from tests.web.mic import table_mic

    ann, _bob = host.new_game(2)
    host.text(ann, "50")  # Bob's turn; Bob plays by text, the table's microphone hears him
    ledger = _ledger(host.app.state.store)
    with table_mic(host) as mic:
        reply = mic.say(b"\0\0" * 16000 + synthesize("fifty two", "en", 16000) + b"\0\0" * 32000)
    assert reply["accepted"] and "Bob said 52." in reply["lines"], reply
    news = ledger.news_with_move('"number": 52', ann)
    assert [r for r in news if "Bob said 52." in r], news


def test_the_ledger_sees_news_queued_in_a_second_transaction(host: Sms) -> None:
    """The check itself: news committed after its move is not found with it."""
    ann, bob = host.new_game(2)
    ledger = _ledger(host.app.state.store)
    referee, outbound = host.app.state.referee, host.app.state.outbound
    session_id = host.app.state.lobby.member(ann).session_id
    reply = referee.handle(session_id, "50", "Ann")  # committed on its own...
    outbound.send_sms(bob, " ".join(reply.public))  # ...and its news after it
    assert ledger.news_with_move('"number": 50', bob) == []
    assert json.dumps("Ann said 50.")[1:-1] in " ".join(ledger.commits[-1].inserted("outbox"))
