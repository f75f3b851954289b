"""Issue 43, item 10: a database that answers reads but refuses writes.

``/healthz`` said ok (it only read), and a game's page answered a bare 500. Now the health
check writes too and names the part that failed, and every page answers a 503 that says
the store cannot save. The database is made read-only as a failover to a standby or an
operator would make it: ``default_transaction_read_only`` for the database, its sessions
ended (so the server's pooled connections reconnect into it).
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient

from host.app import create_app
from host.store import Store
from host.store.errors import unavailable
from tests.pg import PgServer
from tests.twilio_helpers import make_settings, post_text

pytestmark = pytest.mark.timeout(60)


def _text(client: TestClient, phone: str, body: str) -> str:
    response = post_text(client, phone, body)
    assert response.status_code == 200, response.text
    return str(response.text)


def _read_only(url: str, on: bool) -> None:
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = {"on" if on else "off"}')
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )


@pytest.fixture
def served(pg_server: PgServer, tmp_path: Path) -> Iterator[tuple[TestClient, str]]:
    url = pg_server.new_database()  # its own: the setting outlives the test
    settings = make_settings(tmp_path / "unused.sqlite3", None, database_url=url, sms_turn_timeout=None)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client, url


def _health_until(client: TestClient, wanted: dict[str, str], within: float = 10.0) -> None:
    """Until /healthz answers ``wanted`` (a pooled connection the database ended may first
    fail the read: "unreachable")."""
    end = time.monotonic() + within
    while True:
        answer = client.get("/healthz")
        if answer.json() == wanted or time.monotonic() > end:
            assert answer.json() == wanted, answer.text
            assert answer.status_code == (200 if wanted["status"] == "ok" else 503)
            return
        time.sleep(0.25)


def test_a_read_only_database_is_unhealthy_and_every_page_says_so(served: tuple[TestClient, str]) -> None:
    client, url = served
    found = re.search(r"Game (\d{6}) is ready", _text(client, "+15550000001", "NEW Ann"))
    assert found is not None
    code = found.group(1)
    _health_until(client, {"status": "ok"})
    _read_only(url, True)
    try:
        _health_until(client, {"status": "unavailable", "failed": "write", "why": "read-only"})
        # A wrong code is counted (a write): refused with a page that says why, or a line.
        page = client.get("/t/000000", headers={"accept": "text/html"})
        assert page.status_code == 503 and page.headers["content-type"].startswith("text/html"), page.text
        assert "cannot save anything right now" in page.text and "read-only" in page.text
        assert int(page.headers["retry-after"]) > 0
        plain = client.get("/t/000000")
        assert plain.status_code == 503 and plain.headers["content-type"].startswith("text/plain")
        assert "read-only" in plain.text
        # What needs only reads is still shown: the game's board.
        assert client.get(f"/t/{code}").status_code == 200
    finally:
        _read_only(url, False)
    _health_until(client, {"status": "ok"})


def test_what_a_driver_error_says_about_the_store(tmp_path: Path) -> None:
    path = tmp_path / "ro.sqlite3"
    Store(str(path)).close()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with pytest.raises(sqlite3.Error) as refused:
        conn.execute("INSERT INTO join_failures (address, at) VALUES ('x', 0)")
    conn.close()
    assert unavailable(refused.value) == "read-only"
    assert unavailable(ValueError("no")) is None
    wrapped = RuntimeError("while saving")
    wrapped.__cause__ = refused.value
    assert unavailable(wrapped) == "read-only"
