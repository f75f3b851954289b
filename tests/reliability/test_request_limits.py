"""Issue 43, items 1 and 2: slow and huge requests against a real ``gamehost serve``.

The server runs with lowered limits (3 s for headers and for a body, 20 slow connections
per client, 4 KiB WebSocket messages) and 128 open files, so that a hundred and fifty slow
sockets would take every descriptor it has: before the fix they did, and every other
request failed until they went. Real sockets trickle their requests a line or a byte at a
time, from 127.0.0.1 (a client) and 127.0.0.2 (the trusted proxy, ``FORWARDED_ALLOW_IPS``).
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterator

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.reliability.served import Served
from tests.twilio_helpers import sign

pytestmark = pytest.mark.timeout(60)

TIMEOUT_S = 3.0  # GAMEHOST_HEADER_TIMEOUT and GAMEHOST_BODY_TIMEOUT
PER_CLIENT = 20  # GAMEHOST_CONNECTIONS_PER_CLIENT
WS_MAX = 4096  # GAMEHOST_WS_MAX_BYTES
PROXY = "127.0.0.2"
SLACK_S = 1.5  # the grace before a newer connection may close an older one, and a margin


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    env = {
        "GAMEHOST_HEADER_TIMEOUT": str(TIMEOUT_S),
        "GAMEHOST_BODY_TIMEOUT": str(TIMEOUT_S),
        "GAMEHOST_CONNECTIONS_PER_CLIENT": str(PER_CLIENT),
        "GAMEHOST_WS_MAX_BYTES": str(WS_MAX),
        "FORWARDED_ALLOW_IPS": PROXY,
    }
    server = Served(tmp_path_factory.mktemp("limits"), env=env, descriptors=128)
    yield server
    server.stop()


class Slow:
    """``n`` connections from ``source``, each sending ``first`` and then only trickling."""

    def __init__(self, port: int, n: int, first: bytes | list[bytes], source: str = "127.0.0.1") -> None:
        self.socks: list[socket.socket] = []
        self.answers: dict[int, bytes] = {}  # index -> what the server sent before closing
        for i in range(n):
            s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
            s.sendall(first[i] if isinstance(first, list) else first)
            self.socks.append(s)

    def trickle(self, data: bytes) -> None:
        for i, s in enumerate(self.socks):
            if i not in self.answers:
                with contextlib.suppress(OSError):
                    s.send(data)

    def closed(self) -> set[int]:
        """The connections the server has closed (what it said first is kept)."""
        for i, s in enumerate(self.socks):
            if i in self.answers:
                continue
            readable, _, _ = select.select([s], [], [], 0)
            if readable:
                try:
                    self.answers[i] = s.recv(4096)
                except OSError:
                    self.answers[i] = b""
        return set(self.answers)

    def open(self) -> int:
        return len(self.socks) - len(self.closed())

    def close(self) -> None:
        for s in self.socks:
            s.close()


@contextlib.contextmanager
def slow(port: int, n: int, first: bytes | list[bytes], source: str = "127.0.0.1") -> Iterator[Slow]:
    conns = Slow(port, n, first, source)
    try:
        yield conns
    finally:
        conns.close()


def healthz(port: int) -> bool:
    """One ``GET /healthz`` on a new connection from the attackers' own address: 200 in 3 s."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := s.recv(4096):
                data += chunk
            return data.startswith(b"HTTP/1.1 200 ")
    except OSError:
        return False


def hold(conns: Slow, port: int, seconds: float, line: bytes) -> list[bool]:
    """Trickle ``line`` to every slow connection and probe /healthz, four times a second."""
    probes = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        conns.trickle(line)
        probes.append(healthz(port))
        time.sleep(0.25)
    return probes


def test_slow_headers_are_cut_and_the_server_keeps_answering(served: Served) -> None:
    with slow(served.port, 150, b"GET /healthz HTTP/1.1\r\nHost: x\r\n") as conns:
        probes = hold(conns, served.port, TIMEOUT_S - 0.5, b"X-a: b\r\n")
        held = conns.open()  # within the header timeout: only the client's newest 20
        probes += hold(conns, served.port, 1.0 + SLACK_S, b"X-a: b\r\n")
        left = conns.open()
        answers = set(conns.answers.values())
    assert all(probes), f"{probes.count(False)} of {len(probes)} health checks failed"
    assert held <= PER_CLIENT, f"{held} slow connections of one client held past the grace"
    assert left == 0, f"{left} connections still sending headers after the {TIMEOUT_S:g} s timeout"
    assert any(a.startswith(b"HTTP/1.1 408 ") for a in answers), answers


