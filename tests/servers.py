"""For tests and benchmarks that run a server in a child process: a free loopback port to
give it, and the wait until it answers ``GET /healthz``."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx

from tests.timeouts import stretch

POLL_S = 0.05  # loopback: a refused connection costs next to nothing


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(
    base: str,
    proc: subprocess.Popen[Any] | None,
    timeout: float,
    what: str,
    log: Path | None = None,
    *,
    error: type[Exception] = AssertionError,
) -> None:
    """Poll ``GET {base}/healthz`` until it answers 200. Raises ``error`` if ``proc`` exits
    first or ``timeout`` seconds pass (times the load per core: a busy machine starts a
    server slower, and that is no failure), naming ``what`` and quoting the end of ``log``."""
    timeout *= stretch()
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise error(_told(f"{what} exited with code {proc.returncode}", log))
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        if time.monotonic() > deadline:
            raise error(_told(f"{what} did not answer {base}/healthz within {timeout:g} s", log))
        time.sleep(POLL_S)


def _told(message: str, log: Path | None) -> str:
    if log is None or not log.exists():
        return message
    return f"{message}; the end of {log}:\n{log.read_text(errors='replace')[-4000:]}"


def stop(proc: subprocess.Popen[Any], timeout: float = 10) -> None:
    """SIGTERM, and SIGKILL if it has not exited within ``timeout`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def said_until_started(proc: subprocess.Popen[str]) -> str:
    """What a `gamehost serve` started with ``stderr=PIPE`` said until uvicorn was up; then
    it is stopped. A server that ends first fails with what it said."""
    said: list[str] = []
    try:
        assert proc.stderr is not None
        while not any("Application startup complete" in line for line in said):
            line = proc.stderr.readline()
            assert line, "".join(said)
            said.append(line)
    finally:
        stop(proc)
    return "".join(said)
