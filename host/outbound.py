"""Messages and call updates not triggered by an incoming request.

With Twilio credentials they go through the twilio REST ``Client``; without, into a local
outbox table (``gamehost outbox`` shows it) so everything can be tried without an account.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from host.config import Settings
from host.store import Store

log = logging.getLogger(__name__)

OUTBOX_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,          -- 'sms' or 'call'
    to_addr TEXT NOT NULL,       -- phone number, or call SID for 'call'
    body TEXT NOT NULL,          -- message text, or TwiML for 'call'
    status TEXT NOT NULL,        -- 'stored' (no credentials), 'sent', 'failed'
    detail TEXT,
    at REAL NOT NULL
);
"""


@dataclass(frozen=True)
class OutboxItem:
    id: int
    kind: str
    to: str
    body: str
    status: str
    detail: str | None
    at: float


class Outbound:
    def __init__(self, settings: Settings, store: Store, client: Any | None = None) -> None:
        self.settings = settings
        self.store = store
        store.ensure_schema(OUTBOX_SCHEMA)
        self._client = client

    @property
    def client(self) -> Any | None:
        """The twilio REST client, or None when no credentials are configured."""
        if self._client is None and self.settings.twilio_account_sid and self.settings.twilio_auth_token:
            from twilio.rest import Client

            client = Client(
                self.settings.twilio_account_sid, self.settings.twilio_auth_token.get_secret_value()
            )
            if self.settings.twilio_api_base:
                # Tests and local stand-ins: the SDK's own code runs, only the host differs.
                client.api.base_url = self.settings.twilio_api_base.rstrip("/")
            self._client = client
        return self._client

    def _record(self, kind: str, to: str, body: str, status: str, detail: str | None = None) -> None:
        self.store.execute(
            "INSERT INTO outbox (kind, to_addr, body, status, detail, at) VALUES (?, ?, ?, ?, ?, ?)",
            (kind, to, body, status, detail, time.time()),
        )

    def _send(self, kind: str, to: str, body: str, send: Callable[[Any], str | None]) -> None:
        """``send(client)`` (its result is the detail kept), or the outbox without credentials."""
        client = self.client
        if client is None:
            self._record(kind, to, body, "stored")
            return
        try:
            self._record(kind, to, body, "sent", send(client))
        except Exception as exc:  # a failed send must not fail the move that caused it
            log.warning("%s to %s failed: %s", kind, to, exc)
            self._record(kind, to, body, "failed", str(exc)[:300])

    def send_sms(self, to: str, body: str, from_: str | None = None) -> None:
        def send(client: Any) -> str | None:
            return getattr(client.messages.create(to=to, from_=from_, body=body), "sid", None)

        self._send("sms", to, body, send)

    def update_call(self, call_sid: str, twiml: str) -> None:
        def send(client: Any) -> None:
            client.calls(call_sid).update(twiml=twiml)

        self._send("call", call_sid, twiml, send)

    def items(self, limit: int = 50, to: str | None = None) -> list[OutboxItem]:
        if to is None:
            rows = self.store.execute("SELECT * FROM outbox ORDER BY id DESC LIMIT ?", (limit,))
        else:
            rows = self.store.execute(
                "SELECT * FROM outbox WHERE to_addr = ? ORDER BY id DESC LIMIT ?", (to, limit)
            )
        return [
            OutboxItem(r["id"], r["kind"], r["to_addr"], r["body"], r["status"], r["detail"], r["at"])
            for r in reversed(rows)
        ]
