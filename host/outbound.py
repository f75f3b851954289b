"""Every message and call update the host sends: a transactional outbox and its sender.

Callers only write rows (``send_sms``, ``update_call``), inside the store transaction of
the move that caused them (``Store.transaction`` nests), so a move and the news of it are
committed together or not at all: a crash can lose neither.

A sender thread (``start``; the app starts it in its lifespan) claims due rows, calls
Twilio's REST API through the real ``Client`` with a timeout (``GAMEHOST_TWILIO_TIMEOUT``),
and records the SID Twilio gave back. A row is marked ``sending`` with its claim time
before the API call; a failure puts it back to ``pending`` with an exponential backoff,
and after ``GAMEHOST_OUTBOX_ATTEMPTS`` tries (or at once for an error retrying cannot fix,
such as a 4xx from Twilio) it is ``dead``. Delivery is at least once: if the process dies
after Twilio accepted a message but before its SID was written, the row stays ``sending``
with no SID and is taken over once its claim is older than the timeout plus a margin. An
SMS is then first looked up among Twilio's recent messages to that number (same text,
made since the row was) and only sent if it is not there; a call update is sent again (it
redirects the call to the same TwiML). A row with a SID is never sent again.

Without Twilio credentials nothing is sent: rows are written as ``stored`` and stay
there, so everything can be tried without an account (``gamehost outbox`` shows them).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from host.config import Settings
from host.store import Store

log = logging.getLogger(__name__)

CLAIM_MARGIN_S = 5.0  # a 'sending' claim older than the API timeout plus this was orphaned
MAX_DELAY_S = 60.0  # the longest backoff between two attempts
BATCH = 20


@dataclass(frozen=True)
class OutboxItem:
    id: int
    kind: str
    to: str
    body: str
    status: str
    detail: str | None
    at: float
    summary: str | None = None
    from_: str | None = None
    attempts: int = 0
    sid: str | None = None
    sent_at: float | None = None
    claimed_at: float | None = None
    reclaimed: bool = False  # taken over from a sender that died while sending it

    @property
    def said(self) -> str:
        """What the recipient gets, in words (a call update's summary, not its TwiML)."""
        return self.summary if self.kind == "call" and self.summary is not None else self.body


class Permanent(Exception):
    """A send that retrying cannot fix (Twilio said no with a 4xx)."""


class Outbound:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        client: Any | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        self._client = client
        self._client_lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- the REST client -----------------------------------------------------------------

    @property
    def configured(self) -> bool:
        return self._client is not None or bool(
            self.settings.twilio_account_sid and self.settings.twilio_auth_token
        )

    @property
    def client(self) -> Any | None:
        """The twilio REST client (every call times out), or None without credentials."""
        with self._client_lock:
            sid, token = self.settings.twilio_account_sid, self.settings.twilio_auth_token
            if self._client is None and sid and token:
                from twilio.http.http_client import TwilioHttpClient
                from twilio.rest import Client

                http = TwilioHttpClient(timeout=self.settings.twilio_timeout)
                client = Client(sid, token.get_secret_value(), http_client=http)
                if self.settings.twilio_api_base:
                    # Tests and local stand-ins: the SDK's own code runs, only the host differs.
                    client.api.base_url = self.settings.twilio_api_base.rstrip("/")
                self._client = client
            return self._client

    # -- writing (inside the caller's transaction) ---------------------------------------

    def _enqueue(self, kind: str, to: str, body: str, summary: str | None, from_: str | None) -> int:
        status = "pending" if self.configured else "stored"
        now = self.clock()
        with self.store.transaction() as db:
            rows = db.execute(
                "INSERT INTO outbox (kind, to_addr, from_addr, body, summary, status, at, next_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (kind, to, from_, body, summary, status, now, now),
            )
            row_id = int(rows[0]["id"])
        if status == "pending":
            self._wake.set()  # the sender waits for the store lock, so it sees the commit
        return row_id

    def send_sms(self, to: str, body: str, from_: str | None = None) -> int:
        return self._enqueue("sms", to, body, None, from_)

    def update_call(self, call_sid: str, twiml: str, summary: str | None = None) -> int:
        return self._enqueue("call", call_sid, twiml, summary, None)

    # -- sending -------------------------------------------------------------------------

    def claim(self, limit: int = BATCH) -> list[OutboxItem]:
        """Mark due rows ``sending`` (one transaction) and return them. On PostgreSQL
        rows another worker is claiming are skipped (``FOR UPDATE SKIP LOCKED``), so each
        row is claimed by one sender; SQLite has one writer at a time anyway."""
        now = self.clock()
        orphaned = now - (self.settings.twilio_timeout + CLAIM_MARGIN_S)
        with self.store.transaction() as db:
            rows = db.execute(
                "SELECT * FROM outbox WHERE (status = 'pending' AND next_at <= ?)"
                " OR (status = 'sending' AND sid IS NULL AND claimed_at < ?) ORDER BY id LIMIT ?"
                + db.for_update(skip_locked=True),
                (now, orphaned, limit),
            )
            for r in rows:
                db.execute(
                    "UPDATE outbox SET status = 'sending', claimed_at = ?, attempts = attempts + 1"
                    " WHERE id = ?",
                    (now, r["id"]),
                )
        return [replace_claim(_item(r), now, reclaimed=r["status"] == "sending") for r in rows]

    def deliver(self, item: OutboxItem) -> None:
        """One API call for a claimed row, and its outcome recorded (never raises)."""
        try:
            sid = self._call(item)
        except Exception as exc:
            self._failed(item, exc)
            return
        self._finish(item, "UPDATE outbox SET status = 'sent', sid = ?, sent_at = ?, detail = NULL", sid)

    def _call(self, item: OutboxItem) -> str:
        client = self.client
        if client is None:
            raise Permanent("no Twilio credentials")
        from twilio.base.exceptions import TwilioRestException

        try:
            if item.kind == "sms" and item.reclaimed and (found := self._already_sent(client, item)):
                return found
            if item.kind == "sms":
                result = client.messages.create(to=item.to, from_=item.from_, body=item.body)
            elif item.kind == "call":
                result = client.calls(item.to).update(twiml=item.body)
            else:
                raise Permanent(f"unknown kind {item.kind!r}")
        except TwilioRestException as exc:
            status = int(exc.status or 0)
            if 400 <= status < 500 and status not in (408, 429):
                raise Permanent(f"HTTP {status}, Twilio error {exc.code}: {exc.msg}") from exc
            raise
        return str(getattr(result, "sid", None) or item.to)

    def _already_sent(self, client: Any, item: OutboxItem) -> str | None:
        """After a crash mid-send: did Twilio take this message before we could record it?
        Its recent messages to that number are asked for one with the same body, created
        since this row was (a minute's slack for clocks); if found, its SID is recorded and
        nothing is sent. Should the question fail, the message is sent again (at least once)."""
        # Twilio's dates are wall-clock: the row's age by our clock, back from now.
        since = time.time() - (self.clock() - item.at) - 60.0
        try:
            for m in client.messages.list(to=item.to, limit=20):
                created = getattr(m, "date_created", None)
                if m.body == item.body and (created is None or created.timestamp() >= since):
                    log.info("outbox %d: already at Twilio as %s; not sent again", item.id, m.sid)
                    return str(m.sid)
        except Exception as exc:
            log.warning("outbox %d: cannot ask Twilio whether it was sent (%s); sending", item.id, exc)
        return None

    def _failed(self, item: OutboxItem, exc: Exception) -> None:
        error = f"{type(exc).__name__}: {exc}"[:300]
        if isinstance(exc, Permanent) or item.attempts >= self.settings.outbox_attempts:
            log.warning("outbox %d (%s to %s) is dead after %d tries: %s", item.id, item.kind, item.to,
                        item.attempts, error)
            self._finish(item, "UPDATE outbox SET status = 'dead', detail = ?, sent_at = ?", error)
            return
        delay = min(self.settings.outbox_backoff * 2 ** max(item.attempts - 1, 0), MAX_DELAY_S)
        log.info("outbox %d (%s to %s) failed, retry in %.0f s: %s", item.id, item.kind, item.to,
                 delay, error)
        with self.store.transaction() as db:
            db.execute(
                "UPDATE outbox SET status = 'pending', detail = ?, next_at = ?"
                " WHERE id = ? AND status = 'sending' AND claimed_at = ?",
                (error, self.clock() + delay, item.id, item.claimed_at),
            )

    def _finish(self, item: OutboxItem, update: str, value: str) -> None:
        # Only while our claim holds: a sender that took an orphaned row over owns it now.
        with self.store.transaction() as db:
            db.execute(
                update + " WHERE id = ? AND status = 'sending' AND claimed_at = ?",
                (value, self.clock(), item.id, item.claimed_at),
            )

    def flush(self, rounds: int = 100) -> int:
        """Send everything due now, in this thread; how many rows were tried."""
        done = 0
        for _ in range(rounds):
            items = self.claim()
            if not items:
                break
            for item in items:
                self.deliver(item)
            done += len(items)
        return done

    # -- the sender thread ---------------------------------------------------------------

    def start(self, poll: float = 0.5) -> None:
        """The sender thread: API calls never run on the event loop."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()

        def run() -> None:
            while not self._stop.is_set():
                self._wake.clear()
                try:
                    busy = self.flush(rounds=1)
                except Exception:  # the store was busy or closing; try again next round
                    log.exception("outbox sender round failed")
                    busy = 0
                if not busy:
                    self._wake.wait(poll)

        self._thread = threading.Thread(target=run, name="outbox-sender", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    # -- reading -------------------------------------------------------------------------

    def items(self, limit: int = 50, to: str | None = None) -> list[OutboxItem]:
        if to is None:
            rows = self.store.execute("SELECT * FROM outbox ORDER BY id DESC LIMIT ?", (limit,))
        else:
            rows = self.store.execute(
                "SELECT * FROM outbox WHERE to_addr = ? ORDER BY id DESC LIMIT ?", (to, limit)
            )
        return [_item(r) for r in reversed(rows)]


def replace_claim(item: OutboxItem, claimed_at: float, reclaimed: bool = False) -> OutboxItem:
    return replace(
        item, status="sending", claimed_at=claimed_at, attempts=item.attempts + 1, reclaimed=reclaimed
    )


def _item(r: Any) -> OutboxItem:
    return OutboxItem(
        id=r["id"],
        kind=r["kind"],
        to=r["to_addr"],
        body=r["body"],
        status=r["status"],
        detail=r["detail"],
        at=r["at"],
        summary=r["summary"],
        from_=r["from_addr"],
        attempts=int(r["attempts"] or 0),
        sid=r["sid"],
        sent_at=r["sent_at"],
        claimed_at=r["claimed_at"],
    )
