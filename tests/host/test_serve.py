"""``gamehost serve`` as the README's first command runs it: it says where it listens, the
webhook URLs and the mode, and answers /healthz; in production it needs a token."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.servers import free_port, stop, wait_healthy


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAMEHOST_", "TWILIO_"))}
    return {**env, "GAMEHOST_DB": str(tmp_path / "serve.sqlite3"), **extra}


def test_development_serve_explains_itself_and_answers(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "host.cli", "serve", "--port", str(port)],
        env=environment(tmp_path, GAMEHOST_MODE="development", COLUMNS="80"),  # no URL broken at 80
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines: list[str] = []
        assert proc.stderr is not None
        while not any("health:" in line for line in lines):
            line = proc.stderr.readline()
            assert line, "".join(lines)
            lines.append(line)
        said = "".join(lines)
        assert "DEVELOPMENT MODE" in said
        base = f"http://127.0.0.1:{port}"
        assert f"live page: {base}/ " in said
        # Each URL whole on the line that names it (the console once wrapped at 80 columns).
        urls = (("SMS", "/twilio/sms,"), ("voice", "/twilio/voice,"), ("callback", "/twilio/voice/status"))
        for name, url in urls:
            assert any(f"{name} {base}{url}" in line for line in lines), said
        assert str(tmp_path / "serve.sqlite3") in said
        wait_healthy(base, proc, 10, "gamehost serve")
    finally:
        stop(proc)


def test_production_serve_without_a_token_refuses_to_start(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "host.cli", "serve", "--port", str(free_port())],
        env=environment(tmp_path, TWILIO_AUTH_TOKEN=""),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "TWILIO_AUTH_TOKEN is not set" in done.stderr
