"""deploy/compose.yaml through Docker itself.

- ``docker compose config`` (needs the compose plugin, not an engine): a filled-in .env is
  passed through to the server, production is pinned over .env, and an unedited copy of
  .env.example (its required values empty) is refused.
- ``@pytest.mark.docker``: build the image and run PostgreSQL and gamehost far enough to
  answer /healthz and a signed SMS inside the container network (Caddy is left out: it
  would publish ports 80 and 443 of the machine). Needs a running Docker engine.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, sign

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "compose.yaml"
DOMAIN = "games.example.org"


def run(cmd: list[str], timeout: float = 60, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False, **kwargs)


@cache
def compose_missing() -> str | None:
    """Why ``docker compose`` cannot be used, or None."""
    if shutil.which("docker") is None:
        return "the docker client is not installed"
    if run(["docker", "compose", "version"]).returncode != 0:
        return "the docker client has no compose plugin (`docker compose version` fails)"
    return None


@cache
def engine_missing() -> str | None:
    """Why no container can be run here, or None."""
    if shutil.which("docker") is None:
        return "the docker client is not installed"
    info = run(["docker", "info", "--format", "{{.ServerVersion}}"])
    if info.returncode != 0:
        why = (info.stderr.strip().splitlines() or ["no answer"])[-1]
        return f"no Docker engine is reachable (`docker info` failed: {why}); only the client is here"
    return compose_missing()


def write_env(path: Path, **values: str) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in values.items()), encoding="utf-8")
    return path


def filled_env(path: Path, **extra: str) -> Path:
    return write_env(
        path,
        GAMEHOST_DOMAIN=DOMAIN,
        TWILIO_ACCOUNT_SID=TEST_ACCOUNT_SID,
        TWILIO_AUTH_TOKEN=TEST_AUTH_TOKEN,
        POSTGRES_PASSWORD=secrets.token_hex(16),
        **extra,
    )


def compose_cmd(env_file: Path, project: str | None = None) -> tuple[list[str], dict[str, str]]:
    """``docker compose`` on deploy/compose.yaml with ``env_file`` standing for deploy/.env,
    in an environment without the caller's own Twilio or gamehost variables (they would
    win over the file)."""
    cmd = ["docker", "compose", "-f", str(COMPOSE), "--env-file", str(env_file)]
    if project is not None:
        cmd += ["-p", project]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAMEHOST_", "TWILIO_", "POSTGRES_"))}
    env["GAMEHOST_ENV_FILE"] = str(env_file)
    return cmd, env


# -- docker compose config -------------------------------------------------------------------


@pytest.fixture
def compose_config() -> None:
    missing = compose_missing()
    if missing is not None:
        pytest.skip(f"`docker compose config` not checked: {missing}")


@pytest.mark.usefixtures("compose_config")
def test_compose_config_passes_settings_through(tmp_path: Path) -> None:
    env_file = filled_env(tmp_path / ".env", GAMEHOST_LANG="ko", GAMEHOST_MODE="development")
    cmd, env = compose_cmd(env_file)
    proc = run([*cmd, "config", "--format", "json"], env=env)
    assert proc.returncode == 0, proc.stderr
    services = json.loads(proc.stdout)["services"]
    environment = services["gamehost"]["environment"]
    assert environment["GAMEHOST_LANG"] == "ko"  # from the env file
    assert environment["GAMEHOST_MODE"] == "production"  # pinned over the env file
    assert environment["TWILIO_AUTH_TOKEN"] == TEST_AUTH_TOKEN
    assert environment["GAMEHOST_PUBLIC_URL"] == f"https://{DOMAIN}"
    assert "ports" not in services["gamehost"]


@pytest.mark.usefixtures("compose_config")
def test_compose_refuses_an_unedited_env_example(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    shutil.copy(ROOT / "deploy" / ".env.example", env_file)
    cmd, env = compose_cmd(env_file)
    proc = run([*cmd, "config"], env=env)
    assert proc.returncode != 0
    assert re.search(
        r"set (GAMEHOST_DOMAIN|TWILIO_ACCOUNT_SID|TWILIO_AUTH_TOKEN|POSTGRES_PASSWORD)", proc.stderr
    )


# -- the stack in containers -----------------------------------------------------------------


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[list[str], dict[str, str]]]:
    missing = engine_missing()
    if missing is not None:
        pytest.skip(f"the compose stack was not run: {missing}")
    project = f"gamehost-test-{secrets.token_hex(4)}"
    cmd, env = compose_cmd(filled_env(tmp_path / ".env"), project)
    try:
        # --wait: until PostgreSQL and then gamehost report healthy (/healthz).
        up = run([*cmd, "up", "--detach", "--build", "--wait", "gamehost"], timeout=1500, env=env)
        assert up.returncode == 0, up.stderr[-4000:]
        yield cmd, env
    finally:
        run([*cmd, "down", "--volumes", "--remove-orphans"], timeout=300, env=env)


# Runs inside the gamehost container: a request to the server there, status and body out.
REQUEST = """
import sys, urllib.error, urllib.parse, urllib.request
url, body, signature = sys.argv[1], sys.argv[2], sys.argv[3]
data = body.encode() if body else None
req = urllib.request.Request(url, data=data, headers={"X-Twilio-Signature": signature} if signature else {})
try:
    with urllib.request.urlopen(req, timeout=10) as r:
        print(r.status); print(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code); print(e.read().decode())
"""


def in_container(
    stack: tuple[list[str], dict[str, str]], path: str, form: str = "", signature: str = ""
) -> str:
    cmd, env = stack
    url = "http://127.0.0.1:8000" + path
    proc = run([*cmd, "exec", "-T", "gamehost", "python", "-c", REQUEST, url, form, signature], env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.docker
@pytest.mark.timeout(1800)
def test_the_stack_answers_healthz_and_a_signed_sms(stack: tuple[list[str], dict[str, str]]) -> None:
    cmd, env = stack
    whoami = run([*cmd, "exec", "-T", "gamehost", "id", "-u"], env=env)
    assert whoami.returncode == 0 and whoami.stdout.strip() != "0", "gamehost runs as root"

    status, body = in_container(stack, "/healthz").split("\n", 1)
    assert status == "200" and json.loads(body) == {"status": "ok"}

    params = {
        "From": "+15550000001",
        "To": "+15559990000",
        "Body": "NEW",
        "MessageSid": "SM" + "1" * 32,
        "AccountSid": TEST_ACCOUNT_SID,
        "NumSegments": "1",
        "SmsStatus": "received",
    }
    # Twilio signs the public URL (GAMEHOST_PUBLIC_URL, from GAMEHOST_DOMAIN), not the
    # container's own address.
    signature = sign(f"https://{DOMAIN}/twilio/sms", params)
    refused = in_container(stack, "/twilio/sms", urlencode(params), "bad")
    assert refused.startswith("403"), refused
    answer = in_container(stack, "/twilio/sms", urlencode(params), signature)
    assert answer.startswith("200") and re.search(r"Game \d{6} is ready", answer), answer
    # It went to PostgreSQL, not to a SQLite file in the container: the game is in the db service.
    sql = "SELECT count(*) FROM sessions"
    count = run([*cmd, "exec", "-T", "db", "psql", "-U", "gamehost", "-d", "gamehost", "-tAc", sql], env=env)
    assert count.returncode == 0 and count.stdout.strip() == "1", count.stderr
