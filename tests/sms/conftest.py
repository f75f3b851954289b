"""An SMS host on a real SQLite file, texted with correctly signed form posts, with a local
stand-in for Twilio's REST API receiving everything sent to the other players."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from host.app import create_app
from host.session import Table
from host.store import Store
from tests.clock import Clock
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, FakeTwilio, make_settings, post_signed

HOST_NUMBER = "+15005550006"
PHONES = [f"+1555010{i:04d}" for i in range(1, 20)]
_sids = itertools.count(1)


def new_sid() -> str:
    return f"SM{next(_sids):032x}"


def messages_of(response: Any) -> list[str]:
    """The bodies of the ``<Message>`` verbs of a TwiML answer, parsed as XML."""
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/xml")
    root = ET.fromstring(response.text)
    assert root.tag == "Response"
    assert all(child.tag == "Message" for child in root)
    return [child.text or "" for child in root]


@dataclass
class Sms:
    """Phones texting one host. ``text`` returns the sender's messages (TwiML);
    ``inbox`` what the host sent a number through the REST API."""

    app: FastAPI
    client: TestClient
    fake: FakeTwilio | None
    clock: Clock
    path: Path
    sent: dict[str, list[str]] = field(default_factory=dict)  # sid -> answer

    def post(self, phone: str, body: str, sid: str | None = None, **extra: str) -> Any:
        params = {"From": phone, "To": HOST_NUMBER, "Body": body, "MessageSid": sid or new_sid()}
        params.update(extra)
        params.update({"AccountSid": TEST_ACCOUNT_SID, "NumSegments": "1", "SmsStatus": "received"})
        response = post_signed(self.client, "/twilio/sms", params, TEST_AUTH_TOKEN)
        self.app.state.outbound.flush()  # the outbox sender's work, done here and now
        return response

    def text(self, phone: str, body: str, sid: str | None = None) -> list[str]:
        return messages_of(self.post(phone, body, sid))

    def inbox(self, phone: str) -> list[str]:
        assert self.fake is not None
        self.app.state.outbound.flush()
        return self.fake.messages_to(phone)

    def last(self, phone: str) -> str:
        box = self.inbox(phone)
        assert box, f"nothing was sent to {phone}"
        return box[-1]

    def table(self, phone: str) -> Table:
        member = self.app.state.lobby.member(phone)
        assert member is not None, f"{phone} is in no game"
        table: Table = self.app.state.referee.table(member.session_id)
        return table

    def new_game(self, players: int, mode: str = "", names: list[str] | None = None) -> list[str]:
        """NEW, JOINs and START; the phones in seat order."""
        phones = PHONES[:players]
        names = names or ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal", "Ida", "Jo"][:players]
        created = self.text(phones[0], f"NEW {mode} {names[0]}".replace("  ", " "))
        code = created[0].split()[1]
        assert code.isdigit() and len(code) == 6, created
        for phone, name in zip(phones[1:], names[1:], strict=True):
            joined = self.text(phone, f"JOIN {code} {name}")
            assert f"as {name}" in joined[0], joined
        started = self.text(phones[0], "START")
        assert started[0].startswith("#1 New game: "), started
        return phones


def build(
    tmp_path: Path, fake: FakeTwilio | None, clock: Clock, database: str | None = None, **overrides: Any
) -> Sms:
    """A host on ``database`` (a SQLite path or PostgreSQL URL; default a file in tmp_path)."""
    path = tmp_path / "gamehost.sqlite3"
    if database is not None and "://" in database:
        overrides.setdefault("database_url", database)
    elif database is not None:
        path = Path(database)
    settings = make_settings(path, fake, **overrides)
    app = create_app(settings, Store(settings.database), clock)
    return Sms(app, TestClient(app), fake, clock, path)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def sms(tmp_path: Path, fake: FakeTwilio, clock: Clock, database: str) -> Iterator[Sms]:
    host = build(tmp_path, fake, clock, database)
    yield host
    host.app.state.store.close()
