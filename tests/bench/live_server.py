"""A server in a child process on a free loopback port, for the webhook benchmarks.

The script named is run as ``script --serve KIND --port N --db PATH`` and must answer
``GET /healthz``; the client then measures it over real HTTP.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: tests.* from the checkout
from tests.servers import free_port, stop, wait_healthy

T = TypeVar("T")


def run_workers(worker: Callable[[list[T]], None], items: Sequence[T], workers: int) -> float:
    """Run ``worker`` on ``workers`` threads, each with its share of ``items``; wall seconds."""
    threads = [threading.Thread(target=worker, args=(list(items[i::workers]),)) for i in range(workers)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start


class Server:
    def __init__(self, script: str, kind: str, db: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, script, "--serve", kind, "--port", str(self.port), "--db", db]
        self.proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            wait_healthy(self.base, self.proc, 90, f"{kind} server", error=RuntimeError)  # a loaded machine
        except RuntimeError:
            self.stop()
            raise

    def stop(self) -> None:
        stop(self.proc)


def host_app(db: str, auth_token: str) -> FastAPI:
    """The real app on ``db``, checking signatures, with no Twilio account (outbox)."""
    from pydantic import SecretStr

    from host.app import create_app
    from host.config import Settings

    settings = Settings(
        db=Path(db),
        twilio_auth_token=SecretStr(auth_token),
        twilio_account_sid=None,
        public_url=None,
        validate_signatures=True,
    )
    return create_app(settings)
