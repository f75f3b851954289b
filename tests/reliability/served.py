"""``gamehost serve`` in a child process, as deployed: production mode, real signatures, a
free loopback port, settings from the environment; for the tests that need the real server
(its HTTP protocol, its workers) and not the app in the test's own process."""

from __future__ import annotations

import itertools
import os
import resource
import subprocess
import sys
from pathlib import Path

import httpx

from tests.servers import free_port, stop, wait_healthy
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, post_signed

ROOT = Path(__file__).resolve().parents[2]
HOST_NUMBER = "+15005550006"
START_S = 60.0  # seconds the server may take to answer /healthz (it loads the games)


class Served:
    """One ``gamehost serve`` (``workers`` processes behind ``port``) on ``database``; extra
    ``GAMEHOST_*`` settings in ``env``; ``descriptors``: its open-file limit (soft and hard,
    so the server cannot raise it)."""

    def __init__(
        self,
        tmp: Path,
        database: str | None = None,
        *,
        env: dict[str, str] | None = None,
        workers: int = 1,
        descriptors: int | None = None,
        twilio_api: str = "http://127.0.0.1:9",  # nothing listens: texts out stay queued
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tmp / f"serve-{self.port}.log"
        environment = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("GAMEHOST_", "TWILIO_"))},
            "GAMEHOST_MODE": "production",
            "GAMEHOST_PUBLIC_URL": self.base,
            "GAMEHOST_DATABASE_URL": database or f"sqlite:///{tmp / 'served.sqlite3'}",
            "GAMEHOST_TWILIO_API_BASE": twilio_api,
            "TWILIO_ACCOUNT_SID": TEST_ACCOUNT_SID,
            "TWILIO_AUTH_TOKEN": TEST_AUTH_TOKEN,
            "PYTHONPATH": str(ROOT),
            **(env or {}),
        }
        cmd = [sys.executable, "-m", "host", "serve", "--port", str(self.port), "--workers", str(workers)]

        def limit_descriptors() -> None:
            if descriptors is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))

        self._out = self.log.open("wb")
        self.proc = subprocess.Popen(
            cmd, env=environment, stdout=self._out, stderr=subprocess.STDOUT, preexec_fn=limit_descriptors
        )
        self.client = httpx.Client(base_url=self.base, timeout=30)
        self._sids = itertools.count(1)
        try:
            wait_healthy(self.base, self.proc, START_S, "gamehost serve", self.log)
        except BaseException:
            self.stop()
            raise

    def text(self, phone: str, body: str) -> str:
        """A signed SMS webhook; the TwiML answered."""
        params = {
            "From": phone,
            "To": HOST_NUMBER,
            "Body": body,
            "MessageSid": f"SM{os.getpid():08x}{self.port:06x}{next(self._sids):018x}",
            "AccountSid": TEST_ACCOUNT_SID,
        }
        response = post_signed(self.client, "/twilio/sms", params, TEST_AUTH_TOKEN, base_url=self.base)
        assert response.status_code == 200, response.text
        return str(response.text)

    def rss_mb(self) -> float:
        """The server process's resident memory (one worker: the server itself), MB."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")

    def said(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        stop(self.proc)
        self.client.close()
        self._out.close()
