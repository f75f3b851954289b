"""Issue 43, item 8: a move committed as the connection to PostgreSQL was lost was answered
"Please text that again", so the player resent a move that already counted.

The store talks to a real PostgreSQL through a TCP relay that can cut the connection at the
round trip carrying a transaction's last writes and its COMMIT (the one with the reply's
words): either after passing it on (the server commits, its answer never arrives) or
before (nothing commits). The first is looked up by its reply and answered as ruled; only
the second is answered "text that again".
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient

from host.app import create_app
from tests.pg import PgServer
from tests.twilio_helpers import make_settings, post_text

pytestmark = pytest.mark.timeout(60)

ANN, BOB = "+15550000001", "+15550000002"
AGAIN = "Please text that again"


class Relay:
    """A TCP relay to ``port`` whose next round trip with ``marker`` in it can be cut."""

    def __init__(self, port: int) -> None:
        self.upstream = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.marker: bytes | None = None
        self.pass_on = False
        self.cuts = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self, marker: bytes, pass_on: bool) -> None:
        with self._lock:
            self.marker, self.pass_on = marker, pass_on

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = self.listener.accept()
                server = socket.create_connection(("127.0.0.1", self.upstream))
                answers = threading.Event()  # set: the server's answers are dropped
                threading.Thread(target=self._up, args=(client, server, answers), daemon=True).start()
                threading.Thread(target=self._down, args=(server, client, answers), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket, dropped: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while chunk := client.recv(65536):
                with self._lock:
                    hit = self.marker is not None and self.marker in chunk
                    pass_on = self.pass_on
                    if hit:
                        self.marker = None
                        self.cuts += 1
                if hit:
                    dropped.set()
                    if pass_on:
                        server.sendall(chunk)
                        time.sleep(0.5)  # the server commits; its answer goes nowhere
                    break
                server.sendall(chunk)
        for s in (client, server):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def _down(self, server: socket.socket, client: socket.socket, dropped: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while chunk := server.recv(65536):
                if dropped.is_set():
                    return
                client.sendall(chunk)

    def close(self) -> None:
        self.listener.close()


def _text(client: TestClient, phone: str, body: str) -> str:
    response = post_text(client, phone, body)
    assert response.status_code == 200, response.text
    return " ".join(re.findall(r"<Message>(.*?)</Message>", response.text, re.S))


@pytest.fixture
def game(pg_server: PgServer, tmp_path: Path) -> Iterator[tuple[TestClient, Relay, str]]:
    direct = pg_server.new_database()
    relay = Relay(pg_server.port)
    through = direct.replace(f":{pg_server.port}/", f":{relay.port}/")
    settings = make_settings(tmp_path / "unused.sqlite3", None, database_url=through, sms_turn_timeout=None)
    with TestClient(create_app(settings)) as client:
        found = re.search(r"Game (\d{6}) is ready", _text(client, ANN, "NEW Ann"))
        assert found is not None
        _text(client, BOB, f"JOIN {found.group(1)} Bob")
        _text(client, ANN, "START")
        assert "Ann said 50" in _text(client, ANN, "50")
        yield client, relay, direct
    relay.close()


def _moves(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM inputs").fetchone()
        assert row is not None
        return int(row[0])


def test_a_move_committed_as_the_connection_was_cut_is_answered_as_ruled(
    game: tuple[TestClient, Relay, str],
) -> None:
    client, relay, url = game
    before = _moves(url)
    relay.cut(b"said 52", pass_on=True)
    answer = _text(client, BOB, "52")
    assert relay.cuts == 1
    assert AGAIN not in answer and "Bob said 52" in answer, answer
    assert _moves(url) == before + 1
    assert "Ann said 54" in _text(client, ANN, "54")  # and the game goes on


def test_a_move_cut_off_before_its_commit_is_texted_again(game: tuple[TestClient, Relay, str]) -> None:
    client, relay, url = game
    before = _moves(url)
    relay.cut(b"said 52", pass_on=False)
    answer = _text(client, BOB, "52")
    assert relay.cuts == 1
    assert AGAIN in answer, answer
    assert _moves(url) == before
    assert "Bob said 52" in _text(client, BOB, "52")  # texted again, as asked: it counts once
