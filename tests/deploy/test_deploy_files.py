"""The deploy files are safe by default: checked as text and parsed, without a Docker engine.

What runs here: compose.yaml's structure (PostgreSQL with a healthcheck the server waits for,
restart policies, nothing published but the proxy, required secrets that fail when unset),
the Dockerfile (non-root, health check, serve on 0.0.0.0), .dockerignore, .env.example and
the README's variable table against ``host.config.Settings``, and the systemd unit through
``systemd-analyze verify``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from host.app import create_app
from host.config import Settings
from host.store import Store
from tests.deploy.settings_doc import settings_vars

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COMPOSE = DEPLOY / "compose.yaml"
# Secrets and per-site values compose must refuse to start without.
REQUIRED = ("TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "POSTGRES_PASSWORD", "GAMEHOST_DOMAIN")
SECRETS = (
    "TWILIO_AUTH_TOKEN",
    "POSTGRES_PASSWORD",
    "GAMEHOST_ADMIN_TOKEN",
    "GAMEHOST_TWILIO_WEBHOOK_KEY",
    "GAMEHOST_DATABASE_URL",
)
# Variables of the deployment that are not Settings fields.
DEPLOY_VARS = ("GAMEHOST_DOMAIN", "POSTGRES_PASSWORD", "GAMEHOST_DATABASE_URL", "GAMEHOST_WORKERS")


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    return data


def readme_deploy() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## Deploy\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def variable_table() -> dict[str, str]:
    """The Deploy section's variable table: each variable named in a row's first cell -> that
    row's default cell (backticks dropped)."""
    rows: dict[str, str] = {}
    for line in readme_deploy().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        for name in re.findall(r"`([A-Z0-9_]+)`", cells[0]):
            rows[name] = cells[1].replace("`", "")
    return rows


# -- compose.yaml ----------------------------------------------------------------------------


def test_postgres_is_healthchecked_and_the_server_waits_for_it() -> None:
    services = compose()["services"]
    db = services["db"]
    assert db["image"].startswith("postgres:15")
    test = db["healthcheck"]["test"]
    assert "pg_isready" in (test if isinstance(test, str) else " ".join(test))
    assert services["gamehost"]["depends_on"]["db"]["condition"] == "service_healthy"
    # The data outlives the container: a named volume declared at the top level.
    mounts = {m.split(":")[1]: m.split(":")[0] for m in db["volumes"]}
    assert mounts["/var/lib/postgresql/data"] in compose()["volumes"]


def test_every_service_restarts_and_only_the_proxy_is_published() -> None:
    services = compose()["services"]
    assert set(services) == {"gamehost", "db", "caddy"}
    for name, service in services.items():
        assert service.get("restart") in ("unless-stopped", "always"), name
        assert service["logging"]["options"]["max-size"], f"{name}'s log would grow without bound"
        if name != "caddy":
            assert "ports" not in service, f"{name} must not be published; Caddy is the way in"
    published = {str(p).split("/")[0] for p in services["caddy"]["ports"]}
    assert published >= {"80:80", "443:443"}
    assert "./Caddyfile:/etc/caddy/Caddyfile:ro" in services["caddy"]["volumes"]
    assert services["caddy"]["environment"]["GAMEHOST_DOMAIN"].startswith("${GAMEHOST_DOMAIN:?")


def test_settings_pass_through_and_production_is_pinned() -> None:
    gamehost = compose()["services"]["gamehost"]
    env_file = gamehost["env_file"]
    assert (env_file if isinstance(env_file, str) else env_file[0]) == "${GAMEHOST_ENV_FILE:-.env}"
    env = gamehost["environment"]
    assert env["GAMEHOST_MODE"] == "production"
    assert env["GAMEHOST_VALIDATE_SIGNATURES"] == "true"
    assert env["GAMEHOST_PUBLIC_URL"] == "https://${GAMEHOST_DOMAIN:?set GAMEHOST_DOMAIN in deploy/.env}"
    assert env["GAMEHOST_DATABASE_URL"].startswith("postgresql://gamehost:${POSTGRES_PASSWORD:?")
    assert env["GAMEHOST_DATABASE_URL"].endswith("@db:5432/gamehost")


def test_no_secret_defaults_to_empty() -> None:
    text = COMPOSE.read_text(encoding="utf-8")
    # ${X:-} or ${X-}: an unset variable silently becomes "".
    assert not re.findall(r"\$\{[A-Za-z0-9_]+:?-\}", text)
    for name in REQUIRED:
        uses = re.findall(r"\$\{" + name + r"([^A-Za-z0-9_][^}]*)?\}", text)
        assert uses, f"{name} is not required by compose.yaml"
        for rest in uses:
            assert rest.startswith(":?") and len(rest) > 2, f"${{{name}{rest}}} must be ${{{name}:?message}}"


# -- Dockerfile and .dockerignore ------------------------------------------------------------


def final_stage() -> list[str]:
    lines = (DEPLOY / "Dockerfile").read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("FROM ")]
    assert len(starts) >= 2, "a build stage and a runtime stage"
    return lines[starts[-1] :]


