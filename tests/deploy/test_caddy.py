"""deploy/Caddyfile in front of a real ``gamehost serve``, over real TLS.

The site block is the deployed file itself, imported under test-only global options (local
ports, Caddy's own CA instead of Let's Encrypt, no admin endpoint). Through it: /healthz, a
signed SMS (signed over the public https URL, as Twilio signs it), the table page's
Server-Sent Events arriving while the response is still open (no buffering), and the signed
websocket handshake of a Media Stream at wss://.../twilio/media. Skipped when Caddy is not
installed (``apt-get install caddy``; passes with Debian's 2.6 and with 2.11).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, FakeTwilio, sign

ROOT = Path(__file__).resolve().parents[2]
CADDYFILE = ROOT / "deploy" / "Caddyfile"
START = 60.0  # seconds Caddy and gamehost may take to answer (gamehost loads its games)
# Debian's caddy package, or a caddy installed into this environment.
CADDY = shutil.which(
    "caddy", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
)

pytestmark = pytest.mark.skipif(CADDY is None, reason="caddy is not installed (apt-get install caddy)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Proxied:
    base: str  # https://localhost:<port>, also GAMEHOST_PUBLIC_URL
    tls: ssl.SSLContext  # trusts Caddy's local CA

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base, verify=self.tls, timeout=10)


@contextlib.contextmanager
def process(cmd: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def wait_until_up(proxied: Proxied, root_cert: Path, procs: list[subprocess.Popen[bytes]], logs: str) -> None:
    deadline = time.monotonic() + START
    while time.monotonic() < deadline:
        assert all(p.poll() is None for p in procs), f"a process exited; see {logs}"
        if root_cert.exists():
            proxied.tls.load_verify_locations(root_cert)
            with contextlib.suppress(httpx.HTTPError), proxied.client() as client:
                if client.get("/healthz").status_code == 200:
                    return
        time.sleep(0.2)
    raise AssertionError(f"no /healthz through Caddy after {START:.0f} s; see {logs}")


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[Proxied]:
    http_port, https_port, app_port = free_port(), free_port(), free_port()
    base = f"https://localhost:{https_port}"
    wrapper = tmp_path / "Caddyfile"
    wrapper.write_text(
        "{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n"
        f"\thttp_port {http_port}\n\thttps_port {https_port}\n}}\n"
        f"import {CADDYFILE}\n",
        encoding="utf-8",
    )
    caddy_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "GAMEHOST_DOMAIN": "localhost",
        "GAMEHOST_UPSTREAM": f"127.0.0.1:{app_port}",
    }
    with FakeTwilio() as fake:
        app_env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("GAMEHOST_", "TWILIO_"))},
            "GAMEHOST_MODE": "production",
            "GAMEHOST_PUBLIC_URL": base,
            "GAMEHOST_DB": str(tmp_path / "gamehost.sqlite3"),
            "GAMEHOST_TWILIO_API_BASE": fake.base_url,
            "TWILIO_ACCOUNT_SID": TEST_ACCOUNT_SID,
            "TWILIO_AUTH_TOKEN": TEST_AUTH_TOKEN,
        }
        serve = [sys.executable, "-m", "host", "serve", "--host", "127.0.0.1", "--port", str(app_port)]
        caddy = [str(CADDY), "run", "--config", str(wrapper), "--adapter", "caddyfile"]
        with (
            process(serve, app_env, tmp_path / "gamehost.log") as app,
            process(caddy, caddy_env, tmp_path / "caddy.log") as proxy,
        ):
            proxied = Proxied(base, ssl.create_default_context())
            root_cert = tmp_path / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
            wait_until_up(proxied, root_cert, [app, proxy], str(tmp_path))
            yield proxied


def sms(client: httpx.Client, base: str, body: str, n: int, signature: str | None = None) -> httpx.Response:
    params = {
        "From": "+15550000001",
        "To": "+15559990000",
        "Body": body,
        "MessageSid": f"SM{n:032x}",
        "AccountSid": TEST_ACCOUNT_SID,
        "NumSegments": "1",
        "SmsStatus": "received",
    }
    signature = signature or sign(base + "/twilio/sms", params)
    return client.post("/twilio/sms", data=params, headers={"X-Twilio-Signature": signature})


def test_webhooks_live_pages_and_media_streams_pass_through_caddy(proxied: Proxied) -> None:
    with proxied.client() as client:
        health = client.get("/healthz")
        assert health.status_code == 200 and health.json() == {"status": "ok"}
        assert health.http_version in ("HTTP/1.1", "HTTP/2")

        # Webhooks: a wrong signature is refused, a signed text starts a game.
        assert sms(client, proxied.base, "NEW", 1, signature="bad").status_code == 403
        started = sms(client, proxied.base, "NEW", 2)
        assert started.status_code == 200, started.text
        found = re.search(r"Game (\d{6}) is ready", started.text)
        assert found, started.text
        code = found.group(1)

        # The live table page: its first message arrives while the stream is still open.
        page = client.get(f"/t/{code}")
        assert page.status_code == 200 and code in page.text
        with client.stream("GET", f"/t/{code}/events", timeout=5) as events:
            assert events.headers["content-type"].startswith("text/event-stream")
            lines = events.iter_lines()
            assert any(line == "event: table" for line, _ in zip(lines, range(20), strict=False))

    # Media Streams: the websocket upgrade reaches gamehost with Twilio's signature header.
    url = "wss" + proxied.base.removeprefix("https") + "/twilio/media"
    with pytest.raises(InvalidStatus) as refused:
        connect(url, ssl=proxied.tls, additional_headers={"X-Twilio-Signature": "bad"}, open_timeout=10)
    assert refused.value.response.status_code == 403
    headers = {"X-Twilio-Signature": sign(url, {})}
    with connect(url, ssl=proxied.tls, additional_headers=headers, open_timeout=10) as ws:
        ws.send('{"event": "connected", "protocol": "Call", "version": "1.0.0"}')
        ws.send('{"event": "stop"}')
