"""Test helpers shared by the Twilio channels (SMS, voice).

- ``sign`` / ``post_signed``: form posts signed with the SDK's real ``RequestValidator``,
  exactly as Twilio signs its webhooks (URL + sorted params, HMAC-SHA1, base64).
- ``FakeTwilio``: a local HTTP server standing in for ``api.twilio.com``. The real
  ``twilio.rest.Client`` is pointed at it (``Settings.twilio_api_base = fake.base_url``) and
  every ``Messages.json`` / ``Calls/{sid}.json`` post is recorded and answered with
  plausible JSON. Only Twilio's servers are fake; the SDK's own code runs.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import threading
import time
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from twilio.request_validator import RequestValidator

from host.config import Settings

Params = Mapping[str, str | list[str]] | Iterable[tuple[str, str]]

TEST_ACCOUNT_SID = "AC" + "0" * 32
TEST_AUTH_TOKEN = "test-auth-token-0123456789abcdef"


class _MultiParams:
    """What ``RequestValidator.get_values`` expects for repeated keys (``getlist``)."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.pairs = pairs

    def __iter__(self) -> Any:
        return iter([k for k, _ in self.pairs])

    def __getitem__(self, key: str) -> str:
        return next(v for k, v in self.pairs if k == key)

    def getlist(self, key: str) -> list[str]:
        return [v for k, v in self.pairs if k == key]


def _pairs(params: Params) -> list[tuple[str, str]]:
    if isinstance(params, Mapping):
        out: list[tuple[str, str]] = []
        for key, value in params.items():
            if isinstance(value, list):
                out.extend((key, v) for v in value)
            else:
                out.append((key, value))
        return out
    return [(k, v) for k, v in params]


def sign(url: str, params: Params, token: str = TEST_AUTH_TOKEN) -> str:
    """The ``X-Twilio-Signature`` Twilio would send for a form post of ``params`` to ``url``."""
    signature: str = RequestValidator(token).compute_signature(url, _MultiParams(_pairs(params)))
    return signature


def post_signed(
    client: Any,
    path: str,
    params: Params,
    token: str = TEST_AUTH_TOKEN,
    base_url: str = "http://testserver",
    headers: Mapping[str, str] | None = None,
) -> Any:
    """POST ``params`` as a form to ``path`` with a correct signature; returns the response.

    ``client`` is a Starlette ``TestClient`` or an ``httpx.Client`` (``base_url`` must then be
    the address the server sees, or the one in ``GAMEHOST_PUBLIC_URL``). Repeated keys are
    given as a list value or as a list of pairs.
    """
    pairs = _pairs(params)
    data: dict[str, list[str]] = {}
    for key, value in pairs:
        data.setdefault(key, []).append(value)
    all_headers = {"X-Twilio-Signature": sign(base_url.rstrip("/") + path, pairs, token)}
    all_headers.update(headers or {})
    return client.post(path, data=data, headers=all_headers)


_message_sids = itertools.count(1)


def post_text(client: Any, phone: str, body: str, to: str = "+15005550006") -> Any:
    """A signed incoming text from ``phone``, with a MessageSid of its own, as Twilio posts it."""
    params = {
        "From": phone,
        "To": to,
        "Body": body,
        "MessageSid": f"SM{next(_message_sids):032x}",
        "AccountSid": TEST_ACCOUNT_SID,
    }
    return post_signed(client, "/twilio/sms", params)


