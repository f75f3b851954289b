"""A real gamehost server in its own process and Debian's Chromium driven by Playwright.

The server is ``uvicorn host.app:create_app --factory`` in a subprocess, configured only by
its environment (production mode, a real auth token, a temp SQLite file, Twilio's API at a
local stand-in), so a test can kill it and start it again on the same port and database, or
run two on one database. Chromium is the system's (/usr/bin/chromium; scripts/test installs
it), never a downloaded build, with the flags that keep it off the network.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.servers import free_port, wait_healthy
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, FakeTwilio, post_signed

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HOST_NUMBER = "+15005550006"
START_S = 30.0  # a loaded 2-core machine may take a while to import the app


class Server:
    """One server process on ``port`` over the SQLite file ``db``."""

    def __init__(self, db: Path, port: int, fake: FakeTwilio, log: Path) -> None:
        self.db, self.port, self.fake, self.log = db, port, fake, log
        self.base = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self._sids = 0

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GAMEHOST_", "TWILIO_"))}
        env.update(
            GAMEHOST_DB=str(self.db),
            GAMEHOST_MODE="production",
            GAMEHOST_TWILIO_AUTH_TOKEN=TEST_AUTH_TOKEN,
            GAMEHOST_TWILIO_ACCOUNT_SID=TEST_ACCOUNT_SID,
            GAMEHOST_TWILIO_API_BASE=self.fake.base_url,
            GAMEHOST_SMS_TURN_TIMEOUT="",
        )
        return env

    def start(self) -> Server:
        return self.launch().wait()

    def launch(self) -> Server:
        command = [sys.executable, "-m", "uvicorn", "host.app:create_app", "--factory",
                   "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"]  # fmt: skip
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(command, env=self.env(), stdout=out, stderr=subprocess.STDOUT)
        return self

    def wait(self) -> Server:
        """Until the server answers its health check."""
        assert self.proc is not None
        wait_healthy(self.base, self.proc, START_S, "the server", self.log, error=RuntimeError)
        return self

    def kill(self) -> None:
        """As a crash would: no shutdown, no goodbye to the open pages."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None

    def text(self, phone: str, body: str) -> httpx.Response:
        """A signed SMS webhook, as Twilio posts it."""
        self._sids += 1
        sid = f"SM{self.port:08d}{self._sids:024x}"
        params = {"From": phone, "To": HOST_NUMBER, "Body": body, "MessageSid": sid,
                  "AccountSid": TEST_ACCOUNT_SID, "NumSegments": "1", "SmsStatus": "received"}  # fmt: skip
        with httpx.Client(base_url=self.base, timeout=10.0) as client:
            response = post_signed(client, "/twilio/sms", params, TEST_AUTH_TOKEN, base_url=self.base)
        assert response.status_code == 200, response.text
        return response


@contextmanager
def servers(tmp_path: Path, fake: FakeTwilio, count: int = 1) -> Iterator[list[Server]]:
    db = tmp_path / "gamehost.sqlite3"
    started: list[Server] = []
    try:
        for i in range(count):  # started together: each takes a while to import the app
            started.append(Server(db, free_port(), fake, tmp_path / f"server{i}.log").launch())
        yield [server.wait() for server in started]
    finally:
        for server in started:
            server.stop()


def fake_microphone(audio: Path) -> list[str]:
    """Chromium's flags for a microphone that plays ``audio`` once, in real time, with no
    permission prompt, and for the host's voice to play without a click."""
    return [
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={audio}%noloop",
        "--autoplay-policy=no-user-gesture-required",
    ]


@contextmanager
def chromium(playwright: Any, profile: Path, extra: Sequence[str] = ()) -> Iterator[Any]:
    """A browser context of Debian's Chromium with a fresh profile."""
    context = playwright.chromium.launch_persistent_context(
        str(profile),
        executable_path=str(CHROMIUM),
        headless=True,
        args=[*FLAGS, *extra],
        viewport={"width": 1280, "height": 900},
        color_scheme="light",
    )
    try:
        yield context
    finally:
        context.close()
