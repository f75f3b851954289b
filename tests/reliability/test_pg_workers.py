"""Two real server processes (``gamehost serve``) on one PostgreSQL database, with turn
clocks running out while both tick, and one of them killed with SIGKILL: every deadline is
ruled once, every reminder sent once, every outbox row sent once (to the stand-in for
Twilio's API, through the real SDK)."""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from host.outbound import Outbound
from host.store import Store
from tests.pg import PgServer
from tests.servers import free_port, stop, wait_healthy
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, FakeTwilio, make_settings, post_signed

HOST_NUMBER = "+15005550006"
GAMES = 6
LIMIT = 4.0  # seconds a turn lasts: a reminder at 2 s, the timeout at 4 s


class Worker:
    def __init__(self, url: str, fake: FakeTwilio, log: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "GAMEHOST_DATABASE_URL": url,
            "TWILIO_ACCOUNT_SID": TEST_ACCOUNT_SID,
            "TWILIO_AUTH_TOKEN": TEST_AUTH_TOKEN,
            "GAMEHOST_TWILIO_API_BASE": fake.base_url,
            "GAMEHOST_SMS_TURN_TIMEOUT": str(LIMIT),
            "GAMEHOST_TWILIO_TIMEOUT": "2",
            "GAMEHOST_MODE": "production",
            "GAMEHOST_PUBLIC_URL": self.base,  # what the texts are signed for
        }
        self.out = log.open("w")
        cmd = [sys.executable, "-m", "host.cli", "serve", "--port", str(self.port)]
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.out, stderr=subprocess.STDOUT)
        self.log = log
        self.client = httpx.Client(base_url=self.base, timeout=30)

    def wait(self) -> None:
        wait_healthy(self.base, self.proc, 30, "gamehost serve", self.log)

    def text(self, phone: str, body: str, sid: str) -> str:
        params = {
            "From": phone,
            "To": HOST_NUMBER,
            "Body": body,
            "MessageSid": sid,
            "AccountSid": TEST_ACCOUNT_SID,
        }
        response = post_signed(self.client, "/twilio/sms", params, TEST_AUTH_TOKEN, base_url=self.base)
        assert response.status_code == 200, response.text
        return str(response.text)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.client.close()
        self.out.close()

    def stop(self) -> None:
        stop(self.proc)
        self.client.close()
        self.out.close()


@pytest.fixture
def two(pg_server: PgServer, fake: FakeTwilio, tmp_path: Path) -> Iterator[tuple[str, list[Worker]]]:
    # A new, empty database: the two servers start together and migrate it on start.
    url = pg_server.new_database()
    workers = [Worker(url, fake, tmp_path / f"w{i}.log") for i in range(2)]
    for w in workers:
        w.wait()
    yield url, workers
    for w in workers:
        w.stop()