class FakeTwilio:
    """``with FakeTwilio() as fake:`` a stand-in for Twilio's REST API on 127.0.0.1.

    ``.messages``: one dict per ``Messages.json`` post (form fields, first value each, plus
    ``account_sid``, ``sid``). ``.call_updates``: one dict per ``Calls/{sid}.json`` post (form
    fields plus ``account_sid``, ``call_sid``). ``fail_to`` numbers get a 400 error answer;
    ``fail_calls`` call SIDs get a 404, like a call that already ended (and read as
    ``completed``). A slow Twilio: ``answer_after`` seconds between taking a post (it is
    recorded at once) and answering it; ``hold`` (an Event) keeps every post waiting,
    untaken, until it is set. ``in_flight`` / ``most_in_flight``: posts waiting for their
    answer now and at most at once, each counted from its arrival until its answer is
    handed over (not until its thread finishes: the client may have the answer and post
    again before that thread runs on). ``fail_gets``: every GET (a lookup) is answered 500.
    """

    def __init__(self) -> None:
        self.messages: list[dict[str, str]] = []
        self.call_updates: list[dict[str, str]] = []
        self.requests: list[tuple[str, str]] = []  # (method, path) of everything seen
        self.refused = 0  # posts answered 503 (outages)
        self.fail_to: set[str] = set()
        self.fail_calls: set[str] = set()
        # Outages: while ``unavailable`` every post gets a 503; a post arriving before
        # ``hang_until`` (time.monotonic) gets no answer until then, and then a 503.
        # Neither records anything: Twilio did not take the message.
        self.unavailable = False
        self.hang_until = 0.0
        self.answer_after = 0.0
        self.fail_gets = False  # every GET (a lookup) gets a 500
        self.hold: threading.Event | None = None
        self.in_flight = 0
        self.most_in_flight = 0
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "use FakeTwilio as a context manager"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeTwilio:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8")
                form = {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}
                with fake._lock:
                    fake.in_flight += 1
                    fake.most_in_flight = max(fake.most_in_flight, fake.in_flight)
                self.waiting = True
                try:
                    self._post(form)
                finally:
                    self._answered()

            def _answered(self) -> None:
                """A post is no longer in flight once its answer goes out (or it fails)."""
                if getattr(self, "waiting", False):
                    self.waiting = False
                    with fake._lock:
                        fake.in_flight -= 1

            def _post(self, form: dict[str, str]) -> None:
                if fake.hold is not None:
                    fake.hold.wait(30)  # bounded: a test that forgets to release still ends
                hang = fake.hang_until - time.monotonic()
                if hang > 0:
                    time.sleep(hang)
                if hang > 0 or fake.unavailable:
                    with fake._lock:
                        fake.refused += 1
                    self._send(503, _error(20503, "Service unavailable"))
                    return
                status, body = fake._answer("POST", urlsplit(self.path).path, form)
                if fake.answer_after > 0:
                    time.sleep(fake.answer_after)  # taken (recorded), answered late
                self._send(status, body)

            def do_GET(self) -> None:
                if fake.fail_gets:
                    self._send(500, _error(20500, "Internal server error"))
                    return
                url = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                status, body = fake._answer("GET", url.path, {}, query)
                self._send(status, body)

            def _send(self, status: int, body: dict[str, Any]) -> None:
                # Uncounted before a byte of the answer leaves: once the client has it, it
                # may post again before this thread runs on.
                self._answered()
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                # The client may have timed out and left (an outage being simulated).
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # A short poll interval: shutdown() waits for it, once per test.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def wait_for(self, messages: int = 0, call_updates: int = 0, timeout: float = 5.0) -> bool:
        """Block until at least that many posts arrived (for sends made off the request path)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.messages) < messages or len(self.call_updates) < call_updates:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def messages_to(self, number: str) -> list[str]:
        with self._lock:
            return [m.get("Body", "") for m in self.messages if m.get("To") == number]

    def _answer(
        self, method: str, path: str, form: dict[str, str], query: dict[str, str] | None = None
    ) -> tuple[int, dict[str, Any]]:
        query = query or {}
        parts = [p for p in path.split("/") if p]
        with self._cond:
            self.requests.append((method, path))
            # /2010-04-01/Accounts/{AC}/Messages.json
            if method == "POST" and len(parts) == 4 and parts[3] == "Messages.json":
                if form.get("To") in self.fail_to:
                    return 400, _error(21610, "Attempt to send to unsubscribed recipient")
                sid = f"SM{next(self._ids):032x}"
                self.messages.append({**form, "account_sid": parts[2], "sid": sid, "_created": _now()})
                self._cond.notify_all()
                return 201, _message_json(parts[2], sid, form)
            # /2010-04-01/Accounts/{AC}/Calls/{CA}.json
            if method == "POST" and len(parts) == 5 and parts[3] == "Calls":
                call_sid = parts[4].removesuffix(".json")
                if call_sid in self.fail_calls:
                    return 404, _error(20404, f"The requested resource {path} was not found")
                self.call_updates.append({**form, "account_sid": parts[2], "call_sid": call_sid})
                self._cond.notify_all()
                return 200, _call_json(parts[2], call_sid, form)
            # GET /2010-04-01/Accounts/{AC}/Calls/{CA}.json: a call is live unless it failed
            if method == "GET" and len(parts) == 5 and parts[3] == "Calls":
                call_sid = parts[4].removesuffix(".json")
                status = "completed" if call_sid in self.fail_calls else "in-progress"
                return 200, _call_json(parts[2], call_sid, {"Status": status})
            # GET /2010-04-01/Accounts/{AC}/Messages.json: the messages taken, newest first
            if method == "GET" and len(parts) == 4 and parts[3] == "Messages.json":
                to = query.get("To")
                found = [m for m in reversed(self.messages) if to is None or m.get("To") == to]
                size, page = int(query.get("PageSize", 50)), int(query.get("Page", 0))
                shown = found[page * size : (page + 1) * size]
                records = [_message_json(parts[2], m["sid"], m) for m in shown]
                uri = f"/2010-04-01/Accounts/{parts[2]}/Messages.json"
                more = len(found) > (page + 1) * size
                following = f"{uri}?{urlencode({**query, 'Page': page + 1, 'PageSize': size})}"
                return 200, {
                    "messages": records,
                    "uri": uri,
                    "first_page_uri": uri,
                    "next_page_uri": following if more else None,
                    "previous_page_uri": None,
                    "page": page,
                    "page_size": size,
                    "start": page * size,
                    "end": page * size + max(len(records) - 1, 0),
                }
        return 404, _error(20404, f"The requested resource {path} was not found")


def _error(code: int, message: str) -> dict[str, Any]:
    return {
        "code": code,
        "message": message,
        "more_info": f"https://www.twilio.com/docs/errors/{code}",
        "status": 400 if code != 20404 else 404,
    }


def _now() -> str:
    return time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime())


def _message_json(account: str, sid: str, form: dict[str, str]) -> dict[str, Any]:
    return {
        "sid": sid,
        "account_sid": account,
        "api_version": "2010-04-01",
        "body": form.get("Body", ""),
        "to": form.get("To"),
        "from": form.get("From"),
        "messaging_service_sid": form.get("MessagingServiceSid"),
        "status": "queued",
        "direction": "outbound-api",
        "num_segments": "1",
        "num_media": "0",
        "price": None,
        "price_unit": "USD",
        "error_code": None,
        "error_message": None,
        "date_created": form.get("_created") or _now(),
        "date_updated": _now(),
        "date_sent": None,
        "uri": f"/2010-04-01/Accounts/{account}/Messages/{sid}.json",
        "subresource_uris": {"media": f"/2010-04-01/Accounts/{account}/Messages/{sid}/Media.json"},
    }


def _call_json(account: str, sid: str, form: dict[str, str]) -> dict[str, Any]:
    return {
        "sid": sid,
        "account_sid": account,
        "api_version": "2010-04-01",
        "status": form.get("Status", "in-progress"),
        "direction": "inbound",
        "to": "+15005550006",
        "from": "+15005550001",
        "date_created": _now(),
        "date_updated": _now(),
        "uri": f"/2010-04-01/Accounts/{account}/Calls/{sid}.json",
    }


def basic_auth(account_sid: str, token: str) -> str:
    return "Basic " + base64.b64encode(f"{account_sid}:{token}".encode()).decode()


def make_settings(db: Path, fake: FakeTwilio | None, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "db": db,
        "twilio_auth_token": TEST_AUTH_TOKEN,
        "twilio_account_sid": TEST_ACCOUNT_SID if fake is not None else None,
        "twilio_api_base": fake.base_url if fake is not None else None,
        "public_url": None,
        "validate_signatures": True,
        # Tests play whole games within one minute of their clock, faster than any table:
        # the text budgets are tested on their own (tests/sms/test_budgets.py).
        "sms_budget_per_number": 0,
        "sms_budget_per_game": 0,
        "sms_budget_per_hour": 0,
    }
    values.update(overrides)
    return Settings(**values)
