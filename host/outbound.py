"""Every message and call update the host sends: a transactional outbox and its sender.

Callers only write rows (``send_sms``, ``update_call``), inside the store transaction of
the move that caused them (``Store.transaction`` nests), so a move and the news of it are
committed together or not at all: a crash can lose neither.

The sender (``start``; the app starts it in its lifespan) claims due rows and makes the
REST calls to Twilio through the real ``Client``, each with a timeout
(``GAMEHOST_TWILIO_TIMEOUT``), up to ``GAMEHOST_OUTBOX_CONCURRENCY`` at once per process.
A row is claimed by marking it ``sending`` with its claim time, in one transaction (on
PostgreSQL ``FOR UPDATE SKIP LOCKED``, so two workers never claim the same row). Rows to
one recipient go out one at a time, in order: a row is not claimed while an earlier row
to the same number or call is still on its way, so texts arrive in the order they were
written and a call is never left on an older update.

What a failed call means decides what happens next:

- Twilio said no (a 4xx, a 503) or no connection was made: the message is not at
  Twilio. The row goes back to ``pending`` with an exponential backoff, and after
  ``GAMEHOST_OUTBOX_ATTEMPTS`` tries (or at once for an error retrying cannot fix, a 4xx
  other than 408/429) it is ``dead``.
- The outcome is unknown (the answer timed out, the connection dropped after the request
  went out, a 5xx other than 503, anything unexpected): Twilio may have taken it. The row
  is ``unknown``, and is looked up at Twilio before anything is sent again: an SMS among
  Twilio's messages to that number with the same text, made after our last message to that
  number before this row (Twilio lists them newest first, so the look-up reads back to
  that message's SID: no clock is compared, and a clock of ours running ahead of Twilio's
  once made every look-up miss), and not already the SID of another row; if found, its
  SID is recorded and it is ``sent``. With no earlier message to go by, it reads back a
  day by either clock (``LOOKUP_WINDOW_S``). Not found,
  it is sent again only once Twilio has had the last request for ``settle`` seconds
  (twice the timeout, at least 10 s; until then it may still be making the message), so
  a lookup finding nothing is asked again until then. A call update cannot be looked up,
  only its call: if the call has ended the row stays ``unknown`` for good, else the same
  update is sent again (it redirects the call to the same TwiML). A row whose fate is
  unknown is never ``dead``: only a lookup that finds nothing lets it be sent again or,
  out of tries, given up.
- The process died mid-send: the row stays ``sending`` and is taken over once its claim
  is older than one request's timeout plus a margin (each request renews the claim
  first), and is then treated as unknown.

A row with a SID is never sent again. Without Twilio credentials nothing is sent: rows
are written as ``stored`` and stay there (``gamehost outbox`` shows them).
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from requests.exceptions import ConnectionError as HttpConnectionError
from requests.exceptions import ConnectTimeout
from twilio.base.exceptions import TwilioRestException
from twilio.http.http_client import TwilioHttpClient
from twilio.rest import Client
from urllib3.exceptions import NewConnectionError

from host.config import Settings
from host.store import Store
from host.store.errors import unavailable

log = logging.getLogger(__name__)

CLAIM_MARGIN_S = 5.0  # a 'sending' claim older than one request's timeout plus this was orphaned
MAX_DELAY_S = 60.0  # the longest backoff between two attempts
BATCH = 20
#: With no earlier message of ours to the number to stop at, a look-up reads back this far
#: (Twilio's clock and ours may differ by minutes or hours, never by a day).
LOOKUP_WINDOW_S = 24 * 3600.0
SETTLE_S = 10.0  # a lookup finding nothing is believed once Twilio has had the request this long
LOOKUP_PAGE = 50  # messages per page of a lookup
LOOKUP_PAGES = 20  # the most pages read back to the row's creation
STORE_TOLD_EVERY_S = 60.0  # how often a store that cannot serve is logged by the sender
#: A call in one of these states takes no more updates.
CALL_ENDED = frozenset({"completed", "canceled", "failed", "busy", "no-answer"})


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
    # Twilio may have it already (a try that timed out or was cut off, or a sender that
    # died while sending it): it is looked up before it is sent again.
    unsure: bool = False
    posted_at: float | None = None  # when it was last handed to Twilio, if unsure

    @property
    def said(self) -> str:
        """What the recipient gets, in words (a call update's summary, not its TwiML)."""
        return self.summary if self.kind == "call" and self.summary is not None else self.body


class Permanent(Exception):
    """A send that retrying cannot fix (Twilio said no with a 4xx)."""


def may_have_reached_twilio(exc: BaseException) -> bool:
    """Whether a REST call that failed with ``exc`` may still have been carried out.

    Only a refusal is sure: an HTTP answer saying no (a 4xx; a 503, the service not
    taking requests) or a connection that was never made. A timeout while waiting for
    the answer, a connection dropped after the request went out, another 5xx (the
    request may have been carried out before the error) or anything unexpected is an
    unknown outcome."""
    if isinstance(exc, Permanent):
        return False
    if isinstance(exc, TwilioRestException):
        status = int(exc.status or 0)
        return status >= 500 and status != 503
    if isinstance(exc, ConnectTimeout):
        return False
    if isinstance(exc, HttpConnectionError):
        return not _never_connected(exc)
    return True


def _never_connected(exc: BaseException) -> bool:
    """A connection error raised before any byte of the request left (refused, no route,
    no such host): urllib3's NewConnectionError somewhere in its reasons or causes."""
    seen: set[int] = set()
    todo: list[object] = [exc]
    while todo:
        e = todo.pop()
        if not isinstance(e, BaseException) or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, NewConnectionError):
            return True
        todo.extend([getattr(e, "reason", None), e.__cause__, e.__context__, *e.args])
    return False


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


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
        self._local = threading.local()  # one REST client per sending thread
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._in_flight: set[concurrent.futures.Future[None]] = set()

    # -- the REST client -----------------------------------------------------------------

    @property
    def configured(self) -> bool:
        return self._client is not None or bool(
            self.settings.twilio_account_sid and self.settings.twilio_auth_token
        )

    @property
    def client(self) -> Any | None:
        """The twilio REST client of this thread (every call times out), or None without
        credentials. Each sending thread has its own: the SDK's HTTP session is not meant
        to be shared between threads."""
        if self._client is not None:
            return self._client
        sid, token = self.settings.twilio_account_sid, self.settings.twilio_auth_token
        if not (sid and token):
            return None
        client = getattr(self._local, "client", None)
        if client is None:
            http = TwilioHttpClient(timeout=self.settings.twilio_timeout)
            client = Client(sid, token.get_secret_value(), http_client=http)
            if self.settings.twilio_api_base:
                # Tests and local stand-ins: the SDK's own code runs, only the host differs.
                client.api.base_url = self.settings.twilio_api_base.rstrip("/")
            self._local.client = client
        return client

    # -- writing (inside the caller's transaction) ---------------------------------------

    _INSERT = (
        "INSERT INTO outbox (kind, to_addr, from_addr, body, summary, status, at, next_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    )

    def _enqueue(self, kind: str, to: str, body: str, summary: str | None, from_: str | None) -> int | None:
        """Write a row; its id, or None inside a transaction, where it goes to the database
        with the move's other writes (nobody there needs the id)."""
        status = "pending" if self.configured else "stored"
        now = self.clock()
        row = (kind, to, from_, body, summary, status, now, now)
        if self.store.in_transaction:
            self.store.write(self._INSERT, row)
            if status == "pending":
                self.store.after_commit(self._wake.set)  # the sender cannot see the row before that
            return None
        rows = self.store.execute(self._INSERT + " RETURNING id", row)
        if status == "pending":
            self._wake.set()
        return int(rows[0]["id"])

    def send_sms(self, to: str, body: str, from_: str | None = None) -> int | None:
        return self._enqueue("sms", to, body, None, from_)

    def update_call(self, call_sid: str, twiml: str, summary: str | None = None) -> int | None:
        return self._enqueue("call", call_sid, twiml, summary, None)

    # -- claiming ------------------------------------------------------------------------

    @property
    def settle(self) -> float:
        """How long Twilio must have had a request before a lookup that does not find its
        message is believed (it may still be making it): then, and only then, it is sent
        again."""
        return max(SETTLE_S, 2 * self.settings.twilio_timeout)

    @property
    def longest_wait(self) -> float:
        """The furthest ahead a row's next try is ever set."""
        return max(MAX_DELAY_S, self.settle)

    @property
    def lease(self) -> float:
        """How long a claim holds without being renewed: one REST call, and a margin."""
        return self.settings.twilio_timeout + CLAIM_MARGIN_S

    def claim(self, limit: int = BATCH) -> list[OutboxItem]:
        """Mark due rows ``sending`` (one transaction) and return them: rows waiting for
        their turn, rows of unknown fate due for a lookup, and rows whose sender died.
        A row waits while an earlier row to the same recipient is unfinished. On
        PostgreSQL rows another worker is claiming are skipped (``FOR UPDATE SKIP
        LOCKED``), so each row is claimed by one sender; SQLite has one writer anyway."""
        now = self.clock()
        with self.store.transaction() as db:
            rows = db.execute(
                "SELECT * FROM outbox o"
                # Due, or further ahead than any wait we set (set before the clock stepped back).
                " WHERE ((o.status IN ('pending', 'unknown') AND (o.next_at <= ? OR o.next_at > ?))"
                "   OR (o.status = 'sending' AND o.sid IS NULL AND o.claimed_at < ?))"
                # An earlier row to the same recipient still on its way (an unknown one
                # only while it will be looked up again) goes first.
                " AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.to_addr = o.to_addr AND e.id < o.id"
                "   AND (e.status IN ('pending', 'sending')"
                "     OR (e.status = 'unknown' AND e.next_at IS NOT NULL)))"
                " ORDER BY o.id LIMIT ?" + db.for_update(skip_locked=True),
                (now, now + self.longest_wait + CLAIM_MARGIN_S, now - self.lease, limit),
            )
            for r in rows:
                db.execute(
                    "UPDATE outbox SET status = 'sending', claimed_at = ?, attempts = attempts + 1"
                    " WHERE id = ?",
                    (now, r["id"]),
                )
        return [
            replace(
                _item(r),
                status="sending",
                claimed_at=now,
                attempts=int(r["attempts"] or 0) + 1,
                unsure=r["status"] in ("unknown", "sending"),
                # An unknown row's last try; a dead sender's try came after its claim.
                posted_at=r["sent_at"] if r["status"] == "unknown" else r["claimed_at"],
            )
            for r in rows
        ]

    def _renew(self, item: OutboxItem) -> OutboxItem | None:
        """Renew our claim before another REST call; None if it was lost (another sender
        took the row over, thinking us dead): then we must not touch it."""
        now = self.clock()
        renewed = self.store.execute_count(
            "UPDATE outbox SET claimed_at = ? WHERE id = ? AND status = 'sending' AND claimed_at = ?",
            (now, item.id, item.claimed_at),
        )
        if not renewed:
            log.warning("outbox %d: taken over by another sender; leaving it to them", item.id)
            return None
        return replace(item, claimed_at=now)

    # -- sending -------------------------------------------------------------------------

    def deliver(self, item: OutboxItem) -> None:
        """Look up (if its fate is unknown) and send one claimed row, and record the
        outcome. Never raises: a failure is recorded on the row."""
        try:
            self._deliver(item)
        except Exception:  # a bug or the store failing: the claim runs out and the row is retried
            log.exception("outbox %d: delivery failed", item.id)

    def _deliver(self, item: OutboxItem) -> None:
        client = self.client
        if client is None:
            self._settle(item, "dead", "no Twilio credentials")
            return
        if item.unsure:
            try:
                looked = self._look_up(client, item)
            except Exception as exc:
                # Twilio cannot be asked now: still unknown, asked again later (never dead).
                self._unknown(item, f"not looked up yet ({_describe(exc)})", self._delay(item))
                return
            if looked is None:
                return
            item = looked
            posted, now = item.posted_at, self.clock()
            if posted is not None and posted > now:
                posted = now  # the wall clock stepped back since: Twilio's time counts from now
            if item.kind == "sms" and posted is not None and now < posted + self.settle:
                # Not there yet, but Twilio may still be making it: asked again once it has
                # had the request long enough. A look is not a try (the attempt is given back).
                self._update(
                    item,
                    "status = 'unknown', next_at = ?, sent_at = ?, attempts = attempts - 1",
                    (posted + self.settle, posted),
                )
                return
        if item.attempts > self.settings.outbox_attempts:
            # Only an unknown row comes here out of tries, and its lookup found nothing.
            tries = item.attempts - 1
            self._settle(item, "dead", f"not at Twilio after {tries} tries: {item.detail}")
            return
        renewed = self._renew(item)
        if renewed is None:
            return
        try:
            sid = self._call(client, renewed)
        except Exception as exc:
            self._failed(renewed, exc)
            return
        self._settle(renewed, "sent", None, sid=sid)

    def _call(self, client: Any, item: OutboxItem) -> str:
        try:
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

    def _look_up(self, client: Any, item: OutboxItem) -> OutboxItem | None:
        """Before sending a row Twilio may have already: the row to send (its claim
        renewed), or None when it is settled (found at Twilio, its call over, or our claim
        lost)."""
        if item.kind == "sms":
            found, renewed = self._find_sms(client, item)
            if renewed is None:
                return None
            if found and self._record_found(renewed, found):
                return None
            return renewed
        if item.kind == "call":
            renewed = self._renew(item)
            if renewed is None:
                return None
            status = str(client.calls(item.to).fetch().status)
            if status in CALL_ENDED:
                # Whether the update reached it before it ended cannot be known now, and no
                # longer matters: kept as unknown, never sent again.
                self._unknown(renewed, f"the call is over ({status}); the update may have reached it", None)
                return None
            return renewed  # still on the line: the same update again (the same TwiML)
        return item

    def _find_sms(self, client: Any, item: OutboxItem) -> tuple[list[str], OutboxItem | None]:
        """Twilio's SIDs of messages to the row's number with its text, made after our last
        message to that number before the row, oldest first; and the item with its claim
        renewed (None: lost). Twilio lists newest first, so the pages are read back to that
        message (else ``LOOKUP_WINDOW_S``) and no further."""
        stop_at = self._sid_before(item)
        # Twilio's dates are by its clock: only a bound that no skew between clocks reaches.
        since = time.time() - (self.clock() - item.at) - LOOKUP_WINDOW_S
        found: list[str] = []
        renewed = self._renew(item)
        if renewed is None:
            return found, None
        page = client.messages.page(to=item.to, page_size=LOOKUP_PAGE)
        for _ in range(LOOKUP_PAGES):
            older = False
            for message in page:
                created = getattr(message, "date_created", None)
                if message.sid == stop_at or (created is not None and created.timestamp() < since):
                    older = True
                    break
                same_sender = item.from_ is None or getattr(message, "from_", None) in (None, item.from_)
                if message.body == item.body and same_sender:
                    found.append(str(message.sid))
            if older:
                break
            renewed = self._renew(renewed)
            if renewed is None:
                return found, None
            page = page.next_page()
            if page is None:
                break
        return list(reversed(found)), renewed

    def _sid_before(self, item: OutboxItem) -> str | None:
        """The SID of our last message at Twilio to the row's number before the row: rows to
        one number go out one at a time in order, so Twilio made it before this row's."""
        rows = self.store.execute(
            "SELECT sid FROM outbox WHERE to_addr = ? AND kind = 'sms' AND id < ? AND sid IS NOT NULL"
            " ORDER BY id DESC LIMIT 1",
            (item.to, item.id),
        )
        return str(rows[0]["sid"]) if rows else None

    def _record_found(self, item: OutboxItem, found: list[str]) -> bool:
        """Record the first found SID no other row has as this row's; whether the row is
        settled (recorded, or our claim was lost). Two rows with the same text to the same
        number are told apart by this: each takes a different message."""
        with self.store.transaction() as db:
            for sid in found:
                if db.execute("SELECT 1 FROM outbox WHERE sid = ? AND id <> ?", (sid, item.id)):
                    continue
                log.info("outbox %d: already at Twilio as %s; not sent again", item.id, sid)
                self._settle(item, "sent", None, sid=sid)
                return True
        return False

    def _delay(self, item: OutboxItem) -> float:
        return float(min(self.settings.outbox_backoff * 2 ** max(item.attempts - 1, 0), MAX_DELAY_S))

    def _failed(self, item: OutboxItem, exc: Exception) -> None:
        error = _describe(exc)
        delay = self._delay(item)
        if may_have_reached_twilio(exc):
            # The next try is a lookup: found, the row is sent; not found, it is sent again
            # only once Twilio has had the request for ``settle`` seconds.
            log.info(
                "outbox %d (%s to %s): outcome unknown, looked up in %.0f s: %s",
                item.id,
                item.kind,
                item.to,
                delay,
                error,
            )
            # sent_at: when it was handed over (the claim was renewed just before).
            self._update(
                item,
                "status = 'unknown', detail = ?, next_at = ?, sent_at = ?",
                (error, self.clock() + delay, item.claimed_at),
            )
            return
        if isinstance(exc, Permanent) or item.attempts >= self.settings.outbox_attempts:
            log.warning(
                "outbox %d (%s to %s) is dead after %d tries: %s",
                item.id,
                item.kind,
                item.to,
                item.attempts,
                error,
            )
            self._settle(item, "dead", error)
            return
        log.info(
            "outbox %d (%s to %s) failed, retry in %.0f s: %s", item.id, item.kind, item.to, delay, error
        )
        self._update(item, "status = 'pending', detail = ?, next_at = ?", (error, self.clock() + delay))

    def _unknown(self, item: OutboxItem, detail: str, delay: float | None) -> None:
        """Twilio may have it: looked up after ``delay`` seconds (None: never again)."""
        next_at = None if delay is None else self.clock() + delay
        self._update(item, "status = 'unknown', detail = ?, next_at = ?", (detail, next_at))

    def _settle(self, item: OutboxItem, status: str, detail: str | None, sid: str | None = None) -> None:
        if sid is not None:
            self._update(item, "status = ?, sid = ?, sent_at = ?, detail = NULL", (status, sid, self.clock()))
        else:
            self._update(item, "status = ?, detail = ?, sent_at = ?", (status, detail, self.clock()))

    def _update(self, item: OutboxItem, changes: str, values: tuple[Any, ...]) -> None:
        # Only while our claim holds: a sender that took an orphaned row over owns it now.
        self.store.execute(
            f"UPDATE outbox SET {changes} WHERE id = ? AND status = 'sending' AND claimed_at = ?",
            (*values, item.id, item.claimed_at),
        )

    def flush(self, rounds: int = 100) -> int:
        """Send everything due now, one at a time, in this thread; how many rows were tried."""
        done = 0
        for _ in range(rounds):
            items = self.claim()
            if not items:
                break
            for item in items:
                self.deliver(item)
            done += len(items)
        return done

    # -- the sender ----------------------------------------------------------------------

    def start(self, poll: float = 0.5) -> None:
        """The sender: a thread that claims rows and hands each to a pool of
        ``GAMEHOST_OUTBOX_CONCURRENCY`` threads; API calls never run on the event loop.
        It claims only as many rows as threads are free, so a claimed row is being sent,
        never waiting in a queue while its claim runs out."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        size = self.settings.outbox_concurrency
        pool = self._pool = concurrent.futures.ThreadPoolExecutor(size, thread_name_prefix="outbox-send")

        def done(_: concurrent.futures.Future[None]) -> None:
            self._wake.set()  # a thread is free, and a row waiting behind it may be due

        def run() -> None:
            told = float("-inf")  # when a store that cannot serve was last logged
            while not self._stop.is_set():
                self._wake.clear()
                self._in_flight = {f for f in self._in_flight if not f.done()}
                free = size - len(self._in_flight)
                items: list[OutboxItem] = []
                if free > 0:
                    try:
                        items = self.claim(free)
                    except Exception as exc:  # the store was busy or closing; try again next round
                        # A store that cannot serve: said once a minute, not every poll.
                        if unavailable(exc) is None or time.monotonic() - told >= STORE_TOLD_EVERY_S:
                            told = time.monotonic()
                            log.exception("outbox sender: claiming failed")
                for item in items:
                    future = pool.submit(self.deliver, item)
                    self._in_flight.add(future)
                    future.add_done_callback(done)
                # Nothing more is due, or every thread is busy: until a row is written, a
                # send finishes, or the poll comes round (backoffs running out).
                self._wake.wait(poll)

        self._thread = threading.Thread(target=run, name="outbox-sender", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop claiming; wait up to ``timeout`` for the sends in flight (one that outlives
        it finishes in its thread, its outcome recorded)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        if self._pool is not None:
            concurrent.futures.wait(self._in_flight, timeout=timeout)
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    # -- reading -------------------------------------------------------------------------

    def items(self, limit: int = 50, to: str | None = None) -> list[OutboxItem]:
        if to is None:
            rows = self.store.execute("SELECT * FROM outbox ORDER BY id DESC LIMIT ?", (limit,))
        else:
            rows = self.store.execute(
                "SELECT * FROM outbox WHERE to_addr = ? ORDER BY id DESC LIMIT ?", (to, limit)
            )
        return [_item(r) for r in reversed(rows)]


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
