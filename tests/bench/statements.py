"""SQL statements per webhook request, counted with a SQLAlchemy ``before_cursor_execute``
listener on the app's engine (the real app, in this process, signed form posts).

Run: python tests/bench/statements.py [--show] [--postgresql]

Prints the statements one SMS move and each voice action run: ``sql`` counts what the
database is asked (BEGIN and COMMIT apart), ``sent`` everything sent, and ``round trips``
how many times the driver went to the database and waited for it (on PostgreSQL
statements that wait in a transaction go with the next in one query string, on one
cursor; on SQLite every statement is a call of its own). ``--show`` lists them. The
benchmarks print the same table (``bench_sms.py``, ``bench_voice.py``).
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: tests.* from the checkout
from fastapi.testclient import TestClient
from pydantic import SecretStr
from sqlalchemy import event

from grammars.reader import to_words
from host.app import create_app
from host.channels.voice.prompts import code_heard
from host.config import Settings
from host.store import Store
from tests.twilio_helpers import post_signed

TOKEN = "bench-auth-token"
HOST_NUMBER = "+15005550006"
ACCOUNT = "AC" + "0" * 32
_TXN = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK)\b", re.I)
_sids = itertools.count(1)


@dataclass
class Counted:
    statements: list[str] = field(default_factory=list)
    round_trips: int = 0

    @property
    def sql(self) -> int:
        return sum(1 for s in self.statements if not _TXN.match(s))

    @property
    def sent(self) -> int:
        return len(self.statements)


class Counter:
    def __init__(self, store: Store) -> None:
        self.current: Counted | None = None
        self.cursor: Any = None  # the last one seen, held: a new cursor is a new round trip

        def seen(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
            if self.current is not None:
                self.current.statements.append(" ".join(statement.split()))
                if cursor is not self.cursor:
                    self.current.round_trips += 1
            self.cursor = cursor

        event.listen(store.engine, "before_cursor_execute", seen)

    @contextmanager
    def count(self) -> Iterator[Counted]:
        self.current = counted = Counted()
        try:
            yield counted
        finally:
            self.current = None


@dataclass
class Host:
    client: TestClient
    counter: Counter
    store: Store


@contextmanager
def host(database: str) -> Iterator[Host]:
    settings = Settings(
        database_url=database,
        twilio_auth_token=SecretStr(TOKEN),
        twilio_account_sid=None,
        public_url="http://testserver",
        validate_signatures=True,
    )
    store = Store(settings.database)
    app = create_app(settings, store)
    try:
        # Not as a context manager: no lifespan, so no timer or outbox thread adds statements.
        yield Host(TestClient(app), Counter(store), store)
    finally:
        store.close()


def sms(h: Host, phone: str, body: str) -> list[str]:
    params = {
        "From": phone,
        "To": HOST_NUMBER,
        "Body": body,
        "MessageSid": f"SM{next(_sids):032x}",
        "AccountSid": ACCOUNT,
    }
    response = post_signed(h.client, "/twilio/sms", params, TOKEN)
    assert response.status_code == 200, response.text
    return [m.text or "" for m in ET.fromstring(response.text)]


def sms_move(h: Host) -> dict[str, Counted]:
    """Statements of SMS requests in a running two-player training game."""
    a, b = "+15550000001", "+15550000002"
    code = sms(h, a, "NEW TRAINING Ann")[0].split()[1]
    sms(h, b, f"JOIN {code} Bob")
    sms(h, a, "START")
    out: dict[str, Counted] = {}
    sms(h, a, "53")  # the first move warms the process's caches
    with h.counter.count() as c:
        answer = sms(h, b, "40")
    assert "said 40" in answer[0], answer
    out["SMS move"] = c
    with h.counter.count() as c:
        sms(h, a, "STATUS")
    out["SMS status"] = c
    return out


@dataclass
class Caller:
    number: str
    sid: str = field(default_factory=lambda: f"CA{next(_sids):032x}")
    twiml: ET.Element | None = None

    def post(self, h: Host, url: str, **extra: str) -> ET.Element:
        params = {
            "CallSid": self.sid,
            "AccountSid": ACCOUNT,
            "From": self.number,
            "To": HOST_NUMBER,
            "CallStatus": "in-progress",
            "Direction": "inbound",
            **extra,
        }
        path = url.removeprefix("http://testserver")
        response = post_signed(h.client, path, params, TOKEN)
        assert response.status_code == 200, response.text
        self.twiml = ET.fromstring(response.text)
        return self.twiml

    def action(self) -> str:
        assert self.twiml is not None
        gather = self.twiml.find("Gather")
        assert gather is not None, ET.tostring(self.twiml)
        return gather.get("action") or ""

    def redirect(self) -> str:
        assert self.twiml is not None
        return (self.twiml.findall("Redirect")[-1].text or "").strip()

    def heard(self) -> str:
        assert self.twiml is not None
        return " ".join(e.text or "" for e in self.twiml.iter("Say"))


def voice_actions(h: Host) -> dict[str, Counted]:
    """Statements of a move on one phone for the room, a move in a two-caller game, and the
    other caller's waiting loop coming round."""
    out: dict[str, Counted] = {}
    phone = Caller("+15550000011")
    phone.post(h, "/twilio/voice")
    phone.post(h, phone.action(), SpeechResult="this phone, training", Confidence="0.9")
    phone.post(h, phone.action(), Digits="2")
    for _ in range(2):
        phone.post(h, phone.action())
    for n in (53, 40):  # the first warms up
        with h.counter.count() as c:
            phone.post(h, phone.action(), SpeechResult=to_words(n), Confidence="0.95")
        assert f"said {to_words(n)}." in phone.heard(), phone.heard()
    out["voice move, one phone"] = c

    ann, bob = Caller("+15550000021"), Caller("+15550000022")
    ann.post(h, "/twilio/voice")
    ann.post(h, ann.action(), SpeechResult="new training game", Confidence="0.9")
    ann.post(h, ann.action(), SpeechResult="Ann", Confidence="0.9")
    code = code_heard(ann.heard().split("Your game code is ")[1].split(".")[0])
    bob.post(h, "/twilio/voice")
    bob.post(h, bob.action(), Digits="2")
    bob.post(h, bob.action(), SpeechResult="Bob", Confidence="0.9")
    bob.post(h, bob.action(), Digits=code)
    ann.post(h, ann.action(), Digits="2")
    ann.post(h, ann.action(), SpeechResult="fifty three", Confidence="0.95")
    bob.post(h, bob.redirect())
    with h.counter.count() as c:
        bob.post(h, bob.action(), SpeechResult="forty", Confidence="0.95")
    assert "said forty." in bob.heard(), bob.heard()
    out["voice move, two callers"] = c
    with h.counter.count() as c:
        ann.post(h, ann.redirect())
    out["voice wait loop"] = c
    return out


def measure(database: str) -> dict[str, Counted]:
    with host(database) as h:
        counts = sms_move(h)
        counts.update(voice_actions(h))
    return counts


def table(counts: dict[str, Counted]) -> str:
    lines = [f"{'statements per request':28}{'sql':>6}{'sent':>6}{'round trips':>13}"]
    lines += [f"{name:28}{c.sql:6d}{c.sent:6d}{c.round_trips:13d}" for name, c in counts.items()]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list the statements")
    parser.add_argument("--postgresql", action="store_true", help="also on a private PostgreSQL cluster")
    args = parser.parse_args()
    runs: list[tuple[str, dict[str, Counted]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        runs.append(("SQLite", measure(str(Path(tmp) / "count.sqlite3"))))
    if args.postgresql:
        from tests import pg

        for server in pg.serve():
            runs.append(("PostgreSQL", measure(server.new_database())))
    for name, counts in runs:
        print(f"{name}:")
        print(table(counts))
        if args.show:
            for what, c in counts.items():
                print(f"\n{what}:")
                for s in c.statements:
                    print(f"  {s[:160]}")
        print()


if __name__ == "__main__":
    main()