@pytest.mark.parametrize("victim", [0, 1])
def test_each_deadline_ruled_once_and_each_message_sent_once(
    two: tuple[str, list[Worker]], fake: FakeTwilio, victim: int
) -> None:
    url, workers = two
    phones = []
    for g in range(GAMES):
        # Each game is made and played across both servers.
        a, b = f"+1555070{g:04d}", f"+1555080{g:04d}"
        first, second = workers[g % 2], workers[(g + 1) % 2]
        created = first.text(a, "NEW Ann", f"SMnew{g}")
        code = created.split("Game ")[1].split()[0]
        second.text(b, f"JOIN {code} Bob", f"SMjoin{g}")
        first.text(a, "START", f"SMstart{g}")
        phones.append((a, b))
    started = time.monotonic()
    # Both tick through the reminders (at half time); then one dies before the timeouts.
    time.sleep(LIMIT / 2 + 1.2)
    workers[victim].kill()
    deadline = started + LIMIT + 20
    store = Store(url)
    try:
        while time.monotonic() < deadline:
            done = store.execute("SELECT COUNT(*) AS n FROM sessions WHERE status = 'active'")
            timeouts = store.execute("SELECT COUNT(*) AS n FROM inputs WHERE body LIKE '%\"timeout\"%'")
            pending = store.execute("SELECT COUNT(*) AS n FROM outbox WHERE status != 'sent'")
            if timeouts[0]["n"] >= GAMES and pending[0]["n"] == 0:
                break
            time.sleep(0.3)
        time.sleep(LIMIT / 2)  # time enough for a second ruling or a resend, were there one
        kinds = collections.Counter()
        for session in store.sessions():
            for item in store.inputs(session.id):
                kinds[(session.id, item.body["kind"])] += 1
        sessions = [s.id for s in store.sessions()]
        assert len(sessions) == GAMES and done is not None
        assert all(kinds[(s, "timeout")] == 1 for s in sessions), kinds
        reminders = store.execute("SELECT session_id FROM turn_reminders")
        assert sorted(r["session_id"] for r in reminders) == sorted(sessions)
        outbox = store.execute("SELECT id, to_addr, body, status, sid FROM outbox ORDER BY id")
    finally:
        store.close()
    assert outbox and all(r["status"] == "sent" for r in outbox), outbox
    # Each row reached Twilio exactly once: one message per row, none twice.
    sent = collections.Counter((m["To"], m["Body"]) for m in fake.messages)
    rows = collections.Counter((r["to_addr"], r["body"]) for r in outbox)
    assert sent == rows, json.dumps([sent, rows], default=str)[:2000]
    for a, _b in phones:
        to_ann = [m["Body"] for m in fake.messages if m["To"] == a]
        assert sum("Reminder: Ann, your turn." in body for body in to_ann) == 1, to_ann


def test_two_senders_on_one_database_never_claim_the_same_row(pg_server: PgServer, fake: FakeTwilio) -> None:
    url = pg_server.migrated_database()
    settings = make_settings(Path("unused.sqlite3"), fake, database_url=url)
    senders = [Outbound(settings, Store(url)) for _ in range(2)]
    with senders[0].store.transaction():
        for i in range(300):
            senders[0].send_sms(f"+1555090{i:04d}", f"row {i}")
    claimed: list[list[int]] = [[], []]

    def drain(n: int) -> None:
        while items := senders[n].claim(limit=3):
            claimed[n].extend(item.id for item in items)

    threads = [threading.Thread(target=drain, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for sender in senders:
        sender.store.close()
    assert claimed[0] and claimed[1], "both senders took part"
    assert sorted(claimed[0] + claimed[1]) == list(range(1, 301))


def started_pids(log: Path) -> set[str]:
    return {
        line.split("[")[1].split("]")[0]
        for line in log.read_text().splitlines()
        if "Started server process" in line
    }


def test_serve_with_workers_behind_one_port(pg_server: PgServer, fake: FakeTwilio, tmp_path: Path) -> None:
    """``GAMEHOST_WORKERS=2``: uvicorn's worker processes build the app from the environment
    (host.app:app_from_env) and answer on one port, all on the one database."""
    url = pg_server.new_database()
    os.environ["GAMEHOST_WORKERS"] = "2"
    try:
        server = Worker(url, fake, tmp_path / "serve.log")
    finally:
        del os.environ["GAMEHOST_WORKERS"]
    try:
        server.wait()
        codes = []
        for g in range(4):
            created = server.text(f"+1555060{g:04d}", "NEW Ann", f"SMw{g}")
            codes.append(created.split("Game ")[1].split()[0])
        assert "workers: 2" in server.log.read_text()
        # The first worker up answers; the second may still be starting under load.
        deadline = time.monotonic() + 30
        while len(pids := started_pids(server.log)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(pids) == 2, pids
        store = Store(url)
        try:
            assert sorted(s.code or "" for s in store.sessions()) == sorted(codes)
        finally:
            store.close()
    finally:
        server.stop()