def test_the_image_runs_serve_as_a_user_with_a_health_check() -> None:
    stage = final_stage()
    users = [line.split()[1] for line in stage if line.startswith("USER ")]
    assert users, "the runtime stage sets no USER: it would run as root"
    assert users[-1].split(":")[0] not in ("root", "0")
    text = "\n".join(stage)
    assert re.search(r"HEALTHCHECK .*\n?.*/healthz", text)
    cmd = next(line for line in stage if line.startswith("CMD "))
    assert '"serve", "--host", "0.0.0.0"' in cmd
    # PortAudio is for the microphone at a table, never for serve.
    assert "libportaudio" not in "\n".join(line for line in stage if not line.lstrip().startswith("#"))
    assert "COPY --from=build /opt/gamehost /opt/gamehost" in text


def ignored() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_dockerignore_keeps_the_venv_secrets_and_databases_out() -> None:
    patterns = ignored()
    for needed in (".venv", ".git", "tests", "**/*.sqlite3", "**/.env", "**/__pycache__"):
        assert needed in patterns, needed


def test_dockerignore_keeps_what_the_image_copies() -> None:
    patterns = ignored()
    sources = []
    for line in (DEPLOY / "Dockerfile").read_text(encoding="utf-8").splitlines():
        if line.startswith("COPY ") and "--from=" not in line:
            sources += line.split()[1:-1]
    assert {"pyproject.toml", "README.md", "games", "grammars", "host"} <= set(sources)
    for source in sources:
        assert source not in patterns, f"the Dockerfile copies {source}, which .dockerignore drops"


# -- .env.example and the README table -------------------------------------------------------


def env_example() -> dict[str, tuple[bool, str]]:
    """Each variable in .env.example -> (set on an uncommented line, its value)."""
    found: dict[str, tuple[bool, str]] = {}
    for line in (DEPLOY / ".env.example").read_text(encoding="utf-8").splitlines():
        match = re.match(r"^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$", line.strip())
        if match:
            found[match.group(2)] = (match.group(1) is None, match.group(3))
    return found


def test_env_example_names_every_setting_and_holds_no_secret() -> None:
    example = env_example()
    for _field, names, _default in settings_vars():
        assert any(n in example for n in names), f"{names[0]} is missing from deploy/.env.example"
    for name in (*DEPLOY_VARS, *REQUIRED):
        assert name in example, f"{name} is missing from deploy/.env.example"
    for name in SECRETS:
        set_here, value = example.get(name, (False, ""))
        assert not (set_here and value), f"deploy/.env.example sets {name}: placeholders only"
    # The required ones are there, empty: an unedited copy fails to start.
    for name in REQUIRED:
        assert example[name] == (True, ""), name


def test_every_compose_variable_is_documented() -> None:
    used = set(re.findall(r"\$\{([A-Za-z0-9_]+)", COMPOSE.read_text(encoding="utf-8")))
    example, table = env_example(), variable_table()
    for name in used - {"GAMEHOST_ENV_FILE"}:
        assert name in example, f"compose.yaml uses {name}; deploy/.env.example does not say it"
        assert name in table, f"compose.yaml uses {name}; the README's Deploy table does not say it"


def test_readme_table_has_every_setting_with_its_default() -> None:
    table = variable_table()
    for field, names, default in settings_vars():
        assert names[0] in table, f"Settings.{field} ({names[0]}) is missing from the README's Deploy table"
        said = table[names[0]]
        assert said == default, f"{names[0]}: the README says {said!r}, Settings {default!r}"
    for name in DEPLOY_VARS:
        assert name in table, name


def test_readme_webhook_paths_are_the_servers_routes(tmp_path: Path) -> None:
    settings = Settings(db=tmp_path / "g.sqlite3", mode="development")
    client = TestClient(create_app(settings, Store(settings.db)))  # no lifespan: no sender thread
    section = readme_deploy()
    assert client.get("/healthz").status_code == 200
    for path in ("/twilio/sms", "/twilio/voice", "/twilio/voice/status"):
        assert client.post(path, data={}).status_code not in (404, 405), f"the server has no POST {path}"
        given = re.search(r"\{base\}" + re.escape(path) + r"`", section)
        assert given, f"the Deploy section does not give {path}"
    with client.websocket_connect("/twilio/media") as ws:  # development mode: no signature needed
        ws.close()
    assert "wss://games.example.org/twilio/media" in section and "/t/<code>/events" in section


# -- systemd --------------------------------------------------------------------------------


def test_the_unit_says_its_assumptions_and_is_hardened() -> None:
    text = (DEPLOY / "gamehost.service").read_text(encoding="utf-8")
    head = text.split("[Unit]")[0]
    assert "useradd --system" in head and "/opt/gamehost" in head and "/etc/gamehost/gamehost.env" in head
    for line in (
        "User=gamehost",
        "EnvironmentFile=/etc/gamehost/gamehost.env",
        "StateDirectory=gamehost",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "PrivateTmp=yes",
        "ExecStartPre=/opt/gamehost/bin/gamehost migrate",
        "ExecStart=/opt/gamehost/bin/gamehost serve --host 127.0.0.1 --port 8000",
    ):
        assert re.search("^" + re.escape(line) + "$", text, re.M), line


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    # This environment's gamehost stands in for /opt/gamehost's, so that verify checks every
    # setting (an unknown key or a bad value is a warning on stderr) and not a missing binary.
    gamehost = Path(sys.executable).with_name("gamehost")
    assert gamehost.exists()
    unit = tmp_path / "gamehost.service"
    text = (DEPLOY / "gamehost.service").read_text(encoding="utf-8")
    unit.write_text(text.replace("/opt/gamehost/bin/gamehost", str(gamehost)), encoding="utf-8")
    proc = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0 and not proc.stderr.strip(), proc.stderr
