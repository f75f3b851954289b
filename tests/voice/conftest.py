"""Phones calling a host on a real SQLite file: every webhook is a correctly signed form
post (the SDK's ``RequestValidator``), every answer is parsed as TwiML, and live call
updates go through the real twilio ``Client`` to a local stand-in for Twilio's API."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from host.app import create_app
from host.session import Table
from host.store import Store
from tests.clock import Clock
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, FakeTwilio, make_settings, post_signed

HOST_NUMBER = "+15005550006"
BASE = "http://testserver"
_sids = itertools.count(1)


def new_call_sid() -> str:
    return f"CA{next(_sids):032x}"


def parse_twiml(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == "Response", text
    return root


def says(root: ET.Element) -> str:
    """Everything a caller hears from one TwiML document, in order."""
    return " ".join((e.text or "").strip() for e in root.iter("Say"))


def query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


@dataclass
class Host:
    app: FastAPI
    client: TestClient
    fake: FakeTwilio | None
    path: Path
    clock: Clock

    @property
    def referee(self) -> Any:
        return self.app.state.referee

    @property
    def lobby(self) -> Any:
        return self.app.state.lobby

    def phone(self, number: str) -> Phone:
        return Phone(self, number)

    def table_of(self, session_id: str) -> Table:
        table: Table = self.referee.table(session_id)
        return table

    def inputs(self, session_id: str) -> int:
        """How many moves were ruled (a read-back asked is logged too, but rules nothing)."""
        inputs = self.app.state.store.inputs(session_id)
        return sum(1 for i in inputs if i.body["kind"] not in ("ask", "drop"))

    def text(self, number: str, body: str) -> list[str]:
        """An SMS from ``number`` through the SMS webhook; the bodies of its answer."""
        params = {
            "From": number,
            "To": HOST_NUMBER,
            "Body": body,
            "MessageSid": f"SM{next(_sids):032x}",
            "AccountSid": TEST_ACCOUNT_SID,
            "NumSegments": "1",
            "SmsStatus": "received",
        }
        response = post_signed(self.client, "/twilio/sms", params, TEST_AUTH_TOKEN)
        self.app.state.outbound.flush()
        assert response.status_code == 200, response.text
        return [m.text or "" for m in parse_twiml(response.text).iter("Message")]


@dataclass
class Phone:
    """One caller. ``twiml`` is what their call is executing now: the answer to their last
    request, or the latest live update the host sent (``update()``)."""

    host: Host
    number: str
    sid: str = field(default_factory=new_call_sid)
    twiml: ET.Element | None = None
    updates_seen: int = 0
    # Twilio's caller-ID attestation (None: it sends none). A-level by default: the caller
    # is the number (tests/voice/test_caller_pin.py has the callers it does not vouch for).
    stir_verstat: str | None = "TN-Validation-Passed-A"
    to: str = HOST_NUMBER  # the number of ours called (its language: GAMEHOST_NUMBER_LANGS)

    def params(self, **extra: str) -> dict[str, str]:
        stir = {"StirVerstat": self.stir_verstat} if self.stir_verstat is not None else {}
        return {
            "CallSid": self.sid,
            "AccountSid": TEST_ACCOUNT_SID,
            "From": self.number,
            "To": self.to,
            "CallStatus": "in-progress",
            "Direction": "inbound",
            "ApiVersion": "2010-04-01",
            **stir,
            **extra,
        }

    def post(self, url: str, **extra: str) -> ET.Element:
        assert url.startswith(BASE), url
        path = url[len(BASE) :]
        response = post_signed(self.host.client, path, self.params(**extra), TEST_AUTH_TOKEN, BASE)
        self.host.app.state.outbound.flush()  # the outbox sender's work, done here and now
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("application/xml")
        self.twiml = parse_twiml(response.text)
        return self.twiml

    def call(self) -> ET.Element:
        self.updates_seen = len(self.updates())
        return self.post(f"{BASE}/twilio/voice", CallStatus="ringing")

    def call_again(self) -> ET.Element:
        self.sid = new_call_sid()
        return self.call()

    # -- what the call is doing -------------------------------------------------------------

    @property
    def gather(self) -> ET.Element:
        assert self.twiml is not None
        gathers = list(self.twiml.iter("Gather"))
        assert len(gathers) == 1, ET.tostring(self.twiml)
        return gathers[0]

    @property
    def heard(self) -> str:
        assert self.twiml is not None
        return says(self.twiml)

    @property
    def verbs(self) -> list[str]:
        assert self.twiml is not None
        return [child.tag for child in self.twiml]

    def redirect_url(self) -> str:
        assert self.twiml is not None
        redirects = [e for e in self.twiml if e.tag == "Redirect"]
        assert redirects, ET.tostring(self.twiml)
        assert redirects[-1].get("method") == "POST"
        return (redirects[-1].text or "").strip()

    # -- what the caller does ---------------------------------------------------------------

    def say(self, speech: str, confidence: float | None = 0.93) -> ET.Element:
        extra = {"SpeechResult": speech}
        if confidence is not None:
            extra["Confidence"] = f"{confidence:.2f}"
        return self.post(self.gather.get("action") or "", **extra)

    def press(self, digits: str) -> ET.Element:
        return self.post(self.gather.get("action") or "", Digits=digits)

    def nothing(self) -> ET.Element:
        """The ``<Gather>`` times out: Twilio goes on to the ``<Redirect>`` after it."""
        return self.post(self.redirect_url())

    def empty(self) -> ET.Element:
        """A ``<Gather actionOnEmptyResult="true">`` posts its action with no input."""
        assert self.gather.get("actionOnEmptyResult") == "true"
        return self.post(self.gather.get("action") or "")

    def hang_up(self, status: str = "completed") -> Any:
        response = post_signed(
            self.host.client,
            "/twilio/voice/status",
            self.params(CallStatus=status, CallDuration="42"),
            TEST_AUTH_TOKEN,
            BASE,
        )
        self.host.app.state.outbound.flush()
        assert response.status_code == 200, response.text
        return response

    # -- live updates -----------------------------------------------------------------------

    def updates(self) -> list[str]:
        """TwiML the host sent to this call: to the stand-in for Twilio, or to the outbox."""
        fake = self.host.fake
        self.host.app.state.outbound.flush()
        if fake is not None:
            return [u["Twiml"] for u in fake.call_updates if u["call_sid"] == self.sid]
        items = self.host.app.state.outbound.items(limit=1000, to=self.sid)
        return [i.body for i in items if i.kind == "call"]

    def update(self) -> ET.Element:
        """Take the newest live update as what the call now executes; there must be one."""
        updates = self.updates()
        assert len(updates) > self.updates_seen, f"no new update for {self.number}"
        self.updates_seen = len(updates)
        self.twiml = parse_twiml(updates[-1])
        return self.twiml

    def no_update(self) -> None:
        assert len(self.updates()) == self.updates_seen, f"unexpected update for {self.number}"


def build(tmp_path: Path, fake: FakeTwilio | None, database: str | None = None, **overrides: Any) -> Host:
    """A host on ``database`` (a SQLite path or PostgreSQL URL; default a file in tmp_path)."""
    path = tmp_path / "gamehost.sqlite3"
    if database is not None and "://" in database:
        overrides.setdefault("database_url", database)
    elif database is not None:
        path = Path(database)
    clock = Clock()
    settings = make_settings(path, fake, **overrides)
    app = create_app(settings, Store(settings.database), clock)
    return Host(app, TestClient(app), fake, path, clock)


@pytest.fixture
def host(tmp_path: Path, fake: FakeTwilio, database: str) -> Iterator[Host]:
    built = build(tmp_path, fake, database)
    yield built
    built.app.state.store.close()


@pytest.fixture
def offline(tmp_path: Path) -> Iterator[Host]:
    """No Twilio credentials: live updates land in the local outbox."""
    built = build(tmp_path, None)
    yield built
    built.app.state.store.close()