def test_slow_bodies_time_out(served: Served) -> None:
    head = (
        b"POST /twilio/sms HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: 2000\r\n\r\nFrom="
    )
    with slow(served.port, 10, head) as conns:
        probes = hold(conns, served.port, TIMEOUT_S + SLACK_S, b"a")
        left = conns.open()
        answers = list(conns.answers.values())
    assert all(probes), f"{probes.count(False)} of {len(probes)} health checks failed"
    assert left == 0, f"{left} bodies still trickling in after the {TIMEOUT_S:g} s timeout"
    assert all(a.startswith(b"HTTP/1.1 408 ") for a in answers), answers


def _slow_body(forwarded_for: str) -> bytes:
    return (
        b"POST /twilio/sms HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: " + forwarded_for.encode() + b"\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 2000\r\n\r\nFrom="
    )


def test_behind_the_proxy_each_forwarded_client_has_its_own_cap(served: Served) -> None:
    # Through the trusted proxy: one client's 30 slow bodies, another's 5.
    # Straight from 127.0.0.1, which is no proxy: 30 claiming 30 different clients.
    spoofed = [_slow_body(f"10.0.0.{i}") for i in range(30)]
    with (
        slow(served.port, 30, _slow_body("198.51.100.7"), source=PROXY) as greedy,
        slow(served.port, 5, _slow_body("203.0.113.5"), source=PROXY) as modest,
        slow(served.port, 30, spoofed) as liar,
    ):
        for _ in range(int(SLACK_S / 0.25) + 1):
            for conns in (greedy, modest, liar):
                conns.trickle(b"a")
            time.sleep(0.25)
        counts = greedy.open(), modest.open(), liar.open()
    assert counts[0] <= PER_CLIENT, f"one forwarded client held {counts[0]} slow bodies"
    assert counts[1] == 5, "another forwarded client's slow bodies were cut for the first one's"
    assert counts[2] <= PER_CLIENT, f"X-Forwarded-For from a non-proxy was believed ({counts[2]} held)"


def _answer(s: socket.socket, within: float) -> bytes:
    s.settimeout(within)
    try:
        return s.recv(4096)
    except (TimeoutError, OSError):
        return b""


def test_a_body_over_the_cap_is_refused_before_it_is_read(served: Served) -> None:
    # 300 MB announced: the answer comes before a byte of it is sent.
    with socket.create_connection(("127.0.0.1", served.port), timeout=5) as s:
        s.sendall(
            b"POST /twilio/sms HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: 314572800\r\n\r\n"
        )
        answer = _answer(s, 2.0)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:80]
    # A chunked body is counted as it comes: 413 once it passes 64 KiB.
    with socket.create_connection(("127.0.0.1", served.port), timeout=5) as s:
        s.sendall(
            b"POST /twilio/sms HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"8000\r\n" + b"a" * 0x8000 + b"\r\n"
        with contextlib.suppress(OSError):
            for _ in range(4):
                s.sendall(chunk)
        answer = _answer(s, 2.0)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:80]


def test_a_huge_unsigned_body_does_not_grow_the_server(served: Served) -> None:
    before = served.rss_mb()
    size = 40 << 20
    with socket.create_connection(("127.0.0.1", served.port), timeout=5) as s:
        s.sendall(
            b"POST /twilio/sms HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: " + str(size).encode() + b"\r\n\r\nFrom=%2B1555&Body="
        )
        block = b"a" * (1 << 20)
        with contextlib.suppress(OSError):  # the server closes the connection: a reset here
            for _ in range(40):
                s.sendall(block)
    time.sleep(0.5)
    grown = served.rss_mb() - before
    assert grown < 16, f"a 40 MB body grew the server by {grown:.0f} MB"


def test_a_websocket_message_over_its_cap_closes_the_socket(served: Served) -> None:
    url = f"ws://127.0.0.1:{served.port}/twilio/media"
    headers = {"X-Twilio-Signature": sign(url, {})}  # signed for the ws:// form of the public URL
    with connect(url, additional_headers=headers, open_timeout=10) as ws:
        ws.send('{"event": "connected", "protocol": "Call", "version": "1.0.0"}')
        ws.send('{"event": "connected", "pad": "' + "x" * (2 * WS_MAX) + '"}')
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009, closed.value
