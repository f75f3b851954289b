"""A setting the environment gets wrong, met by a new user: one ``gamehost: ...`` line that
names the variable, the value and what is allowed, and exit 2, for every setting and every
command (never pydantic's traceback); a port out of range said the same way; production
naming every missing variable at once; and development mode saying only what it does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import AliasChoices
from typer.testing import CliRunner

from host.cli import app
from host.config import Settings, get_settings
from tests.servers import free_port, said_until_started

runner = CliRunner()

#: A wrong value for each kind of setting, and what the error must say is allowed instead.
WRONG = {int: ("ten", "a whole number"), float: ("ten", "a number"), bool: ("maybe", "true or false")}


def variable(name: str) -> str:
    """The environment variable a setting is read from (Twilio's own name where it has one)."""
    alias = Settings.model_fields[name].validation_alias
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0])
    return f"GAMEHOST_{name.upper()}"


def wrong_values() -> list[tuple[str, str, list[str]]]:
    """(variable, a wrong value, words its error must have) for every setting a value can be
    wrong for: a number, a switch, or one of a few words."""
    found = []
    for name, field in Settings.model_fields.items():
        kind = field.annotation
        optional = typing.get_origin(kind) in (typing.Union, types.UnionType)
        if optional:
            kind = next(a for a in typing.get_args(kind) if a is not type(None))
        if typing.get_origin(kind) is typing.Literal:
            found.append((variable(name), "dev", [str(choice) for choice in typing.get_args(kind)]))
        elif kind in WRONG:
            value, allowed = WRONG[kind]
            found.append((variable(name), value, [allowed, *(["empty"] if optional else [])]))
    return found


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for name in os.environ:
        if name.startswith(("GAMEHOST_", "TWILIO_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("GAMEHOST_DB", str(tmp_path / "g.db"))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def one_line(result: Any) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output and "pydantic" not in result.output, result.output
    return " ".join(lines[0].split())


def test_every_setting_has_a_wrong_value_here() -> None:
    named = {v for v, _, _ in wrong_values()}
    assert {
        "GAMEHOST_MODE",
        "GAMEHOST_SMS_TURN_TIMEOUT",
        "GAMEHOST_TABLE_UNDO_GRACE",
        "GAMEHOST_WORKERS",
    } <= named


@pytest.mark.parametrize(
    ("name", "value", "allowed"), wrong_values(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_a_wrong_setting_is_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, value: str, allowed: list[str]
) -> None:
    monkeypatch.setenv(name, value)
    result = runner.invoke(app, ["play", "up-or-down", "--players", "Ann,Bob"], input="53\n")
    assert result.exit_code == 2, result.output
    line = one_line(result)
    assert line.startswith(f"gamehost: {name}={value}: must be "), line
    for word in allowed:
        assert word in line, line
    assert not (tmp_path / "g.db").exists()  # before anything was saved


def test_two_wrong_settings_are_named_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAMEHOST_MODE", "dev")
    monkeypatch.setenv("GAMEHOST_WORKERS", "0")
    result = runner.invoke(app, ["migrate"])
    assert result.exit_code == 2
    line = one_line(result)
    assert "GAMEHOST_MODE=dev: must be production or development" in line
    assert "GAMEHOST_WORKERS=0: must be at least 1" in line


COMMANDS = [
    ["games"],
    ["play", "up-or-down", "--players", "Ann,Bob"],
    ["play", "--resume", "abc"],
    ["table", "up-or-down", "--players", "Ann,Bob", "--audio", "none.wav", "--quiet"],
    ["serve"],
    ["serve", "--database-url", "sqlite:///elsewhere.db"],
    ["migrate"],
    ["outbox", "--db", "other.db"],
    ["mic", "123456"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_command_says_a_wrong_setting_in_one_line(
    monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.setenv("GAMEHOST_SMS_TURN_TIMEOUT", "ten")
    result = runner.invoke(app, args, input="")
    assert result.exit_code == 2, result.output
    assert "GAMEHOST_SMS_TURN_TIMEOUT=ten: must be a number" in one_line(result)


def gamehost(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The command as typed in a shell, with only these settings."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("GAMEHOST_", "TWILIO_"))}
    environment.update(GAMEHOST_DB=str(tmp_path / "g.db"), **env)
    return subprocess.run(
        [sys.executable, "-m", "host.cli", *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_first_hours_wrong_settings_as_typed(tmp_path: Path) -> None:
    done = gamehost(tmp_path, "serve", GAMEHOST_MODE="dev")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "gamehost: GAMEHOST_MODE=dev: must be production or development" in done.stderr
    done = gamehost(tmp_path, "serve", "--port", "99999", GAMEHOST_MODE="development")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "gamehost: --port 99999: must be from 1 to 65535" in done.stderr


def test_a_wrong_flag_value_is_one_line_too() -> None:
    result = runner.invoke(app, ["serve", "--port", "eighty"])
    assert result.exit_code == 2
    line = one_line(result)
    assert line.startswith("gamehost: ") and "'--port': must be a whole number" in line
    assert "gamehost serve --help" in line


def test_production_names_every_missing_variable_at_once() -> None:
    result = runner.invoke(app, ["serve"])
    assert result.exit_code == 2
    line = one_line(result)
    assert "TWILIO_AUTH_TOKEN" in line and "GAMEHOST_PUBLIC_URL" in line
    assert "GAMEHOST_MODE=development" in line


def test_development_mode_says_once_what_it_does(tmp_path: Path) -> None:
    """Unsigned webhooks are taken in development mode: nothing may say they are refused."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("GAMEHOST_", "TWILIO_"))}
    environment.update(GAMEHOST_DB=str(tmp_path / "serve.sqlite3"), GAMEHOST_MODE="development")
    proc = subprocess.Popen(
        [sys.executable, "-m", "host.cli", "serve", "--port", str(free_port())],
        env=environment,
        stderr=subprocess.PIPE,
        text=True,
    )
    # The database's path is pytest's temporary folder, whose name counts runs
    # ("pytest-403"): only what serve says of its own may not mention a refusal. A 403 is
    # a whole number: the server's process id ("[24033]") or port may hold those digits.
    told = said_until_started(proc).replace(str(tmp_path), "<tmp>")
    assert told.count("DEVELOPMENT MODE") == 1, told
    assert "refused" not in told and not re.search(r"\b403\b", told), told
    assert "TWILIO_AUTH_TOKEN" not in told, told
